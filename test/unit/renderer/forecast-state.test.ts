import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ForecastRequest, ForecastSpec } from '../../../src/shared/api'
import { fakeApi, forecastResult, info, memoryStorage, series } from './fake-api'

const fake = vi.hoisted(() => ({ current: null as ReturnType<typeof import('./fake-api').fakeApi> | null }))
vi.mock('../../../src/renderer/src/lib/api', () => ({
  get api() {
    return fake.current!.api
  },
}))

const { ForecastState } = await import('../../../src/renderer/src/state/forecast.svelte')

const SAVED = 'attention-lens:forecast'
const SPEC: ForecastSpec = { history: 10, horizon: 4, periodMinutes: 30, series: 'demand', unit: 'MW', seasonalLags: [] }
const model = (id: string) => info(id, { task: 'forecasting', forecast: SPEC })
// 40 values, the last 16 held out: origins run from 24 (the first held-out value) to 36 (the last with 4 actual values).
const BUNDLED = series(40, 24)

let f: ReturnType<typeof fakeApi>
const settle = () => new Promise((r) => setTimeout(r, 0))
const req = (i: number) => f.forecast[i].args[0] as ForecastRequest

/** A ForecastState using `id`, the bundled series delivered; its first forecast asked for, not answered. */
async function using(id = 'taylor') {
  const fc = new ForecastState()
  const done = fc.use(model(id))
  f.forecastSeries[0].resolve(BUNDLED)
  await vi.waitFor(() => expect(f.forecast.length).toBeGreaterThan(0))
  return { fc, done }
}

beforeEach(() => {
  f = fakeApi()
  fake.current = f
  vi.stubGlobal('localStorage', memoryStorage())
})
afterEach(() => vi.unstubAllGlobals())

describe('ForecastState', () => {
  it('starts at the first held-out step and sends only the history and the actual values the forecast reads', async () => {
    const { fc, done } = await using()
    expect(fc.range()).toEqual([24, 36])
    expect(fc.origin).toBe(24)
    expect(req(0)).toEqual({ modelId: 'taylor', timestamps: BUNDLED.timestamps.slice(14, 28), values: BUNDLED.values.slice(14, 28), origin: 10 })
    expect(fc.busy).toBe(true)
    f.forecast[0].resolve(forecastResult('taylor', 10, 4, 14))
    await done
    expect(fc.result?.history[0]).toBe(14)
    expect(fc.busy).toBe(false)
  })

  it('shows only the latest origin’s forecast, whatever order the answers come in', async () => {
    const { fc, done } = await using()
    f.forecast[0].resolve(forecastResult('taylor', 10, 4, 14))
    await done
    fc.setOrigin(30)
    fc.setOrigin(32)
    expect(f.forecast.map((c) => (c.args[0] as ForecastRequest).values[0])).toEqual([14, 20, 22])
    f.forecast[2].resolve(forecastResult('taylor', 10, 4, 22))
    await settle()
    f.forecast[1].resolve(forecastResult('taylor', 10, 4, 20))
    await settle()
    expect(fc.result?.history[0]).toBe(22)
    expect(fc.busy).toBe(false)
  })

  it('the latest forecast’s failure drops the forecast on show; an older one’s failure is ignored', async () => {
    const { fc, done } = await using()
    f.forecast[0].resolve(forecastResult('taylor', 10, 4, 14))
    await done
    fc.setOrigin(30)
    fc.setOrigin(32)
    f.forecast[1].reject(new Error('The engine stopped.'))
    await settle()
    expect(fc.error).toBeNull()
    expect(fc.result?.history[0]).toBe(14)
    f.forecast[2].reject(new Error('The series is not regular at 2000-08-01T11:00:00Z.'))
    await settle()
    expect(fc.error).toBe('The series is not regular at 2000-08-01T11:00:00Z.')
    expect(fc.result).toBeNull()
  })

  it('keeps the origin inside the range, and remembers it for the bundled series', async () => {
    const { fc, done } = await using()
    f.forecast[0].resolve(forecastResult('taylor', 10, 4, 14))
    await done
    fc.setOrigin(1000)
    expect(fc.origin).toBe(36)
    fc.setOrigin(-5)
    expect(fc.origin).toBe(24)
    fc.setOrigin(30.4)
    expect(fc.origin).toBe(30)
    expect(localStorage.getItem(SAVED)).toBe('30')

    // A new start picks the remembered origin; one outside the range is not used.
    f = fakeApi()
    fake.current = f
    const again = await using()
    expect(again.fc.origin).toBe(30)
    localStorage.setItem(SAVED, '2')
    f = fakeApi()
    fake.current = f
    expect((await using()).fc.origin).toBe(24)
  })

  it('another model’s forecast is not shown while the new model’s runs', async () => {
    const { fc, done } = await using('taylor-a')
    f.forecast[0].resolve(forecastResult('taylor-a', 10, 4, 14))
    await done
    const next = fc.use(model('taylor-b'))
    expect(fc.result).toBeNull()
    expect(req(1).modelId).toBe('taylor-b')
    f.forecast[1].resolve(forecastResult('taylor-b', 10, 4, 14))
    await next
    expect(fc.result?.modelId).toBe('taylor-b')
  })

  it('a CSV of the user’s own forecasts from its end; one too short for the model is refused and the forecast stays', async () => {
    const { fc, done } = await using()
    f.forecast[0].resolve(forecastResult('taylor', 10, 4, 14))
    await done
    const own = series(30, null)
    const csv = (n: number) => new File([['timestamp,demand_mw', ...own.timestamps.slice(0, n).map((t, i) => `${t},${i}`)].join('\n')], 'mine.csv')

    const short = fc.loadCsv(csv(6))
    await short
    expect(fc.error).toBe('The series has 6 values; this model reads 10 before each forecast.')
    expect(fc.series?.name).toBe('demand')
    expect(fc.result?.history[0]).toBe(14)

    const loaded = fc.loadCsv(csv(30))
    await vi.waitFor(() => expect(f.forecast).toHaveLength(2))
    expect(fc.series?.name).toBe('mine.csv')
    expect(fc.origin).toBe(30)
    // Past the end of the user's data there are no actual values to send.
    expect(req(1).values).toEqual(own.values.slice(20, 30))
    f.forecast[1].resolve(forecastResult('taylor', 10, 4, 20))
    await loaded
    expect(fc.error).toBeNull()
    expect(localStorage.getItem(SAVED)).toBeNull()
  })

  it('a CSV loaded while the bundled series is on its way wins', async () => {
    const fc = new ForecastState()
    const started = fc.use(model('taylor'))
    const own = series(30, null)
    const loaded = fc.loadCsv(new File([['timestamp,demand_mw', ...own.timestamps.map((t, i) => `${t},${i}`)].join('\n')], 'mine.csv'))
    await vi.waitFor(() => expect(f.forecast).toHaveLength(1))
    f.forecastSeries[0].resolve(BUNDLED)
    await vi.waitFor(() => expect(f.forecast).toHaveLength(2))
    for (const c of f.forecast) c.resolve(forecastResult('taylor', 10, 4, 20))
    await Promise.all([started, loaded])
    expect(fc.series?.name).toBe('mine.csv')
  })
})
