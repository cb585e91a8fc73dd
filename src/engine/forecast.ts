import * as ort from './onnxruntime'
import type { ForecastEval, ForecastResult } from '../shared/api'
import { calendarFeatures, irregularity, MAX_SERIES_ROWS, seasonalNaiveLag, timestampMinutes } from '../shared/series'
import { ContractError, type ForecastModelSpec } from './contract'
import type { LoadedModel } from './model'
import { row } from './steps'

/**
 * Forecasting with a model of the forecasting variant (docs/model-format.md): the encoder reads
 * `history` steps of [scaled value, calendar features], the step part is run `horizon` times,
 * each time fed its own previous forecast and the calendar of the step it predicts.
 */
/** What the encoder part may read: the history, and a mask of ones (every history step is real). */
export const FORECAST_ENCODER_FEEDS = ['history', 'src_mask'] as const

export interface SeriesInput {
  timestamps: string[]
  values: number[]
}

function spec(model: LoadedModel): ForecastModelSpec {
  if (!model.spec.forecast) throw new ContractError(`${model.spec.name} is a translation model; it does not forecast a series.`)
  return model.spec.forecast
}

/** A one-sentence problem with a series and an origin for this model, or null. */
export function seriesProblem(f: ForecastModelSpec, s: SeriesInput, origin: number): string | null {
  return originProblem(f, s, origin) ?? rangeProblem(f, s, origin - f.history, Math.min(s.values.length, origin + f.horizon))
}

function originProblem(f: ForecastModelSpec, s: SeriesInput, origin: number): string | null {
  if (!Array.isArray(s.timestamps) || !Array.isArray(s.values) || s.timestamps.length !== s.values.length) {
    return 'The series needs one timestamp for every value.'
  }
  if (s.values.length > MAX_SERIES_ROWS) return `The series has more than ${MAX_SERIES_ROWS} values.`
  if (!Number.isInteger(origin) || origin < f.history || origin > s.values.length) {
    return `A forecast needs ${f.history} values before its origin; pick an origin from ${f.history} to ${s.values.length} (this series has ${s.values.length} values).`
  }
  return null
}

/** Rows [from, to) are read: each needs a timestamp, a number, and the model's spacing. */
function rangeProblem(f: ForecastModelSpec, s: SeriesInput, from: number, to: number): string | null {
  for (let i = from; i < to; i++) {
    if (!Number.isFinite(timestampMinutes(String(s.timestamps[i])))) return `Timestamp ${i + 1} of the series is not a date and time.`
  }
  for (let i = from; i < to; i++) if (typeof s.values[i] !== 'number' || !Number.isFinite(s.values[i])) return `Value ${i + 1} of the series is not a number.`
  return irregularity(s, f.periodMinutes, from + 1, to)
}

function isoAt(minutes: number): string {
  return new Date(minutes * 60_000).toISOString().slice(0, 19) + 'Z'
}

/** Timestamps of the forecast steps: the series' own where it has them, else continued. */
function forecastTimes(f: ForecastModelSpec, s: SeriesInput, origin: number): string[] {
  const last = timestampMinutes(s.timestamps[origin - 1])
  return Array.from({ length: f.horizon }, (_, t) => s.timestamps[origin + t] ?? isoAt(last + (t + 1) * f.periodMinutes))
}

/**
 * The model's features of one step. Origins of a batch overlap (each timestamp sits in up to
 * `history` windows), so each timestamp's calendar is worked out once per batch.
 */
function featureVectors(): (names: string[], ts: string, scaled: number) => number[] {
  const calendars = new Map<string, [number, number, number, number]>()
  return (names, ts, scaled) => {
    let c = calendars.get(ts)
    if (!c) calendars.set(ts, (c = calendarFeatures(ts)))
    const by: Record<string, number> = { value: scaled, tod_sin: c[0], tod_cos: c[1], dow_sin: c[2], dow_cos: c[3] }
    return names.map((n) => by[n])
  }
}

interface Run {
  /** forecast[b][t] in the series' unit. */
  forecast: number[][]
  /** Timestamps of each row's forecast steps. */
  times: string[][]
  /** Per-step outputs of row 0 (only when captured). */
  steps: ort.InferenceSession.ReturnType[]
  memLen: number
}

