/**
 * Time series as the forecasting models read them: a two-column CSV (`timestamp,value`) and the
 * calendar features the model gets for each step. Shared by the engine, the host (the bundled
 * series) and the renderer (a CSV the user loads), so a bad file is refused the same way
 * everywhere. The feature recipe is the one training/forecast.py uses.
 */
import type { SeriesData } from './api'

export const MAX_SERIES_ROWS = 200_000

const TS_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})/

/** Minutes since 1970 of a timestamp read as written (no time-zone conversion), or NaN. */
export function timestampMinutes(ts: string): number {
  const m = TS_RE.exec(ts)
  if (!m) return NaN
  const [y, mo, d, h, mi] = m.slice(1).map(Number)
  if (h > 23 || mi > 59) return NaN
  // setUTCFullYear keeps years 0-99 as written (Date.UTC reads them as 19xx).
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  // 31 February is not a date: it must not slide into March.
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return NaN
  return date.getTime() / 60_000 + h * 60 + mi
}

/** Time of day and day of week as sin/cos pairs: [tod_sin, tod_cos, dow_sin, dow_cos]. */
export function calendarFeatures(ts: string): [number, number, number, number] {
  const minutes = timestampMinutes(ts)
  const tod = (((minutes % 1440) + 1440) % 1440) / 1440
  const day = Math.floor(minutes / 1440)
  // 1 January 1970 was a Thursday: Monday = 0 as in Python's weekday().
  const dow = ((((day + 3) % 7) + 7) % 7) / 7
  const a = 2 * Math.PI * tod
  const b = 2 * Math.PI * dow
  return [Math.sin(a), Math.cos(a), Math.sin(b), Math.cos(b)]
}

export class SeriesError extends Error {}

/** Reads `timestamp,value` rows (a header line first). Throws one sentence naming the line. */
export function parseSeriesCsv(text: string, name: string): SeriesData {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop()
  if (lines.length < 2) throw new SeriesError('The CSV has no rows under its header.')
  const head = lines[0].split(',').map((h) => h.trim().toLowerCase())
  if (head.length < 2 || head[0] !== 'timestamp') {
    throw new SeriesError('The CSV must start with a header "timestamp,<value column>", like "timestamp,demand_mw".')
  }
  if (lines.length - 1 > MAX_SERIES_ROWS) throw new SeriesError(`The CSV has ${lines.length - 1} rows, more than the ${MAX_SERIES_ROWS} this app reads.`)
  const timestamps: string[] = []
  const values: number[] = []
  for (let i = 1; i < lines.length; i++) {
    const [ts, raw] = lines[i].split(',').map((c) => c.trim())
    if (!Number.isFinite(timestampMinutes(ts ?? ''))) {
      throw new SeriesError(`Line ${i + 1} of the CSV has no timestamp like 2000-06-05T00:30:00Z.`)
    }
    const v = raw === undefined || raw === '' ? NaN : Number(raw)
    if (!Number.isFinite(v)) throw new SeriesError(`Line ${i + 1} of the CSV has no number in its value column.`)
    timestamps.push(ts)
    values.push(v)
  }
  return { name, timestamps, values, heldOutStart: null }
}

/**
 * The first place where the series is not one value every `periodMinutes`, as a sentence, or
 * null when it is regular: the model's calendar and lags assume a regular series.
 */
export function irregularity(s: Pick<SeriesData, 'timestamps'>, periodMinutes: number, from = 0, to = s.timestamps.length): string | null {
  for (let i = Math.max(from, 1); i < to; i++) {
    const gap = timestampMinutes(s.timestamps[i]) - timestampMinutes(s.timestamps[i - 1])
    if (gap !== periodMinutes) {
      return `The series is not one value every ${periodMinutes} minutes: ${s.timestamps[i - 1]} is followed by ${s.timestamps[i]}.`
    }
  }
  return null
}

/** The seasonal-naive baseline's lag: the largest seasonal lag (a week for half-hourly demand), 0 if none. */
export function seasonalNaiveLag(lags: number[]): number {
  return Math.max(0, ...lags)
}
