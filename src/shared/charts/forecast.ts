import type { ForecastResult } from '../api'
import { seasonalNaiveLag, timestampMinutes } from '../series'
import { COLORMAPS, type ColormapName } from './colormaps'
import { colorBarElements, windowCells } from './heatmap'
import { keyElements, labelStep, textElement, textHeight, tickText, niceTicks, widest, type Frame, type KeyItem } from './frame'
import { escapeHtml } from './html'
import { timeFormat } from '../time-format'
import type { HeatmapSeriesOption } from 'echarts/charts'
import { valueAt } from './data-values'
import type { FigureOption, GraphicElement, HeatmapDatum, MarkAreaItem, MarkLineItem } from './echarts-parts'

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
  /** A page to lay the figure out on (export): measured margins, a key, no dimming unless the frame asks. */
  frame?: Frame
  /** With a frame: draw the colour scale. */
  colorScale?: boolean
  /** Dates and times in the UI language (src/shared/time-format.ts); default: English. */
  time?: (ts: string, withDay: boolean) => string
  /** The chart's height in pixels, when known: step labels are then spaced so they never overlap. */
  height?: number
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

const englishTime = (ts: string, withDay: boolean) => timeLabel(ts, withDay)

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

/** "1 天", "1 周", "12 小时". */
export function spanZh(minutes: number): string {
  if (minutes === 10080) return '1 周'
  if (minutes % 1440 === 0) return `${minutes / 1440} 天`
  return minutes % 60 === 0 ? `${minutes / 60} 小时` : `${minutes} 分钟`
}

export const FORECAST_LABELS_ZH: ForecastLabels = {
  history: '历史',
  actual: '实际值',
  forecast: '预测',
  naive: (minutes) => (minutes === 10080 ? '上周同一时刻' : minutes === 1440 ? '昨天同一时刻' : `${spanZh(minutes)}前`),
  attention: '所选步的注意力',
  origin: '起点',
  lag: (lag, minutes) => `滞后 ${lag} · ${spanZh(minutes)}`,
}

