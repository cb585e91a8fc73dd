import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { forecastOverride } from '../../../src/engine/forecast-whatif'
import { InferenceService } from '../../../src/engine/service'
import { parseSeriesCsv } from '../../../src/shared/series'
import { BUNDLED_MODELS, ROOT } from '../../helpers'

const series = parseSeriesCsv(readFileSync(join(ROOT, 'resources', 'series', 'taylor-holdout.csv'), 'utf8'), 'taylor')
const model = (kind: string) => join(BUNDLED_MODELS, `taylor-${kind}.onnx`)
const ORIGIN = series.values.length - 2 * 336 + 100
const service = new InferenceService()
afterAll(() => service.closeAll())

describe('forecast what-if: the weights', () => {
  it('a lag names the column that far back from the step forecast; weights are normalised over the lags inside the history', () => {
    const H = 384
    const one = forecastOverride({ steps: 'all', mode: 'onehot', lag: 48 })
    for (const t of [0, 10, 47]) {
      const w = one(t, H)!
      expect(w[H + t - 48]).toBe(1)
      expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6)
    }
    const two = forecastOverride({
      steps: [3],
      mode: 'custom',
      lags: [
        { lag: 48, weight: 3 },
        { lag: 336, weight: 1 },
        { lag: 1000, weight: 5 },
      ],
    })
    expect(two(0, H)).toBeNull()
    const w = two(3, H)!
    expect(w[H + 3 - 48]).toBeCloseTo(0.75, 6)
    expect(w[H + 3 - 336]).toBeCloseTo(0.25, 6)
    expect(forecastOverride({ steps: 'all', mode: 'uniform' })(5, 4)).toEqual(Float32Array.of(0.25, 0.25, 0.25, 0.25))
    expect(() => forecastOverride({ steps: 'all', mode: 'onehot', lag: 0 })).toThrow('A lag must be a whole number')
    expect(() => forecastOverride({ steps: 'all', mode: 'custom', lags: [{ lag: 500, weight: 1 }] })(0, H)).toThrow('none of the lags falls inside')
  })
})

describe('forecast what-if: the model', () => {
  it('uses the forced weights at the chosen step only, and the forecast from there on changes', async () => {
    const r = await service.forecastWhatIf(model('luong-general'), series, ORIGIN, { steps: [5], mode: 'onehot', lag: 336 })
    const { original, modified } = r
    // The weights used at step 5 are the one-hot ones; the other steps use the model's own.
    expect(modified.attention[5][384 + 5 - 336]).toBeCloseTo(1, 5)
    expect(modified.attention[4]).toEqual(original.attention[4])
    expect(modified.forecast.slice(0, 5)).toEqual(original.forecast.slice(0, 5))
    expect(modified.forecast[5]).not.toBe(original.forecast[5])
    expect(modified.mae).not.toBe(original.mae)
  })

  it('uniform attention at every step: every row of weights is flat', async () => {
    const { modified } = await service.forecastWhatIf(model('local-p'), series, ORIGIN, { steps: 'all', mode: 'uniform' })
    for (const row of [modified.attention[0], modified.attention[47]]) expect(Math.max(...row) - Math.min(...row)).toBeLessThan(1e-6)
  })

  it('a model without attention is refused in one sentence', async () => {
    await expect(service.forecastWhatIf(model('none'), series, ORIGIN, { steps: 'all', mode: 'uniform' })).rejects.toThrow('has no attention to override')
  })
})