/** Forecasts from several origins of one series as one batch. */
async function run(model: LoadedModel, s: SeriesInput, origins: number[], capture: boolean, override?: AttentionOverride): Promise<Run> {
  const f = spec(model)
  const B = origins.length
  const H = f.history
  const F = f.features.length
  const hist = new Float32Array(B * H * F)
  const prev = new Float32Array(B)
  const featureVector = featureVectors()
  origins.forEach((o, b) => {
    for (let j = 0; j < H; j++) {
      const i = o - H + j
      const scaled = (s.values[i] - f.mean) / f.std
      hist.set(featureVector(f.features, s.timestamps[i], scaled), (b * H + j) * F)
    }
    prev[b] = (s.values[o - 1] - f.mean) / f.std
  })
  const encFeeds: Record<string, ort.Tensor> = { history: new ort.Tensor('float32', hist, [B, H, F]) }
  if (model.encoder.inputNames.includes('src_mask')) encFeeds.src_mask = new ort.Tensor('float32', new Float32Array(B * H).fill(1), [B, H])
  const enc = await model.encoder.run(encFeeds)
  const memory = enc.encoder_out
  const memLen = memory.dims[1]
  let state = enc.decoder_init
  const want = model.stepInputs
  const Fs = f.stepFeatures.length
  const times = origins.map((o) => forecastTimes(f, s, o))
  const constant: Record<string, ort.Tensor> = { encoder_states: memory }
  if (want.has('src_mask')) constant.src_mask = new ort.Tensor('float32', new Float32Array(B * memLen).fill(1), [B, memLen])
  if (want.has('attn_override')) constant.attn_override = new ort.Tensor('float32', new Float32Array(B * memLen), [B, memLen])
  if (want.has('override_on')) constant.override_on = new ort.Tensor('float32', new Float32Array(B), [B])
  const forecast = origins.map(() => new Array<number>(f.horizon))
  const steps: ort.InferenceSession.ReturnType[] = []
  let prevValue = prev
  for (let t = 0; t < f.horizon; t++) {
    const feats = new Float32Array(B * Fs)
    for (let b = 0; b < B; b++) feats.set(featureVector(f.stepFeatures, times[b][t], 0), b * Fs)
    const feeds: Record<string, ort.Tensor> = {
      ...constant,
      state,
      prev_value: new ort.Tensor('float32', prevValue, [B]),
      step_features: new ort.Tensor('float32', feats, [B, Fs]),
    }
    if (want.has('step')) feeds.step = new ort.Tensor('float32', new Float32Array(B).fill(t), [B])
    const w = override?.(t, memLen) ?? null
    if (w && want.has('attn_override') && want.has('override_on')) {
      // One origin per what-if run (forecastWhatIf): the weights are row 0's.
      feeds.attn_override = new ort.Tensor('float32', w, [1, memLen])
      feeds.override_on = new ort.Tensor('float32', Float32Array.of(1), [1])
    }
    const o = await model.step.run(feeds)
    const y = o.forecast.data as Float32Array
    for (let b = 0; b < B; b++) forecast[b][t] = y[b] * f.std + f.mean
    prevValue = Float32Array.from(y.subarray(0, B))
    state = o.next_state
    if (capture) steps.push(o)
  }
  return { forecast, times, steps, memLen }
}

/** Sums of absolute and relative errors: MAE and MAPE over all steps added. */
class Errors {
  private abs = 0
  private pct = 0
  private n = 0

  add(pred: number, actual: number): void {
    this.abs += Math.abs(pred - actual)
    this.pct += Math.abs(pred - actual) / Math.abs(actual)
    this.n++
  }

  get mae(): number {
    return this.abs / this.n
  }

  get mape(): number {
    return (this.pct / this.n) * 100
  }
}

function errors(pred: (number | null)[], actual: (number | null)[]): Errors | null {
  if (actual.some((a) => a === null) || pred.some((p) => p === null)) return null
  const e = new Errors()
  pred.forEach((p, t) => e.add(p as number, actual[t] as number))
  return e
}

/** The value `lag` steps before each forecast step, where the series has it. */
function naive(f: ForecastModelSpec, s: SeriesInput, origin: number): (number | null)[] {
  const lag = seasonalNaiveLag(f.seasonalLags)
  return Array.from({ length: f.horizon }, (_, t) => {
    const i = origin + t - lag
    return lag > 0 && i >= 0 && i < s.values.length ? s.values[i] : null
  })
}

