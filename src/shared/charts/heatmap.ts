import { COLORMAPS, colorAt, textColorOn, type ColormapName } from './colormaps'
import { leadingTags } from '../attention/tags'
import { FIGURE_TEXT } from './figure-text'
import { columnLabelElements, columnLabels, keyElements, keyHeight, textElement, textHeight, triangleDown, widest, type Frame, type KeyItem } from './frame'
import { pieceGroups } from '../attention/pieces'
import { escapeHtml } from './html'
import type { CustomSeriesOption, HeatmapSeriesOption } from 'echarts/charts'
import type { CustomSeriesRenderItemAPI, XAXisComponentOption } from 'echarts'
import type { FigureOption, GraphicElement } from './echarts-parts'
import { firstItem, valueAt } from './data-values'

export type HeatmapScale = 'linear' | 'log'
export type HeatmapNorm = 'fixed' | 'row'

export interface HeatmapStyle {
  colormap?: ColormapName
  /** Linear weights, or log10 (from 10⁻⁴ to 1) to see the small ones. */
  scale?: HeatmapScale
  /** A fixed 0–1 scale, or each row scaled to its own maximum. */
  norm?: HeatmapNorm
  /** Value labels on cells: 'auto' shows them when cells are big enough. */
  labels?: 'auto' | 'on' | 'off'
  fontSize?: number
}

export interface HeatmapInput extends HeatmapStyle {
  srcTokens: string[]
  tgtTokens: string[]
  /** attention[t][s] */
  attention: number[][]
  selectedRow?: number | null
  selectedCol?: number | null
  title?: string
  /** Local attention: p_t and the window [p_t-D, p_t+D] of every output step. */
  positions?: number[] | null
  windows?: [number, number][] | null
  /** The chart's size in pixels, when known: value labels are then shown when they fit the cells. */
  size?: { width: number; height: number } | null
  /** A page to lay the figure out on (export): every label placed from measured sizes. */
  frame?: Frame
  /** With a frame: draw the colour scale. */
  colorScale?: boolean
  /** A signed map (a difference): coloured from `colors[0]` at −range to the last at +range, no values. Export only. */
  diverging?: { range: number; colors: readonly string[]; ends: [string, string] }
  /**
   * With a frame, false: no token labels and no axis titles, cells as small as half a line (a
   * small map read on another map's axes, beside it).
   */
  axisLabels?: false
  /** With a frame, false: no column labels and no source title (a map read on the columns of the map above it). */
  columnLabels?: false
  /** With a frame: the plot's left edge and width, fixed (a map under another, its columns under the other's). */
  columns?: { left: number; width: number }
  /** With a frame: room for row labels at least this wide (maps one under another, their plots in line). */
  rowLabelWidth?: number
  /** With a frame: dim every column but this one (a transposed map's highlighted output step). */
  highlightCol?: number | null
  /** With a frame: the axis titles (default: the frame language's "source" and "output"). */
  sourceTitle?: string
  outputTitle?: string
  /**
   * With a frame: the map is some of the source (a part of a figure split across it), p_t and the
   * windows counted from its first position: those outside it are not drawn, a window crossing its
   * edge is cut there.
   */
  clip?: boolean
  /** Each row's largest weight (norm 'row') where the map is some of the source: the whole row's, so every part reads on one scale. */
  rowMax?: number[]
}

/** The p_t marker's colours: light fill, dark edge, seen on every colour of every map. */
export const PT_MARKER = { fill: '#ffffff', stroke: '#111827' } as const
export const WINDOW_STROKE = '#f97316'

/** Height of the p_t triangle in a cell `h` tall whose centred value label is `label` tall (0: none). */
export function markerSize(h: number, label: number, most: number): number {
  const free = label > 0 ? (h - label) / 2 - 1 : h * 0.3
  return Math.max(0, Math.min(most, h * 0.3, free))
}

const DIM = 0.3
export const LOG_FLOOR = -4

