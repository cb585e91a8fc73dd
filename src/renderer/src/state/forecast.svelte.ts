import type { ForecastResult, ModelInfo, SeriesData } from '../../../shared/api'
import type { ForecastWhatIfRequest, ForecastWhatIfResult } from '../../../shared/teaching'
import { parseSeriesCsv } from '../../../shared/series'
import { api } from '../lib/api'
import { Latest } from '../lib/latest'

const SAVED_KEY = 'attention-lens:forecast'

/**
 * The forecasting view's state: which series (the bundled held-out weeks or a CSV the user
 * loaded), the forecast origin, the forecast the engine returned and the selected step.
 */
export class ForecastState {
  series = $state.raw<SeriesData | null>(null)
  origin = $state(0)
  result = $state.raw<ForecastResult | null>(null)
  selectedStep = $state<number | null>(null)
  busy = $state(false)
  error = $state<string | null>(null)
  /** A what-if run from the current origin: the forecast with the model's own attention and with the override. */
  whatIf = $state.raw<ForecastWhatIfResult<ForecastResult> | null>(null)
  whatIfError = $state<string | null>(null)
  whatIfBusy = $state(false)

  private forecasts = new Latest()
  private whatIfs = new Latest()
  private model = $state.raw<ModelInfo | null>(null)

  /** The origins a forecast can start from: the held-out weeks, or anywhere with enough history. */
  range(): [number, number] {
    const s = this.series
    const f = this.model?.forecast
    if (!s || !f) return [0, 0]
    const lo = Math.max(f.history, s.heldOutStart ?? f.history)
    // On the bundled series every forecast has its actual values; a user's series may run past its end.
    const hi = s.heldOutStart !== null ? s.values.length - f.horizon : s.values.length
    return [lo, Math.max(lo, hi)]
  }

  async use(model: ModelInfo): Promise<void> {
    // Another model's forecast is not this one's: do not show it while the new one runs.
    if (this.model && this.model.id !== model.id) {
      this.result = null
      this.clearWhatIf()
    }
    this.model = model
    if (!this.series) {
      let bundled: SeriesData
      try {
        bundled = await api.forecastSeries()
      } catch (e) {
        this.error = (e as Error).message
        return
      }
      // A CSV the user loaded while the bundled series was on its way wins.
      if (!this.series) {
        this.series = bundled
        const saved = Number(localStorage.getItem(SAVED_KEY))
        const [lo, hi] = this.range()
        this.origin = Number.isInteger(saved) && saved >= lo && saved <= hi ? saved : lo
      }
    }
    this.clamp()
    await this.run()
  }

  async loadCsv(file: File): Promise<void> {
    try {
      const s = parseSeriesCsv(await file.text(), file.name)
      const f = this.model?.forecast
      if (f && s.values.length < f.history) {
        throw new Error(`The series has ${s.values.length} values; this model reads ${f.history} before each forecast.`)
      }
      this.series = s
      this.clearWhatIf()
      // Forecast from the end of the user's data: the step a user most likely wants.
      this.origin = this.range()[1]
      this.error = null
      await this.run()
    } catch (e) {
      this.error = (e as Error).message
    }
  }

  async useBundled(): Promise<void> {
    this.series = null
    if (this.model) await this.use(this.model)
  }

  setOrigin(origin: number): void {
    // A what-if result is for the origin it ran from.
    this.clearWhatIf()
    this.origin = origin
    this.clamp()
    if (this.series?.heldOutStart !== null) localStorage.setItem(SAVED_KEY, String(this.origin))
    void this.run()
  }

  select(step: number | null): void {
    this.selectedStep = step
  }

  /** Forecast again from the current origin with the attention overridden; an answer for older settings is dropped. */
  async runWhatIf(o: Pick<ForecastWhatIfRequest, 'steps' | 'mode' | 'lag' | 'lags'>): Promise<void> {
    const s = this.series
    const model = this.model
    const f = model?.forecast
    if (!s || !model || !f) return
    // Nothing stale under a new run's answer or its error.
    this.whatIf = null
    this.whatIfError = null
    this.whatIfBusy = true
    const from = this.origin - f.history
    const to = Math.min(s.values.length, this.origin + f.horizon)
    const r = await this.whatIfs.run(() =>
      api.forecastWhatIf({ modelId: model.id, timestamps: s.timestamps.slice(from, to), values: s.values.slice(from, to), origin: f.history, ...o }),
    )
    if (!r.current) return
    this.whatIfBusy = false
    if ('error' in r) this.whatIfError = r.error.message
    else this.whatIf = r.value
  }

  clearWhatIf(): void {
    this.whatIfs.cancel()
    this.whatIf = null
    this.whatIfError = null
    this.whatIfBusy = false
  }

  private clamp(): void {
    const [lo, hi] = this.range()
    this.origin = Math.min(hi, Math.max(lo, Math.round(this.origin)))
  }

  /** Forecast from the current origin; a result that arrives after a newer request is dropped. */
  private async run(): Promise<void> {
    const s = this.series
    const model = this.model
    const f = model?.forecast
    if (!s || !model || !f) return
    // Send only what the forecast reads: the history, and the actual values after the origin.
    const from = this.origin - f.history
    const to = Math.min(s.values.length, this.origin + f.horizon)
    this.busy = true
    const r = await this.forecasts.run(() =>
      api.forecast({ modelId: model.id, timestamps: s.timestamps.slice(from, to), values: s.values.slice(from, to), origin: f.history }),
    )
    if (!r.current) return
    this.busy = false
    if ('error' in r) {
      this.error = r.error.message
      // The forecast on show was for another origin: drop it rather than mislabel it.
      this.result = null
    } else {
      this.result = r.value
      this.error = null
    }
  }
}