/** The attention weights to force at forecast step t over memLen history steps, or null for the model's own (forecast-whatif.ts). */
export type AttentionOverride = (t: number, memLen: number) => Float32Array | null

/** One forecast with its attention, p_t and errors, for the forecasting view. */
export async function forecastAt(model: LoadedModel, s: SeriesInput, origin: number, override?: AttentionOverride): Promise<ForecastResult> {
  const f = spec(model)
  const problem = seriesProblem(f, s, origin)
  if (problem) throw new ContractError(problem)
  const t0 = performance.now()
  const r = await run(model, s, [origin], true, override)
  const decodeMs = performance.now() - t0
  const S = r.memLen
  const matrix = (name: string) => (r.steps[0]?.[name] ? r.steps.map((o) => row(o[name], 0, S)!) : null)
  const attention = matrix('attention') ?? []
  const windows = r.steps[0]?.window ? r.steps.map((o) => row(o.window, 0, 2) as [number, number]) : null
  const actual = Array.from({ length: f.horizon }, (_, t) => (origin + t < s.values.length ? s.values[origin + t] : null))
  const seasonalNaive = naive(f, s, origin)
  const e = errors(r.forecast[0], actual)
  const en = errors(seasonalNaive, actual)
  return {
    modelId: '',
    historyTimes: s.timestamps.slice(origin - f.history, origin),
    history: s.values.slice(origin - f.history, origin),
    times: r.times[0],
    forecast: r.forecast[0],
    actual,
    seasonalNaive,
    attention,
    scores: matrix('scores') ?? [],
    positions: r.steps[0]?.position ? r.steps.map((o) => (o.position.data as Float32Array)[0]) : null,
    windows,
    gaussian: matrix('gaussian'),
    align: matrix('align'),
    mae: e?.mae ?? null,
    mape: e?.mape ?? null,
    naiveMae: en?.mae ?? null,
    naiveMape: en?.mape ?? null,
    unit: f.unit,
    periodMinutes: f.periodMinutes,
    seasonalLags: f.seasonalLags,
    decodeMs,
    provider: model.provider,
  }
}

/**
 * MAE and MAPE over every step of every origin, with the seasonal-naive forecast scored on the
 * same steps: how the model cards' numbers are re-measured from the ONNX file.
 */
export async function evaluateForecast(model: LoadedModel, s: SeriesInput, origins: number[], batch = 128): Promise<ForecastEval> {
  const f = spec(model)
  if (origins.length === 0) throw new ContractError('There is no origin with a whole horizon of actual values to score.')
  const first = origins[0]
  const last = origins[origins.length - 1]
  // Every value between the first history and the last target is read: check them all at once.
  const problem =
    originProblem(f, s, first) ??
    originProblem(f, s, last) ??
    (last + f.horizon > s.values.length ? 'Every origin needs the actual values of its whole horizon.' : null) ??
    rangeProblem(f, s, first - f.history, last + f.horizon)
  if (problem) throw new ContractError(problem)
  const t0 = performance.now()
  const scored = new Errors()
  const baseline = new Errors()
  const lag = seasonalNaiveLag(f.seasonalLags)
  for (let k = 0; k < origins.length; k += batch) {
    const part = origins.slice(k, k + batch)
    const r = await run(model, s, part, false)
    part.forEach((o, b) => {
      for (let t = 0; t < f.horizon; t++) {
        scored.add(r.forecast[b][t], s.values[o + t])
        baseline.add(s.values[o + t - lag], s.values[o + t])
      }
    })
  }
  return {
    origins: origins.length,
    steps: origins.length * f.horizon,
    mae: scored.mae,
    mape: scored.mape,
    naiveMae: baseline.mae,
    naiveMape: baseline.mape,
    seconds: (performance.now() - t0) / 1000,
  }
}

/** Origins whose whole horizon lies in [from, length): where a forecast can be scored. */
export function scoredOrigins(f: Pick<ForecastModelSpec, 'history' | 'horizon'>, length: number, from: number): number[] {
  const first = Math.max(from, f.history)
  return Array.from({ length: Math.max(0, length - f.horizon - first + 1) }, (_, i) => first + i)
}