/** Where p_t's marker goes: p_t = S·sigmoid(…) can pass the last word's centre (up to S); the marker stops at the map's edge. */
const markerAt = (p: number, S: number): number => Math.min(p, S - 0.5)
/** Where p_t's marker goes on a map of some of the source (`clip`): null where p_t is outside it. */
const markerIn = (p: number, S: number, clip: boolean | undefined): number | null => (!clip ? markerAt(p, S) : p >= -0.5 && p <= S - 0.5 ? p : null)

/** The cells a local window covers: whole source positions inside [p_t-D, p_t+D]. */
export function windowCells(win: [number, number], S: number): [number, number] {
  return [Math.max(0, Math.ceil(win[0] - 1e-6)), Math.min(S - 1, Math.floor(win[1] + 1e-6))]
}

/** The value a cell is coloured by, in [0, 1], given the scale and normalisation. */
export function displayValue(w: number, rowMax: number, style: HeatmapStyle): number {
  const v = style.norm === 'row' && rowMax > 0 ? w / rowMax : w
  if (style.scale === 'log') return (Math.max(LOG_FLOOR, Math.log10(Math.max(v, 1e-12))) - LOG_FLOOR) / -LOG_FLOOR
  return v
}

interface RenderApi {
  value(i: number): number
  coord(v: [number, number]): [number, number]
  size(v: [number, number]): [number, number]
}

/** ECharts' render API as the overlays use it: their data are numbers, and a cartesian cell's size is a pair. */
function numeric(api: CustomSeriesRenderItemAPI): RenderApi {
  return {
    value: (i) => Number(api.value(i)),
    coord: (v) => {
      const [x, y] = api.coord(v)
      return [x, y]
    },
    size: (v) => {
      const s = api.size?.(v) ?? 0
      return Array.isArray(s) ? [s[0], s[1]] : [s, s]
    },
  }
}

/** One row's window outline (cells x0 to x1) and p_t's marker (null: outside a part of the source, not drawn). */
function overlayRow(x0: number, x1: number, top: number, h: number, stroke: number, marker: [number, number][] | null, markerLine: number) {
  const window = { type: 'rect' as const, shape: { x: x0 + stroke / 2, y: top + stroke / 2, width: x1 - x0 - stroke, height: h - stroke } }
  const pt = marker && { type: 'polygon' as const, shape: { points: marker } }
  return {
    type: 'group' as const,
    children: [
      ...(x1 > x0 ? [{ ...window, style: { fill: 'none', stroke: WINDOW_STROKE, lineWidth: stroke } }] : []),
      ...(pt ? [{ ...pt, style: { fill: PT_MARKER.fill, stroke: PT_MARKER.stroke, lineWidth: markerLine } }] : []),
    ],
  }
}

/**
 * A custom series drawing, per output row, the window outline and p_t as a triangle hanging from
 * the row's top edge, small enough to stay clear of a centred value label `labelHeight` tall.
 */
function localOverlay(positions: number[], windows: [number, number][], S: number, labelHeight: number, stroke: number, clip?: boolean): CustomSeriesOption {
  // [step, p_t, the window's first and last cell, whether p_t is drawn]: on some of the source, the rows whose window misses it are left out.
  const data = positions.flatMap((p, t) => {
    const [lo, hi] = windowCells(windows[t], S)
    const at = markerIn(p, S, clip)
    return lo > hi && at === null ? [] : [[t, at ?? 0, lo, hi, at === null ? 0 : 1]]
  })
  return {
    type: 'custom',
    name: 'local window',
    silent: true,
    z: 10,
    data,
    renderItem: (_params, raw) => {
      const api = numeric(raw)
      // A category axis snaps values to cell centres, so place fractional positions by hand.
      const t = api.value(0)
      const [c0, yc] = api.coord([0, t])
      const [w, h] = api.size([1, 1])
      const x = (v: number) => c0 + v * w
      const x0 = x(api.value(2) - 0.5)
      const x1 = x(api.value(3) + 0.5)
      const xp = x(api.value(1))
      const top = yc - h / 2
      const size = Math.max(2.5, markerSize(h, labelHeight, Math.max(4, stroke * 4)))
      return overlayRow(x0, x1, top, h, stroke, api.value(4) === 1 ? triangleDown(xp, top + stroke, size) : null, Math.max(0.75, stroke / 2))
    },
  }
}

