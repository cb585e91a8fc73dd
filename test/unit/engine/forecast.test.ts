import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { scoredOrigins, seriesProblem } from '../../../src/engine/forecast'
import { InferenceService } from '../../../src/engine/service'
import { parseSeriesCsv } from '../../../src/shared/series'
import { BUNDLED_MODELS, editedModel, ROOT, setMeta, tiny } from '../../helpers'

const series = parseSeriesCsv(readFileSync(join(ROOT, 'resources', 'series', 'taylor-holdout.csv'), 'utf8'), 'taylor')
const model = (kind: string) => join(BUNDLED_MODELS, `taylor-${kind}.onnx`)
const KINDS = ['luong-general', 'local-p', 'none']
// The bundled file is the history of the first held-out origin, then the two held-out weeks.
const HELD_OUT = series.values.length - 2 * 336
const service = new InferenceService()
afterAll(() => service.closeAll())

describe('forecasting models', () => {
  it('open under the forecasting variant of the contract', async () => {
    const d = await service.describe(model('local-p'))
    expect(d.task).toBe('forecasting')
    expect(d.attention).toBe('local-p')
    expect(d.windowD).toBeGreaterThan(0)
    expect(d.forecast).toMatchObject({ history: 384, horizon: 48, periodMinutes: 30, unit: 'MW', seasonalLags: [48, 336] })
    expect(d.forecastScore?.origins).toBe(625)
  })

  it('one forecast: 48 steps, a 48 × 384 attention matrix whose rows sum to 1, errors against the actual values', async () => {
    expect(HELD_OUT).toBe(384)
    const r = await service.forecast(model('luong-general'), series, HELD_OUT + 100)
    expect(r.forecast).toHaveLength(48)
    expect(r.history).toHaveLength(384)
    expect(r.historyTimes[383] < r.times[0]).toBe(true)
    expect(r.attention).toHaveLength(48)
    for (const row of r.attention) {
      expect(row).toHaveLength(384)
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4)
    }
    expect(r.actual.every((v) => typeof v === 'number')).toBe(true)
    // The seasonal naive is the value 336 steps earlier, taken from the history.
    expect(r.seasonalNaive[0]).toBe(series.values[484 - 336])
    const mae = r.forecast.reduce((s, y, t) => s + Math.abs(y - (r.actual[t] as number)), 0) / 48
    expect(r.mae).toBeCloseTo(mae, 6)
    expect(r.positions).toBeNull()
  })

  it('local-p: p_t, a window of 2D+1 around it and weights only inside it', async () => {
    const r = await service.forecast(model('local-p'), series, 600)
    const D = (await service.describe(model('local-p'))).windowD
    expect(r.positions).toHaveLength(48)
    r.positions!.forEach((p, t) => {
      expect(p).toBeGreaterThanOrEqual(0)
      expect(p).toBeLessThanOrEqual(384)
      expect(r.windows![t][1] - r.windows![t][0]).toBeCloseTo(2 * D, 4)
      r.attention[t].forEach((w, j) => {
        if (Math.abs(j - p) > D + 1e-4) expect(w).toBe(0)
      })
    })
  })

  it('the no-attention model forecasts from one fixed context and has no attention to show', async () => {
    const r = await service.forecast(model('none'), series, 500)
    expect(r.forecast).toHaveLength(48)
    expect(r.attention).toEqual([])
  })

  it('past the end of the series: the forecast runs on, with no actual values and no errors', async () => {
    const cut = { timestamps: series.timestamps.slice(0, 400), values: series.values.slice(0, 400) }
    const r = await service.forecast(model('local-p'), cut, 400)
    expect(r.forecast).toHaveLength(48)
    expect(r.actual.every((v) => v === null)).toBe(true)
    expect(r.mae).toBeNull()
    // Timestamps continue every 30 minutes after the last one.
    expect(r.times[0]).toBe('2000-08-14T08:00:00Z')
    expect(r.times[47]).toBe('2000-08-15T07:30:00Z')
  })

  it.each(KINDS)('%s: MAE and MAPE re-measured from the ONNX file match its model card', async (kind) => {
    const d = await service.describe(model(kind))
    const e = await service.evaluateForecast(model(kind), series, scoredOrigins(d.forecast!, series.values.length, HELD_OUT))
    const card = d.forecastScore!
    expect(e.origins).toBe(card.origins)
    expect(Math.abs(e.mae - card.mae)).toBeLessThan(0.1)
    expect(Math.abs(e.mape - card.mape)).toBeLessThan(0.01)
    expect(Math.abs(e.naiveMae - card.seasonal_naive.mae)).toBeLessThan(0.1)
    expect(Math.abs(e.naiveMape - card.seasonal_naive.mape)).toBeLessThan(0.01)
  })

  it('refuses a series it cannot read, in one sentence', async () => {
    const d = await service.describe(model('local-p'))
    const f = { ...d.forecast!, features: [], stepFeatures: [], mean: 0, std: 1 }
    expect(seriesProblem(f, series, 100)).toMatch(/needs 384 values before its origin/)
    const gap = { timestamps: [...series.timestamps], values: [...series.values] }
    gap.timestamps.splice(200, 1)
    gap.values.splice(200, 1)
    expect(seriesProblem(f, gap, 500)).toMatch(/not one value every 30 minutes: .* is followed by/)
    const nan = { timestamps: series.timestamps, values: [...series.values] }
    nan.values[300] = NaN
    expect(seriesProblem(f, nan, 500)).toBe('Value 301 of the series is not a number.')
    await expect(service.forecast(model('local-p'), series, 10)).rejects.toThrow(/needs 384 values before its origin/)
  })

  it('held-out evaluation refuses a gap anywhere between its first history step and its last target', async () => {
    const gap = { timestamps: [...series.timestamps], values: [...series.values] }
    gap.timestamps.splice(520, 5)
    gap.values.splice(520, 5)
    // The first and the last origin's own windows are regular; only the middle is not.
    await expect(service.evaluateForecast(model('none'), gap, [384, 560, 1003])).rejects.toThrow(/not one value every 30 minutes/)
  })

  it('a forecaster does not translate, and a translation model does not forecast', async () => {
    await expect(service.translate(model('local-p'), 'a dog')).rejects.toThrow('taylor-local-p is a forecasting model; it does not translate text.')
    await expect(service.forecast(tiny('bahdanau'), series, 500)).rejects.toThrow(/is a translation model; it does not forecast a series/)
  })

  it('a forecasting file with broken metadata is refused in one sentence', async () => {
    const noSpec = editedModel(model('local-p'), (m) => setMeta(m, 'al.forecast', null))
    await expect(service.describe(noSpec)).rejects.toThrow('The model\'s metadata lacks "al.forecast".')
    const odd = editedModel(model('local-p'), (m) => {
      const f = JSON.parse(m.metadataProps.find((p) => p.key === 'al.forecast')!.value!)
      f.features = ['value', 'temperature']
      setMeta(m, 'al.forecast', JSON.stringify(f))
    })
    await expect(service.describe(odd)).rejects.toThrow(/"temperature" does not/)
    const noScale = editedModel(model('none'), (m) => {
      const f = JSON.parse(m.metadataProps.find((p) => p.key === 'al.forecast')!.value!)
      f.scaling = { mean: 1, std: 0 }
      setMeta(m, 'al.forecast', JSON.stringify(f))
    })
    await expect(service.describe(noScale)).rejects.toThrow(/positive "std"/)
    const edit = (change: (f: Record<string, unknown>) => void) =>
      editedModel(model('none'), (m) => {
        const f = JSON.parse(m.metadataProps.find((p) => p.key === 'al.forecast')!.value!)
        change(f)
        setMeta(m, 'al.forecast', JSON.stringify(f))
      })
    await expect(service.describe(edit((f) => (f.step_features = ['value', 'tod_sin'])))).rejects.toThrow(/"step_features" cannot include "value"/)
    await expect(service.describe(edit((f) => (f.seasonal_lags = [48, 400])))).rejects.toThrow(
      'The model\'s seasonal lag 400 reaches further back than its history of 384 steps (a lag must not exceed "history").',
    )
    // A malformed score is dropped; the model still opens.
    const badScore = editedModel(model('none'), (m) => setMeta(m, 'al.test_metrics', '{"mae": 1}'))
    expect((await service.describe(badScore)).forecastScore).toBeNull()
    const bahdanau = editedModel(model('luong-general'), (m) => setMeta(m, 'al.attention', 'bahdanau'))
    await expect(service.describe(bahdanau)).rejects.toThrow(/forecasting model's attention kind must be one of none, luong-general, local-p/)
  })
})
