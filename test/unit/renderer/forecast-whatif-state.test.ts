import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ForecastSpec } from '../../../src/shared/api'
import { fakeApi, forecastResult, info, memoryStorage, series } from './fake-api'

const fake = vi.hoisted(() => ({ current: null as ReturnType<typeof import('./fake-api').fakeApi> | null }))
vi.mock('../../../src/renderer/src/lib/api', () => ({
  get api() {
    return fake.current!.api
  },
}))

const { ForecastState } = await import('../../../src/renderer/src/state/forecast.svelte')

const SPEC: ForecastSpec = { history: 10, horizon: 4, periodMinutes: 30, series: 'demand', unit: 'MW', seasonalLags: [] }
const BUNDLED = series(40, 24)
let f: ReturnType<typeof fakeApi>
const settle = () => new Promise((r) => setTimeout(r, 0))

async function ready() {
  const fc = new ForecastState()
  const done = fc.use(info('taylor', { task: 'forecasting', forecast: SPEC }))
  f.forecastSeries[0].resolve(BUNDLED)
  await vi.waitFor(() => expect(f.forecast.length).toBe(1))
  f.forecast[0].resolve(forecastResult('taylor', 10, 4, 14))
  await done
  return fc
}
const pair = (first: number) => ({ original: forecastResult('taylor', 10, 4, 14), modified: forecastResult('taylor', 10, 4, first) })

beforeEach(() => {
  f = fakeApi()
  fake.current = f
  vi.stubGlobal('localStorage', memoryStorage())
})
afterEach(() => vi.unstubAllGlobals())

describe('ForecastState: what-if', () => {
  it('sends the origin’s window with the override, and shows only the latest run’s answer', async () => {
    const fc = await ready()
    void fc.runWhatIf({ steps: 'all', mode: 'onehot', lag: 3 })
    void fc.runWhatIf({ steps: [1], mode: 'uniform' })
    expect(f.forecastWhatIf[1].args[0]).toEqual({
      modelId: 'taylor',
      timestamps: BUNDLED.timestamps.slice(14, 28),
      values: BUNDLED.values.slice(14, 28),
      origin: 10,
      steps: [1],
      mode: 'uniform',
    })
    f.forecastWhatIf[1].resolve(pair(99))
    await settle()
    f.forecastWhatIf[0].resolve(pair(55))
    await settle()
    expect(fc.whatIf?.modified.forecast[0]).toBe(99)
    expect(fc.whatIfBusy).toBe(false)
  })

  it('a refused run says why and leaves no earlier result under the error', async () => {
    const fc = await ready()
    void fc.runWhatIf({ steps: 'all', mode: 'uniform' })
    f.forecastWhatIf[0].resolve(pair(99))
    await settle()
    void fc.runWhatIf({ steps: 'all', mode: 'onehot', lag: 500 })
    expect(fc.whatIf).toBeNull()
    f.forecastWhatIf[1].reject(new Error('none of the lags falls inside the history'))
    await settle()
    expect([fc.whatIf, fc.whatIfError]).toEqual([null, 'none of the lags falls inside the history'])
  })

  it('another origin drops the what-if result (it was for the old one), and a late answer to it too', async () => {
    const fc = await ready()
    void fc.runWhatIf({ steps: 'all', mode: 'uniform' })
    fc.setOrigin(fc.origin + 1)
    f.forecastWhatIf[0].resolve(pair(99))
    await settle()
    expect(fc.whatIf).toBeNull()
  })
})