export function buildForecastOption(input: ForecastChartInput): FigureOption {
  if (input.frame) return forecastFigure(input, input.frame)
  const r = input.result
  const L = { ...FORECAST_LABELS_EN, ...input.labels }
  const timeLabel = input.time ?? englishTime
  const H = r.history.length
  const T = r.forecast.length
  const N = H + T
  const fontSize = input.fontSize ?? 13
  const sel = input.selectedStep ?? null
  const cmap = input.colormap ?? 'viridis'
  const hasAttention = r.attention.length === T && T > 0
  const ink = INK[input.dark ? 'dark' : 'light']
  // Rows of the step heatmap are a few pixels tall: a label needs this many rows of room, so the
  // regular labels next to the selected step's make way for it.
  const rowPx = ((input.height ?? 640) * 0.44 - (28 + fontSize)) / Math.max(1, T)
  const labelRows = Math.max(1, Math.ceil((fontSize + 2) / Math.max(0.5, rowPx)))
  const stepLabelShown = (t: number) => t === sel || ((t === 0 || (t + 1) % 12 === 0) && (sel === null || Math.abs(t - sel) >= labelRows))

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
  const heat: HeatmapDatum[] = []
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
  const guides: MarkLineItem[] = []
  const guideStyle = (color: string) => ({ color, type: 'dashed' as const, width: 1.5 })
  for (const [lag, color] of [
    [lagDay, '#f8fafc'],
    [lagWeek, '#fda4af'],
  ] as [number | null, string][]) {
    if (lag === null || lag > H) continue
    const name = L.lag(lag, lag * r.periodMinutes)
    // The y axis runs top to bottom, so 'start' puts the label above the heatmap, clear of the day labels.
    guides.push({
      xAxis: String(H - lag),
      name,
      lineStyle: guideStyle(color),
      label: { formatter: name, position: 'start', color: ink.text, fontSize: fontSize - 2 },
    })
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

  const lineMarks: MarkLineItem[] = [
    {
      xAxis: String(H),
      name: L.origin,
      lineStyle: { color: ink.text, type: 'solid', width: 1 },
      label: { formatter: L.origin, color: ink.text, fontSize: fontSize - 2 },
    },
  ]
  const lineAreas: MarkAreaItem[] = []
  if (sel !== null) {
    for (const lag of [lagDay, lagWeek]) {
      const j = lag === null ? null : columnAtLag(H, sel, lag)
      if (j !== null)
        lineMarks.push({
          xAxis: String(j),
          lineStyle: { color: '#0ea5e9', type: 'dashed', width: 1 },
          label: { formatter: L.lag(lag!, lag! * r.periodMinutes), fontSize: fontSize - 3, color: ACCENT.attention },
        })
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
    // Without attention there is no heatmap: the series takes the whole chart, with no empty frame below.
    grid: hasAttention
      ? [
          { left, right, top: 36 + fontSize, height: '34%' },
          { left, right: heatRight, top: '56%', bottom: 28 + fontSize },
        ]
      : [{ left, right, top: 36 + fontSize, bottom: 28 + fontSize }],
    legend: {
      top: 4,
      left: left,
      textStyle: { fontSize: fontSize - 1 },
      data: [actualName, L.forecast, naiveName, ...(selRow ? [L.attention] : [])],
    },
    tooltip: { trigger: 'item', confine: true },
    axisPointer: hasAttention ? { link: [{ xAxisIndex: [0, 1] }] } : undefined,
    xAxis: [
      { type: 'category', gridIndex: 0, data: categories, boundaryGap: true, axisTick: { show: false }, axisLabel: lineAxisLabel },
      ...(hasAttention
        ? [
            {
              type: 'category' as const,
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
          ]
        : []),
    ],
    yAxis: [
      { type: 'value', gridIndex: 0, scale: true, axisLabel: { formatter: kilo, fontSize: fontSize - 2 }, splitLine: { lineStyle: { color: ink.grid } } },
      { type: 'value', gridIndex: 0, min: 0, max: selMax * 3, show: false },
      ...(hasAttention
        ? [
            {
              type: 'category' as const,
              gridIndex: 1,
              inverse: true,
              data: Array.from({ length: T }, (_, t) => String(t)),
              triggerEvent: true,
              axisTick: { show: false },
              axisLabel: {
                interval: (t: number) => stepLabelShown(t),
                formatter: (v: string) => {
                  const t = Number(v)
                  const text = `+${t + 1} ${timeLabel(r.times[t] ?? '', false)}`
                  return t === sel ? `{sel|${text}}` : text
                },
                rich: { sel: { fontWeight: 'bold' as const, color: '#c2410c', fontSize: fontSize - 2 } },
                fontSize: fontSize - 2,
              },
            },
          ]
        : []),
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
        symbolSize: (_v: unknown, p: { dataIndex: number }) => (p.dataIndex === H + (sel ?? -9) ? 10 : 4),
        lineStyle: { width: 2.5, color: ACCENT.forecast },
        itemStyle: { color: ACCENT.forecast },
        tooltip: {
          formatter: (p) =>
            p.dataIndex < H
              ? ''
              : `+${p.dataIndex - H + 1} · ${timeLabel(times[p.dataIndex], true)}<br/>${L.forecast} <b>${Math.round(Number(p.value))}${unit}</b>`,
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
        tooltip: {
          formatter: (p) => `${timeLabel(times[p.dataIndex], true)}<br/>${L.attention}: <b>${Number(p.value).toFixed(4)}</b>`,
        },
      },
      ...(hasAttention
        ? [
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
                formatter: (p) => {
                  const [j, t, w] = [valueAt(p, 0), valueAt(p, 1), valueAt(p, 3)]
                  const lag = lagOf(H, t, j)
                  return `+${t + 1} · ${timeLabel(r.times[t], true)} ← ${timeLabel(r.historyTimes[j], true)}<br/>lag ${lag} (${((lag * r.periodMinutes) / 60).toFixed(1)} h): <b>${w.toFixed(4)}</b>`
                },
              },
              markLine: guides.length ? { silent: true, symbol: 'none', data: guides } : undefined,
            } satisfies HeatmapSeriesOption,
          ]
        : []),
    ],
  }
}

/**
 * The forecast on a page: a key on top, the series with the origin named, the day labels, the lag
 * guides named over the heatmap, the forecast steps labelled as often as they fit, a colour bar
 * under the forecast part. Rows are dimmed only when the frame highlights one.
 */
function forecastFigure(input: ForecastChartInput, f: Frame): FigureOption {
  const r = input.result
  const L = { ...(f.lang === 'zh' ? FORECAST_LABELS_ZH : FORECAST_LABELS_EN), ...input.labels }
  // Dates in the figure's language, not the module's English default.
  const timeLabel = input.time ?? timeFormat(f.lang)
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const H = r.history.length
  const T = r.forecast.length
  const N = H + T
  const sel = input.selectedStep ?? null
  const lit = f.highlightRow !== null && f.highlightRow < T ? f.highlightRow : null
  const cmap = input.colormap ?? 'viridis'
  const hasAttention = r.attention.length === T && T > 0
  const ink = f.ink
  const times = [...r.historyTimes, ...r.times]
  const pad = (vals: (number | null)[], from: number) => [...new Array<null>(from).fill(null), ...vals, ...new Array<null>(N - from - vals.length).fill(null)]
  const actualName = r.unit ? `${L.actual} (${r.unit})` : L.actual
  const naiveName = L.naive(seasonalNaiveLag(r.seasonalLags) * r.periodMinutes)
  const selRow = sel !== null && hasAttention ? r.attention[sel] : null
  const lagDay = r.seasonalLags.length ? Math.min(...r.seasonalLags) : null
  const lagWeek = r.seasonalLags.length > 1 ? Math.max(...r.seasonalLags) : null
  const perDay = Math.max(1, Math.round(1440 / r.periodMinutes))
  const key: KeyItem[] = [
    { label: actualName, symbol: 'line', color: INK[ink.dark ? 'dark' : 'light'].actual },
    { label: L.forecast, symbol: 'line', color: ACCENT.forecast },
    { label: naiveName, symbol: 'dashed', color: INK[ink.dark ? 'dark' : 'light'].naive },
    ...(selRow ? [{ label: `${L.attention} (+${sel! + 1})`, symbol: 'bar' as const, color: ACCENT.attention }] : []),
  ]
  const keyBlock = keyElements(key, f.x, f.y, f.width, f)
  // The value axis' labels and the step labels share the left margin.
  const stepText = (t: number) => `+${t + 1} ${timeLabel(r.times[t] ?? '', false)}`
  const values = [...r.history, ...r.forecast, ...r.actual.filter((v): v is number => v !== null)]
  const lineTop = f.y + keyBlock.height + gap + lh + gap
  const heatBottom = f.y + f.height - lh - gap
  const avail = heatBottom - lineTop
  const lineH = avail * 0.42
  const yTicks = niceTicks(Math.min(...values), Math.max(...values), lineH, lh * 1.8)
  const yTexts: string[] = []
  for (let v = yTicks.min; v <= yTicks.max + yTicks.interval / 2; v += yTicks.interval) yTexts.push(tickText(v))
  const left =
    f.x +
    Math.max(
      widest(yTexts, fs, m),
      widest(
        Array.from({ length: T }, (_, t) => stepText(t)),
        fs,
        m,
        lit !== null,
      ),
    ) +
    gap
  const plot = Math.max(fs, f.x + f.width - left)
  const pitch = plot / N
  const xOf = (i: number) => left + (i + 0.5) * pitch
  const heatW = pitch * H
  // Day labels under the series, lag names over the heatmap, then the heatmap.
  const dayTop = lineTop + lineH + gap
  const guideY = dayTop + lh + gap + lh / 2
  const heatTop = guideY + lh / 2 + gap
  const heatH = Math.max(fs, heatBottom - heatTop)
  const cramped = heatBottom - heatTop < 2 * lh || lineH < 3 * lh || plot < 8 * fs
  const elements: GraphicElement[] = [...keyBlock.elements]
  // The origin's name, right of its line, over the series.
  elements.push(textElement(L.origin, xOf(H) - pitch / 2 - gap / 2, lineTop - gap - lh / 2, f, { align: 'right', color: ink.text }))
  // Day labels at midnight, every one that fits.
  const midnights = times.map((ts, i) => (isMidnight(ts) ? i : -1)).filter((i) => i >= 0)
  let lastEnd = -Infinity
  for (const i of midnights) {
    const text = timeLabel(times[i], true)
    const w = m(text, fs)
    const x = xOf(i)
    if (x - w / 2 < lastEnd + fs * 0.6 || x - w / 2 < left || x + w / 2 > f.x + f.width) continue
    elements.push(textElement(text, x, dayTop + lh / 2, f, { align: 'center', color: ink.text }))
    lastEnd = x + w / 2
  }
  // Lag guides over the heatmap, named where their names fit.
  const guides: MarkLineItem[] = []
  let guideEnd = -Infinity
  for (const [lag, color] of [
    [lagWeek, '#fda4af'],
    [lagDay, '#f8fafc'],
  ] as [number | null, string][]) {
    if (lag === null || lag > H) continue
    guides.push({ xAxis: String(H - lag), lineStyle: { color, type: 'dashed', width: Math.max(1, fs / 14) }, label: { show: false } })
    const name = L.lag(lag, lag * r.periodMinutes)
    const w = m(name, fs)
    const x = Math.min(Math.max(xOf(H - lag), left + w / 2), left + heatW - w / 2)
    if (x - w / 2 >= guideEnd + fs * 0.6) {
      elements.push(textElement(name, x, guideY, f, { align: 'center', color: ink.text }))
      guideEnd = x + w / 2
    }
    const first = columnAtLag(H, 0, lag)
    const lastT = Math.min(T - 1, lag - 1)
    const last = columnAtLag(H, lastT, lag)
    if (first !== null && last !== null && lastT > 0)
      guides.push([
        { coord: [String(first), '0'], lineStyle: { color, type: 'dotted', width: 1 }, label: { show: false } },
        { coord: [String(last), String(lastT)] },
      ])
  }
  // Step labels: every k-th (k a divisor-friendly step), the first where the k-th is a line below
  // it, and the highlighted row's in bold.
  const rowPitch = heatH / T
  const k = [1, 2, 3, 4, 6, 8, 12, 24, 48].find((n) => n >= labelStep(T, rowPitch, lh, fs * 0.05)) ?? T
  const shown = (t: number) =>
    lit !== null
      ? t === lit || (Math.abs(t - lit) * rowPitch >= lh * 1.05 && (t + 1) % k === 0)
      : (t + 1) % k === 0 || (t === 0 && (k - 1) * rowPitch >= lh * 1.05)
  // The selected step's attention, on the series' own scale.
  const selMax = selRow ? Math.max(...selRow) : 1
  let maxW = 0
  for (const row of r.attention) for (const w of row) if (w > maxW) maxW = w
  const heat: HeatmapDatum[] = []
  if (hasAttention) {
    for (let t = 0; t < T; t++) {
      for (let j = 0; j < H; j++) {
        const w = r.attention[t][j] ?? 0
        const value = [j, t, maxW > 0 ? w / maxW : 0, w]
        heat.push(lit === null || lit === t ? value : { value, itemStyle: { opacity: DIM } })
      }
    }
    const scaleW = f.x + f.width - (left + heatW) - gap
    const texts = [maxW.toFixed(3), '0']
    if (input.colorScale !== false && scaleW >= Math.max(widest(texts, fs, m), fs)) {
      elements.push(...colorBarElements(left + heatW + gap + scaleW / 2, heatTop, heatH, COLORMAPS[cmap], texts, f))
    }
  }
  const lineMarks: MarkLineItem[] = [{ xAxis: String(H), lineStyle: { color: ink.text, type: 'solid', width: 1 }, label: { show: false } }]
  if (sel !== null) lineMarks.push({ xAxis: String(H + sel), lineStyle: { color: ACCENT.forecast, type: 'dashed', width: 1.5 }, label: { show: false } })
  const categories = times.map((_, i) => String(i))
  const dark = INK[ink.dark ? 'dark' : 'light']
  return {
    animation: false,
    grid: [
      { left, width: plot, top: lineTop, height: lineH, containLabel: false },
      { left, width: heatW, top: heatTop, height: heatH, containLabel: false },
    ],
    cramped,
    graphic: { elements },
    xAxis: [
      {
        type: 'category',
        gridIndex: 0,
        data: categories,
        boundaryGap: true,
        axisTick: { show: false },
        axisLabel: { show: false },
        axisLine: { lineStyle: { color: ink.axis } },
      },
      {
        type: 'category',
        gridIndex: 1,
        data: categories.slice(0, H),
        boundaryGap: true,
        axisTick: { show: false },
        axisLine: { show: false },
        // Days back from the origin; a label that would stand out left of the heatmap is left out.
        axisLabel: {
          interval: (i: number) => (H - i) % perDay === 0 && (i + 0.5) * pitch >= m(`−${(H - i) / perDay}d`, fs) / 2 + gap,
          showMinLabel: false,
          showMaxLabel: false,
          formatter: (v: string) => `−${(H - Number(v)) / perDay}d`,
          fontSize: fs,
          margin: gap,
          color: ink.text,
        },
      },
    ],
    yAxis: [
      {
        type: 'value',
        gridIndex: 0,
        min: yTicks.min,
        max: yTicks.max,
        interval: yTicks.interval,
        axisLabel: { formatter: (v: number) => tickText(v), fontSize: fs, margin: gap, color: ink.text },
        splitLine: { lineStyle: { color: ink.grid } },
      },
      { type: 'value', gridIndex: 0, min: 0, max: selMax * 3, show: false },
      {
        type: 'category',
        gridIndex: 1,
        inverse: true,
        data: Array.from({ length: T }, (_, t) => String(t)),
        axisTick: { show: false },
        axisLine: { show: false },
        axisLabel: {
          // Every row passes through the formatter, which leaves unchosen ones empty: ECharts adds
          // the first label of an interval on its own, over its neighbours.
          interval: 0,
          formatter: (v: string) => (!shown(Number(v)) ? '' : Number(v) === lit ? `{sel|${stepText(Number(v))}}` : stepText(Number(v))),
          rich: { sel: { fontWeight: 'bold', color: ink.accent, fontSize: fs } },
          fontSize: fs,
          margin: gap,
          color: ink.text,
        },
      },
    ],
    visualMap: hasAttention ? { show: false, min: 0, max: 1, dimension: 2, seriesIndex: 4, inRange: { color: [...COLORMAPS[cmap]] } } : undefined,
    series: [
      {
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: pad([...r.history, ...r.actual], 0),
        showSymbol: false,
        lineStyle: { width: Math.max(1, fs / 14), color: dark.actual },
        markLine: { silent: true, symbol: 'none', data: lineMarks },
      },
      {
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: pad([r.history[H - 1], ...r.forecast], H - 1),
        showSymbol: false,
        lineStyle: { width: Math.max(1.5, fs / 10), color: ACCENT.forecast },
      },
      {
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: pad(r.seasonalNaive, H),
        showSymbol: false,
        lineStyle: { width: Math.max(1, fs / 16), type: 'dashed', color: dark.naive },
      },
      {
        type: 'bar',
        xAxisIndex: 0,
        yAxisIndex: 1,
        data: selRow ? [...selRow, ...new Array<null>(T).fill(null)] : [],
        barCategoryGap: 0,
        itemStyle: { color: ACCENT.attention, opacity: 0.75 },
      },
      {
        type: 'heatmap',
        xAxisIndex: 1,
        yAxisIndex: 2,
        data: heat,
        progressive: 0,
        itemStyle: { borderWidth: 0 },
        markLine: guides.length ? { silent: true, symbol: 'none', data: guides } : undefined,
      },
    ],
  }
}
