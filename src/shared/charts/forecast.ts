import type { ForecastResult } from '../api'
import { seasonalNaiveLag, timestampMinutes } from '../series'
import { COLORMAPS, type ColormapName } from './colormaps'
import { windowCells } from './heatmap'
import { escapeHtml } from './html'

/**
 * The forecasting figure as one ECharts option with two grids that share their horizontal
 * scale: above, the series (history, actual values, forecast, seasonal naive); below, the
 * attention of every forecast step (rows) over the history (columns), each column directly under
 * the history point it weighs. Used by the view and by the exporter.
 */
export interface ForecastChartInput {
  result: ForecastResult
  /** Width of the chart in pixels: the heatmap's right edge is placed under the origin. */
  width: number
  /** The forecast step whose attention is drawn on the series (and its row lit), or null. */
  selectedStep?: number | null
  colormap?: ColormapName
  fontSize?: number
  /** Labels in the UI language. */
  labels?: Partial<ForecastLabels>
  /** Drawn on a dark background (figure export). */
  dark?: boolean
}

export interface ForecastLabels {
  history: string
  actual: string
  forecast: string
  /** The seasonal-naive line: the value `minutes` earlier. */
  naive: (minutes: number) => string
  attention: string
  origin: string
  /** A guide at a lag of `lag` steps, `minutes` long. */
  lag: (lag: number, minutes: number) => string
}