const valueText = (w: number) => w.toFixed(2).replace(/^0\./, '.')

/** One heatmap cell with its own style (ECharts' HeatmapDataItemOption, which it does not export by name). */
type HeatmapCell = Extract<NonNullable<HeatmapSeriesOption['data']>[number], { value: unknown }>

/** The cells as ECharts data: [s, t, colour value, weight], dimmed off the selection. */
function cells(input: HeatmapInput, row: number | null, col: number | null, labelled: boolean, moves?: Map<number, [number, number]>): HeatmapCell[] {
  const { srcTokens, tgtTokens, attention } = input
  const cmap = input.colormap ?? 'viridis'
  const data: HeatmapCell[] = []
  for (let t = 0; t < tgtTokens.length; t++) {
    const r = attention[t] ?? []
    const rowMax = input.rowMax?.[t] ?? Math.max(0, ...r)
    for (let s = 0; s < srcTokens.length; s++) {
      const w = r[s] ?? 0
      const v = input.diverging ? (w + input.diverging.range) / (2 * input.diverging.range) : displayValue(w, rowMax, input)
      const lit = (row === null && col === null) || t === row || s === col
      const item: HeatmapCell = { value: [s, t, v, w] }
      if (!lit) item.itemStyle = { opacity: DIM }
      if (labelled) {
        const offset = moves?.get(t * srcTokens.length + s)
        item.label = offset ? { color: textColorOn(colorAt(cmap, v)), offset } : { color: textColorOn(colorAt(cmap, v)) }
      }
      data.push(item)
    }
  }
  return data
}

/** The colour scale's end labels for a scale and normalisation. */
export function scaleEnds(input: HeatmapStyle): [string, string] {
  const log = input.scale === 'log'
  const rowNorm = input.norm === 'row'
  return log ? (rowNorm ? ['max', '10⁻⁴·max'] : ['1', '10⁻⁴']) : rowNorm ? ['row max', '0'] : ['1', '0']
}

/**
 * The alignment heatmap as a plain ECharts option: target tokens are rows (top to bottom),
 * source tokens are columns (read left to right, labelled on top). Used by the renderer and
 * by the exporter (with a frame), so both draw the same figure.
 */
/** The colour of a tag's label (a language tag, a forced first token): grey, as text that is not the sentence's. */
export const TAG_GREY = '#6b7280'