/** "1 day", "1 week", "3 days", "12 h", "30 min". */
export function spanEn(minutes: number): string {
  if (minutes === 10080) return '1 week'
  if (minutes % 1440 === 0) return minutes === 1440 ? '1 day' : `${minutes / 1440} days`
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`
}

export const FORECAST_LABELS_EN: ForecastLabels = {
  history: 'history',
  actual: 'actual',
  forecast: 'forecast',
  naive: (minutes) => (minutes === 10080 ? 'same time last week' : minutes === 1440 ? 'same time yesterday' : `${spanEn(minutes)} earlier`),
  attention: 'attention of the selected step',
  origin: 'origin',
  lag: (lag, minutes) => `lag ${lag} · ${spanEn(minutes)}`,
}

const DIM = 0.25
// Ink for light and for dark backgrounds (the export's dark theme).
const INK = {
  light: { text: '#111827', actual: '#334155', naive: '#64748b', grid: '#e5e7eb' },
  dark: { text: '#e5e7eb', actual: '#cbd5e1', naive: '#94a3b8', grid: '#374151' },
}
const ACCENT = { forecast: '#ea580c', attention: '#0ea5e9' }

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** "Mon 21 Aug" at midnight, "14:30" otherwise (timestamps read as written). */
export function timeLabel(ts: string, withDay: boolean): string {
  const minutes = timestampMinutes(ts)
  if (!Number.isFinite(minutes)) return ts
  const t = new Date(minutes * 60_000)
  const hhmm = `${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}`
  if (!withDay) return hhmm
  const day = `${WEEKDAYS[t.getUTCDay()]} ${t.getUTCDate()} ${MONTHS[t.getUTCMonth()]}`
  return hhmm === '00:00' ? day : `${day} ${hhmm}`
}

function isMidnight(ts: string): boolean {
  return timestampMinutes(ts) % 1440 === 0
}

/** The lag (in steps) from forecast step t back to history column j. */
export function lagOf(H: number, t: number, j: number): number {
  return H - j + t
}

/** History columns of forecast step t at the given lag, if inside the history. */
export function columnAtLag(H: number, t: number, lag: number): number | null {
  const j = H + t - lag
  return j >= 0 && j < H ? j : null
}

function kilo(v: number): string {
  return Math.abs(v) >= 10_000 ? `${Math.round(v / 1000)}k` : String(Math.round(v))
}

export function buildForecastOption(input: ForecastChartInput): Record<string, unknown> {
  const r = input.result
  const L = { ...FORECAST_LABELS_EN, ...input.labels }
  const H = r.history.length
  const T = r.forecast.length
  const N = H + T
  const fontSize = input.fontSize ?? 13
  const sel = input.selectedStep ?? null
  const cmap = input.colormap ?? 'viridis'
  const hasAttention = r.attention.length === T && T > 0
  const ink = INK[input.dark ? 'dark' : 'light']

  // Both grids span the same pixels; the heatmap stops where the history does.
  // Room for the step labels ("+24 11:30") at this text size.
  const left = Math.round(20 + (fontSize - 2) * 5.4)
  const right = 24
  const plot = Math.max(50, input.width - left - right)
  const heatRight = right + (plot * T) / N
  const times = [...r.historyTimes, ...r.times]

  const pad = (vals: (number | null)[], from: number) => [...new Array<null>(from).fill(null), ...vals, ...new Array<null>(N - from - vals.length).fill(null)]
  const actualAll = pad([...r.history, ...r.actual], 0)
  // The forecast line starts at the last observed value so it joins the history.
  const forecastLine = pad([r.history[H - 1], ...r.forecast], H - 1)
  const naiveLine = pad(r.seasonalNaive, H)

  let maxW = 0
  for (const row of r.attention) for (const w of row) if (w > maxW) maxW = w
  const heat: unknown[] = []
  if (hasAttention) {
    for (let t = 0; t < T; t++) {
      const row = r.attention[t]
      for (let j = 0; j < H; j++) {
        const w = row[j] ?? 0
        const value = [j, t, maxW > 0 ? w / maxW : 0, w]
        heat.push(sel === null || sel === t ? value : { value, itemStyle: { opacity: DIM } })
      }
    }
  }

  const selRow = sel !== null && hasAttention ? r.attention[sel] : null
  const attentionBars = selRow ? [...selRow, ...new Array<null>(T).fill(null)] : []
  const selMax = selRow ? Math.max(...selRow) : 1
  const lagDay = r.seasonalLags.length ? Math.min(...r.seasonalLags) : null
  const lagWeek = r.seasonalLags.length > 1 ? Math.max(...r.seasonalLags) : null
  const naiveName = L.naive(seasonalNaiveLag(r.seasonalLags) * r.periodMinutes)
  const perDay = Math.max(1, Math.round(1440 / r.periodMinutes))

  // Vertical guides at the lags from the origin, and per step the exact column at that lag.
  const guides: unknown[] = []
  const guideStyle = (color: string) => ({ color, type: 'dashed', width: 1.5 })
  for (const [lag, color] of [
    [lagDay, '#f8fafc'],
    [lagWeek, '#fda4af'],
  ] as [number | null, string][]) {
    if (lag === null || lag > H) continue
    const name = L.lag(lag, lag * r.periodMinutes)
    // The y axis runs top to bottom, so 'start' puts the label above the heatmap, clear of the day labels.
    guides.push({ xAxis: String(H - lag), name, lineStyle: guideStyle(color), label: { formatter: name, position: 'start', color: ink.text, fontSize: fontSize - 2 } })
    const first = columnAtLag(H, 0, lag)
    const lastT = Math.min(T - 1, lag - 1)
    const last = columnAtLag(H, lastT, lag)
    if (first !== null && last !== null && lastT > 0) {
      guides.push([
        { coord: [String(first), '0'], lineStyle: { color, type: 'dotted', width: 1 }, label: { show: false } },
        { coord: [String(last), String(lastT)] },
      ])
    }
  }

  const lineMarks: unknown[] = [{ xAxis: String(H), name: L.origin, lineStyle: { color: ink.text, type: 'solid', width: 1 }, label: { formatter: L.origin, color: ink.text, fontSize: fontSize - 2 } }]
  const lineAreas: unknown[] = []
  if (sel !== null) {
    for (const lag of [lagDay, lagWeek]) {
      const j = lag === null ? null : columnAtLag(H, sel, lag)
      if (j !== null) lineMarks.push({ xAxis: String(j), lineStyle: { color: '#0ea5e9', type: 'dashed', width: 1 }, label: { formatter: L.lag(lag!, lag! * r.periodMinutes), fontSize: fontSize - 3, color: ACCENT.attention } })
    }
    // Unlabelled: the origin's label sits right there, and the enlarged point names the step.
    lineMarks.push({ xAxis: String(H + sel), lineStyle: { color: ACCENT.forecast, type: 'dashed', width: 1.5 }, label: { show: false } })
    if (r.windows?.[sel]) {
      const [a, b] = windowCells(r.windows[sel], H)
      if (a <= b) lineAreas.push([{ xAxis: String(a), itemStyle: { color: 'rgba(14,165,233,0.12)' } }, { xAxis: String(b) }])
    }
  }

  const unit = r.unit ? ` ${escapeHtml(r.unit)}` : ''
  // The unit goes with the series' name: the value axis has no room for a title above it.
  const actualName = r.unit ? `${L.actual} (${r.unit})` : L.actual
  const categories = times.map((_, i) => String(i))
  const dayLabels = (i: number) => isMidnight(times[i] ?? '')
  const lineAxisLabel = {
    interval: (i: number) => dayLabels(i),
    formatter: (v: string) => timeLabel(times[Number(v)] ?? '', true),
    fontSize: fontSize - 2,
    hideOverlap: true,
  }

  return {
    animation: false,
    grid: [
      { left, right, top: 36 + fontSize, height: '34%' },
      { left, right: heatRight, top: '56%', bottom: 28 + fontSize },
    ],
    legend: {
      top: 4,
      left: left,
      textStyle: { fontSize: fontSize - 1 },
      data: [actualName, L.forecast, naiveName, ...(selRow ? [L.attention] : [])],
    },
    tooltip: { trigger: 'item', confine: true },
    axisPointer: { link: [{ xAxisIndex: [0, 1] }] },
    xAxis: [
      { type: 'category', gridIndex: 0, data: categories, boundaryGap: true, axisTick: { show: false }, axisLabel: lineAxisLabel },
      {
        type: 'category',
        gridIndex: 1,
        data: categories.slice(0, H),
        boundaryGap: true,
        axisTick: { show: false },
        triggerEvent: true,
        axisLabel: {
          interval: (i: number) => (H - i) % perDay === 0,
          formatter: (v: string) => {
            const lag = H - Number(v)
            return lag % perDay === 0 ? `−${lag / perDay}d` : ''
          },
          fontSize: fontSize - 2,
        },
      },
    ],
    yAxis: [
      { type: 'value', gridIndex: 0, scale: true, axisLabel: { formatter: kilo, fontSize: fontSize - 2 }, splitLine: { lineStyle: { color: ink.grid } } },
      { type: 'value', gridIndex: 0, min: 0, max: selMax * 3, show: false },
      {
        type: 'category',
        gridIndex: 1,
        inverse: true,
        data: Array.from({ length: T }, (_, t) => String(t)),
        triggerEvent: true,
        axisTick: { show: false },
        axisLabel: {
          interval: (t: number) => t === sel || (t + 1) % 12 === 0 || t === 0,
          formatter: (v: string) => {
            const t = Number(v)
            const text = `+${t + 1} ${timeLabel(r.times[t] ?? '', false)}`
            return t === sel ? `{sel|${text}}` : text
          },
          rich: { sel: { fontWeight: 'bold', color: '#c2410c', fontSize: fontSize - 2 } },
          fontSize: fontSize - 2,
        },
      },
    ],
    visualMap: hasAttention
      ? {
          min: 0,
          max: 1,
          dimension: 2,
          seriesIndex: 4,
          orient: 'vertical',
          right: 8,
          bottom: 28 + fontSize,
          itemHeight: 120,
          itemWidth: 14,
          text: [maxW.toFixed(3), '0'],
          textStyle: { fontSize: fontSize - 2 },
          inRange: { color: [...COLORMAPS[cmap]] },
        }
      : undefined,
    series: [
      {
        name: actualName,
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: actualAll,
        showSymbol: false,
        lineStyle: { width: 1.5, color: ink.actual },
        itemStyle: { color: ink.actual },
        tooltip: { show: false },
        markLine: { silent: true, symbol: 'none', data: lineMarks },
        markArea: lineAreas.length ? { silent: true, data: lineAreas } : undefined,
      },
      {
        name: L.forecast,
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: forecastLine,
        showSymbol: true,
        symbolSize: (_v: unknown, p: { dataIndex: number }) => (p.dataIndex === H + (sel ?? -9)  ? 10 : 4),
        lineStyle: { width: 2.5, color: ACCENT.forecast },
        itemStyle: { color: ACCENT.forecast },
        tooltip: {
          formatter: (p: { dataIndex: number; value: number }) =>
            p.dataIndex < H ? '' : `+${p.dataIndex - H + 1} · ${timeLabel(times[p.dataIndex], true)}<br/>${L.forecast} <b>${Math.round(p.value)}${unit}</b>`,
        },
      },
      {
        name: naiveName,
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: naiveLine,
        showSymbol: false,
        lineStyle: { width: 1.2, type: 'dashed', color: ink.naive },
        itemStyle: { color: ink.naive },
        tooltip: { show: false },
      },
      {
        name: L.attention,
        type: 'bar',
        xAxisIndex: 0,
        yAxisIndex: 1,
        data: attentionBars,
        barCategoryGap: 0,
        itemStyle: { color: ACCENT.attention, opacity: 0.75 },
        tooltip: { formatter: (p: { dataIndex: number; value: number }) => `${timeLabel(times[p.dataIndex], true)}<br/>${L.attention}: <b>${p.value.toFixed(4)}</b>` },
      },
      {
        name: 'attention',
        type: 'heatmap',
        xAxisIndex: 1,
        yAxisIndex: 2,
        data: heat,
        progressive: 0,
        itemStyle: { borderWidth: 0 },
        emphasis: { itemStyle: { borderColor: '#f97316', borderWidth: 1 } },
        tooltip: {
          formatter: (p: { value: [number, number, number, number] }) => {
            const [j, t, , w] = p.value
            const lag = lagOf(H, t, j)
            return `+${t + 1} · ${timeLabel(r.times[t], true)} ← ${timeLabel(r.historyTimes[j], true)}<br/>lag ${lag} (${((lag * r.periodMinutes) / 60).toFixed(1)} h): <b>${w.toFixed(4)}</b>`
          },
        },
        markLine: guides.length ? { silent: true, symbol: 'none', data: guides } : undefined,
      },
    ],
  }
}