export function buildHeatmapOption(input: HeatmapInput): FigureOption {
  if (input.frame) return heatmapFigure(input, input.frame)
  const { srcTokens, tgtTokens } = input
  const S = srcTokens.length
  const T = tgtTokens.length
  const row = input.selectedRow ?? null
  const col = input.selectedCol ?? null
  const cmap = input.colormap ?? 'viridis'
  const fontSize = input.fontSize ?? 13
  const valueSize = Math.max(9, fontSize - 3)
  // Values when a cell has room for ".00" (its size from the chart's size, when the view knows it).
  const fits = input.size
    ? (input.size.width - 160) / Math.max(1, S) >= valueSize * 2.2 && (input.size.height - 100) / Math.max(1, T) >= valueSize * 1.4
    : S <= 18 && T <= 24
  const showLabels = input.labels === 'on' || (input.labels !== 'off' && fits)
  const data = cells(input, row, col, showLabels)
  // Categories are indices, so repeated tokens stay distinct and a click names its position.
  // A language tag or forced first token (__fr__, <s>) is greyed: it is not a word (attention/tags.ts).
  const tagged = { src: leadingTags(srcTokens), tgt: leadingTags(tgtTokens) }
  const label = (tokens: string[], selected: number | null) => (value: string) => {
    const i = Number(value)
    if (i === selected) return `{sel|${tokens[i]}}`
    return i < (tokens === srcTokens ? tagged.src : tokens === tgtTokens ? tagged.tgt : 0) ? `{tag|${tokens[i]}}` : tokens[i]
  }
  const indices = (n: number) => Array.from({ length: n }, (_, i) => String(i))
  const rich = { sel: { fontWeight: 'bold' as const, color: '#c2410c', fontSize }, tag: { color: TAG_GREY, fontStyle: 'italic' as const, fontSize } }
  const many = (n: number) => (n > 60 ? 'auto' : 0)
  const pointer = (tokens: string[]): XAXisComponentOption['axisPointer'] => ({
    show: true,
    type: 'shadow',
    triggerTooltip: false,
    label: { show: true, formatter: (p) => tokens[Number(p.value)] ?? '' },
  })
  const groups = pieceGroups(srcTokens)
  // Upright column labels when the longest fits a column at the chart's width (all single CJK characters do).
  const longest = Math.max(0, ...srcTokens.map((t) => [...t].reduce((n, ch) => n + (/[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? 1 : 0.62), 0)))
  const column = input.size ? (input.size.width - 160) / Math.max(1, S) : 60
  return {
    animation: false,
    title: input.title ? { text: input.title, left: 'center', textStyle: { fontSize: fontSize + 3 } } : undefined,
    grid: { left: 8, right: 80, top: input.title ? 90 : 64, bottom: 8, containLabel: true },
    tooltip: {
      position: 'top',
      formatter: (params) => {
        const p = firstItem(params)
        const [s, t, w] = [valueAt(p, 0), valueAt(p, 1), valueAt(p, 3)]
        return `${escapeHtml(tgtTokens[t])} ← ${escapeHtml(srcTokens[s])}<br/><b>${w.toFixed(4)}</b>`
      },
    },
    xAxis: {
      type: 'category',
      position: 'top',
      data: indices(S),
      triggerEvent: true,
      splitArea: { show: false },
      axisTick: { show: false },
      axisPointer: pointer(srcTokens),
      axisLabel: { rotate: longest * fontSize <= column - 6 ? 0 : 45, interval: many(S), formatter: label(srcTokens, col), rich, fontSize },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: indices(T),
      triggerEvent: true,
      axisTick: { show: false },
      axisPointer: pointer(tgtTokens),
      axisLabel: { interval: many(T), formatter: label(tgtTokens, row), rich, fontSize },
    },
    visualMap: {
      min: 0,
      max: 1,
      dimension: 2,
      calculable: false,
      orient: 'vertical',
      right: 8,
      top: 'middle',
      itemHeight: Math.min(200, Math.max(80, T * 20)),
      precision: 2,
      text: scaleEnds(input),
      textStyle: { fontSize: fontSize - 1 },
      inRange: { color: [...COLORMAPS[cmap]] },
    },
    series: [
      {
        type: 'heatmap',
        data,
        progressive: 4000,
        progressiveThreshold: 20000,
        label: { show: showLabels, fontSize: valueSize, formatter: (p) => valueText(valueAt(p, 3)) },
        emphasis: { itemStyle: { borderColor: '#f97316', borderWidth: 2 } },
        itemStyle: { borderColor: 'rgba(255,255,255,0.6)', borderWidth: S * T > 4000 ? 0 : 0.5 },
        markArea: groups.length
          ? {
              silent: true,
              itemStyle: { color: 'rgba(0,0,0,0)', borderColor: '#64748b', borderWidth: 1, borderType: 'dashed' },
              data: groups.map(([a, b]) => [{ xAxis: String(a) }, { xAxis: String(b) }]),
            }
          : undefined,
      },
      ...(input.positions && input.windows ? [localOverlay(input.positions, input.windows, S, showLabels ? textHeight(valueSize) : 0, 2)] : []),
    ],
  }
}

/** Where the heatmap figure put its plot and labels (for tests and for figures that add to it). */
export interface HeatmapLayout {
  left: number
  top: number
  width: number
  height: number
  cell: { w: number; h: number }
  rotated: boolean
  values: boolean
}

/** The heatmap laid out on a page: axis titles, upright or rotated column labels, a key, a colour bar. */
export function heatmapLayout(
  input: HeatmapInput,
  f: Frame,
): HeatmapLayout & {
  colStep: number
  rowStep: number
  valueSize: number
  marker: number
  colExtent: number
  moves: Map<number, [number, number]>
  stroke: number
  scaleW: number
  keyH: number
  titleH: number
  cramped: boolean
  /** How far the plot moved right of its leftmost place to be centred. */
  slack: number
  /** The edge the column labels stand on: the plot's top, or above it where the first row's label reaches higher. */
  labelsAt: number
} {
  const { srcTokens, tgtTokens, attention } = input
  const S = Math.max(1, srcTokens.length)
  const T = Math.max(1, tgtTokens.length)
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const overlay = !!(input.positions && input.windows)
  const keyH = overlay ? keyHeight(keyItems(f), f.width, fs, m) + gap : 0
  const [hi, lo] = input.diverging?.ends ?? scaleEnds(input)
  const scaleW = input.colorScale === false ? 0 : Math.max(fs * 0.9, m(hi, fs), m(lo, fs)) + 2 * gap
  const bare = input.axisLabels === false
  const noCols = input.columnLabels === false
  const titleH = bare ? 0 : lh + gap
  // A highlighted row's label is bold: measure every row so.
  const rowLabelW = bare ? 0 : Math.max(input.rowLabelWidth ?? 0, widest(tgtTokens, fs, m, f.highlightRow !== null)) + gap
  const labels = srcTokens.map((text) => ({ text }))
  const fixed = input.columns
  const left0 = fixed?.left ?? f.x + titleH + rowLabelW
  const width0 = fixed?.width ?? Math.max(fs, f.x + f.width - scaleW - left0)
  // Column labels upright where they fit, turned where they do not: their height follows the
  // columns' width, which cells no more than twice as wide as tall may narrow.
  const layoutFor = (width: number) => {
    const cols = bare || noCols ? { upright: labels.map(() => true), step: 1, extent: 0 } : columnLabels(labels, width / S, f)
    const top = f.y + (bare || noCols ? 0 : titleH + cols.extent + gap)
    return { top, height: Math.max(fs, f.y + f.height - keyH - top), cols, cramped: f.y + f.height - keyH - top < 2 * lh }
  }
  let width = width0
  let v = layoutFor(width)
  for (let i = 0; i < 3 && !fixed && width / S > (2 * v.height) / T + 1e-9; i++) {
    width = (2 * v.height * S) / T
    v = layoutFor(width)
  }
  let height = v.height
  if (height / T > (2 * width) / S) height = (2 * width * T) / S
  let top = v.top
  // Rows lower than a line: the first row's label reaches above the plot, into the column labels.
  for (let i = 0; i < 2 && !bare && !noCols; i++) {
    const over = (lh - height / T) / 2
    if (over <= 0) break
    height = Math.min(height, f.y + f.height - keyH - (v.top + over))
    top = v.top + over
  }
  const cw = width / S
  const ch = height / T
  const left = left0 + (width0 - width) / 2
  const rotated = v.cols.upright.some((u) => !u)
  // Values when every one fits its cell and none is under a p_t marker; on a slide never under its
  // floor (`least`), else none: the colours and their scale carry the weights.
  const valueSize = Math.max(fs * 0.75, f.least ?? 0)
  const valueH = textHeight(valueSize)
  const valueW = widest(
    attention.flatMap((r) => r.map(valueText)),
    valueSize,
    m,
  )
  const stroke = Math.max(1, fs / 10)
  let values = input.labels !== 'off' && !input.diverging && valueW <= cw - fs * 0.3 && valueH <= ch - 1
  let marker = overlay ? Math.max(2.5, Math.min(fs * 0.45, ch * 0.3)) : 0
  let moves = new Map<number, [number, number]>()
  if (values && overlay) {
    // The values under a marker move aside or down; where a cell has no room for that, the
    // marker shrinks (not below a size still seen) to fit over a value moved down.
    const smaller = ch - valueH - 2.5 - stroke
    const moved =
      moveValues(input, cw, ch, valueSize, marker, stroke, m) ??
      (smaller >= Math.max(2.5, fs * 0.2) ? moveValues(input, cw, ch, valueSize, (marker = Math.min(marker, smaller)), stroke, m) : null)
    if (moved) moves = moved
    else {
      values = false
      marker = Math.max(2.5, Math.min(fs * 0.45, ch * 0.3))
    }
  }
  // A slide (a frame with a text floor) keeps p_t seen from the back of the room: the marker at 0.65
  // of the floor (12 px at 720 px of height), where the cell has room and no value is under it.
  if (overlay && !values && f.least !== undefined) marker = Math.max(marker, Math.min(f.least * 0.65, ch * 0.5))
  return {
    left,
    top,
    width,
    height,
    cell: { w: cw, h: ch },
    rotated,
    values,
    colStep: v.cols.step,
    colExtent: v.cols.extent,
    // Every row labelled: rows lower than a line overlap, and the fitter gives them room.
    rowStep: 1,
    valueSize,
    marker,
    moves,
    stroke,
    scaleW,
    keyH,
    titleH,
    slack: left - (f.x + titleH + rowLabelW),
    labelsAt: v.top,
    // Every label drawn: rows lower than a line, or turned column labels closer than one, would overlap.
    cramped: bare
      ? Math.min(cw, ch) < fs * 0.5 - 0.01
      : v.cramped ||
        f.x + f.width - scaleW - left0 < 2 * fs ||
        ch < lh - 0.01 ||
        (rotated && cw < lh - 0.01) ||
        left < f.x + titleH + rowLabelW - 0.01 ||
        left + width + scaleW > f.x + f.width + 0.01,
  }
}

/**
 * Where to move (dx, dy, keyed t·S + s) the value labels a p_t marker of this size would cover:
 * sideways in their cell, away from it, or else down below it; null when some cell has no room.
 */
function moveValues(
  input: HeatmapInput,
  cw: number,
  ch: number,
  valueSize: number,
  marker: number,
  stroke: number,
  m: Frame['measure'],
): Map<number, [number, number]> | null {
  const S = input.srcTokens.length
  const moves = new Map<number, [number, number]>()
  const half = marker * 0.62 + stroke
  const valueH = textHeight(valueSize)
  // The label's top edge just under the marker, its centre that far below the cell's centre.
  const down = stroke + marker + 1 + valueH / 2 - ch / 2
  const roomBelow = down + valueH / 2 <= ch / 2 - 0.5
  for (let t = 0; t < (input.positions?.length ?? 0) && t < input.tgtTokens.length; t++) {
    const at = markerIn(input.positions![t], S, input.clip)
    if (at === null) continue
    const xp = (at + 0.5) * cw
    for (let s = Math.max(0, Math.floor((xp - half) / cw)); s < S && s * cw < xp + half; s++) {
      const w = m(valueText(input.attention[t]?.[s] ?? 0), valueSize)
      const cx = (s + 0.5) * cw
      if (cx + w / 2 <= xp - half - 1 || cx - w / 2 >= xp + half + 1) continue
      const left = xp - half - 1 - (cx + w / 2)
      const right = xp + half + 1 - (cx - w / 2)
      const fitsLeft = cx - w / 2 + left >= s * cw + 1
      const fitsRight = cx + w / 2 + right <= (s + 1) * cw - 1
      if (fitsLeft || fitsRight) moves.set(t * S + s, [fitsLeft && (!fitsRight || -left <= right) ? left : right, 0])
      else if (roomBelow) moves.set(t * S + s, [0, Math.max(0, down)])
      else return null
    }
  }
  return moves
}

/** A vertical colour bar centred on cx, `height` tall from `top`, its end values over and under it. */
export function colorBarElements(
  cx: number,
  top: number,
  height: number,
  stops: readonly string[],
  ends: readonly [string, string] | string[],
  f: Pick<Frame, 'fontSize' | 'ink'>,
): GraphicElement[] {
  const fs = f.fontSize
  const barW = fs * 0.9
  const gap = fs * 0.4
  const lh = textHeight(fs)
  const barH = Math.max(fs * 0.5, height - 2 * (lh + gap))
  const y0 = top + (height - barH) / 2
  return [
    {
      type: 'rect',
      silent: true,
      shape: { x: cx - barW / 2, y: y0, width: barW, height: barH },
      style: {
        fill: { type: 'linear', x: 0, y: 1, x2: 0, y2: 0, colorStops: stops.map((c, i) => ({ offset: i / (stops.length - 1), color: c })) },
        stroke: f.ink.axis,
        lineWidth: 0.5,
      },
    },
    textElement(ends[0], cx, y0 - gap - lh / 2, f, { align: 'center' }),
    textElement(ends[1], cx, y0 + barH + gap + lh / 2, f, { align: 'center' }),
  ]
}

function keyItems(f: Frame): KeyItem[] {
  const L = FIGURE_TEXT[f.lang]
  return [
    { label: L.window, symbol: 'outline', color: WINDOW_STROKE },
    { label: L.pt, symbol: 'triangle', color: PT_MARKER.stroke, fill: PT_MARKER.fill },
  ]
}

function heatmapFigure(input: HeatmapInput, f: Frame): FigureOption {
  const { srcTokens, tgtTokens } = input
  const S = srcTokens.length
  const T = tgtTokens.length
  // Language tags and forced first tokens, greyed (attention/tags.ts).
  const [srcTags, tgtTags] = [leadingTags(srcTokens), leadingTags(tgtTokens)]
  const fs = f.fontSize
  const L = FIGURE_TEXT[f.lang]
  const cmap = input.colormap ?? 'viridis'
  const lay = heatmapLayout(input, f)
  const row = f.highlightRow !== null && f.highlightRow < T ? f.highlightRow : null
  const gap = fs * 0.4
  const lh = textHeight(fs)
  const overlay = input.positions && input.windows
  const stroke = lay.stroke
  const graphic: GraphicElement[] = []
  if (input.axisLabels !== false && input.columnLabels !== false)
    graphic.push(
      textElement(input.sourceTitle ?? L.source, lay.left + lay.width / 2, lay.labelsAt - gap - lay.colExtent - gap - lh / 2, f, {
        align: 'center',
        color: f.ink.muted,
      }),
      ...columnLabelElements(
        srcTokens.map((text, i) => (i < srcTags ? { text, color: TAG_GREY } : { text })),
        lay.left,
        lay.cell.w,
        lay.labelsAt,
        'above',
        f,
      ),
    )
  if (input.axisLabels !== false)
    graphic.push(
      // Beside the row labels, where the plot is narrower than its box and centred in it.
      textElement(input.outputTitle ?? L.output, f.x + lh / 2 + lay.slack, lay.top + lay.height / 2, f, { align: 'center', rotate: true, color: f.ink.muted }),
    )
  if (overlay) graphic.push(...keyElements(keyItems(f), f.x, f.y + f.height - lay.keyH + gap, f.width, f).elements)
  if (input.colorScale !== false) {
    // At least room for the bar's two end labels, kept inside the box when the plot is shorter.
    const total = Math.max(Math.min(lay.height, fs * 9 + 2 * (lh + gap)), fs * 0.5 + 2 * (lh + gap))
    const barTop = Math.max(f.y, Math.min(lay.top + (lay.height - total) / 2, f.y + f.height - lay.keyH - total))
    const [stops, ends] = input.diverging ? [input.diverging.colors, input.diverging.ends] : [COLORMAPS[cmap], scaleEnds(input)]
    // Beside the plot, not at the box's edge when the plot is narrower than its box.
    const cx = Math.min(f.x + f.width, lay.left + lay.width + lay.scaleW) - lay.scaleW / 2
    graphic.push(...colorBarElements(cx, barTop, total, stops, ends, f))
  }
  const indices = (n: number) => Array.from({ length: n }, (_, i) => String(i))
  return {
    animation: false,
    grid: { left: lay.left, top: lay.top, width: lay.width, height: lay.height, containLabel: false },
    cramped: lay.cramped,
    xAxis: {
      type: 'category',
      position: 'top',
      data: indices(S),
      splitArea: { show: false },
      axisTick: { show: false },
      axisLine: { show: false },
      axisLabel: { show: false },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: indices(T),
      axisTick: { show: false },
      axisLine: { show: false },
      axisLabel: {
        show: input.axisLabels !== false,
        interval: lay.rowStep - 1,
        formatter: (value: string) =>
          Number(value) === row
            ? `{sel|${tgtTokens[Number(value)]}}`
            : Number(value) < tgtTags
              ? `{tag|${tgtTokens[Number(value)]}}`
              : tgtTokens[Number(value)],
        rich: { sel: { fontWeight: 'bold' as const, color: f.ink.accent, fontSize: fs }, tag: { color: TAG_GREY, fontStyle: 'italic' as const, fontSize: fs } },
        fontSize: fs,
        margin: gap,
        color: f.ink.text,
      },
    },
    visualMap: { show: false, min: 0, max: 1, dimension: 2, inRange: { color: [...(input.diverging?.colors ?? COLORMAPS[cmap])] } },
    graphic: { elements: graphic },
    series: [
      {
        type: 'heatmap',
        data: cells(input, row, input.highlightCol ?? null, lay.values, lay.moves),
        progressive: 0,
        label: { show: lay.values, fontSize: lay.valueSize, formatter: (p) => valueText(valueAt(p, 3)) },
        itemStyle: { borderColor: f.ink.dark ? 'rgba(17,24,39,0.6)' : 'rgba(255,255,255,0.6)', borderWidth: S * T > 4000 ? 0 : Math.max(0.25, fs / 40) },
      },
      ...(overlay ? [localOverlayFigure(input.positions!, input.windows!, S, lay.marker, stroke, input.clip)] : []),
    ],
  }
}

/** The local overlay at a fixed marker size (the page's), so the layout can promise it misses the values. */
function localOverlayFigure(positions: number[], windows: [number, number][], S: number, marker: number, stroke: number, clip?: boolean): CustomSeriesOption {
  const o = localOverlay(positions, windows, S, 0, stroke, clip)
  return {
    ...o,
    renderItem: (_params, raw) => {
      const api = numeric(raw)
      const t = api.value(0)
      const [c0, yc] = api.coord([0, t])
      const [w, h] = api.size([1, 1])
      const x = (v: number) => c0 + v * w
      const x0 = x(api.value(2) - 0.5)
      const x1 = x(api.value(3) + 0.5)
      const top = yc - h / 2
      return overlayRow(x0, x1, top, h, stroke, api.value(4) === 1 ? triangleDown(x(api.value(1)), top + stroke, marker) : null, Math.max(0.5, stroke / 2))
    },
  }
}

/**
 * The smallest box `heatmapLayout` lays this map out in with every label drawn: rows one line
 * tall, columns one line wide (their labels turned where they do not fit upright), and the row
 * labels, axis titles and colour bar around them. A figure of several maps sizes its panels by it.
 */
export function heatmapNeeds(
  input: HeatmapInput,
  f: Pick<Frame, 'fontSize' | 'measure' | 'highlightRow'>,
  /** The cell's side, when smaller than a line (a map without token labels). */
  cell?: number,
): { width: number; height: number } {
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const titleH = lh + gap
  const [hi, lo] = input.diverging?.ends ?? scaleEnds(input)
  const scaleW = input.colorScale === false ? 0 : Math.max(fs * 0.9, m(hi, fs), m(lo, fs)) + 2 * gap
  const S = Math.max(1, input.srcTokens.length)
  const T = Math.max(1, input.tgtTokens.length)
  // A hair over a line, so rounding never leaves a row or a turned label short of one.
  const pitch = cell ?? lh + 0.01
  if (input.axisLabels === false) return { width: S * pitch + scaleW, height: T * pitch }
  const rowsW = titleH + Math.max(input.rowLabelWidth ?? 0, widest(input.tgtTokens, fs, m, f.highlightRow !== null)) + gap
  if (input.columnLabels === false) return { width: rowsW + S * pitch + scaleW, height: T * pitch }
  const cols = columnLabels(
    input.srcTokens.map((text) => ({ text })),
    pitch,
    f,
  )
  return {
    width: rowsW + S * pitch + scaleW,
    height: titleH + cols.extent + gap + T * pitch,
  }
}
