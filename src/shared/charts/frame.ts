/**
 * The page a figure is laid out on, for the exporter (and the export dialog's preview): its box,
 * text size, language, colours and a function that measures text the way it will be drawn. With
 * a frame, a chart builder places every label itself from measured sizes, so nothing overlaps or
 * leaves the page at any size, text size or language; without one it leaves the layout to ECharts,
 * as the views on screen do.
 */
import type { XAXisComponentOption, YAXisComponentOption } from 'echarts'
import type { GraphicElement } from './echarts-parts'

/** Width of one line of text at `fontSize` (layout units, points in a figure). */
export type Measure = (text: string, fontSize: number, bold?: boolean) => number

/** The font stack every figure uses: Latin from DejaVu Sans, Chinese from Noto Sans CJK SC. */
export const FIGURE_FONT = 'DejaVu Sans, Noto Sans CJK SC, sans-serif'

/** DejaVu Sans' ascent and descent (hhea, in em): a line of text is this tall. */
export const ASCENT = 1901 / 2048
export const DESCENT = 483 / 2048
/** From the centre of a line (where ECharts puts `y`) down to the alphabetic baseline, in em. */
export const CENTRE_TO_BASELINE = (ASCENT - DESCENT) / 2

/** The height of a line's box of text. */
export const textHeight = (fontSize: number) => fontSize * (ASCENT + DESCENT)
/** Line pitch of several lines, a little looser than the box. */
export const linePitch = (fontSize: number) => fontSize * 1.3

const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u

/** A font-free estimate (CJK one em, other characters about DejaVu Sans' average). */
export function estimateWidth(text: string, fontSize: number, bold = false): number {
  let em = 0
  for (const ch of text)
    em += WIDE.test(ch) ? 1 : /[\u0300-\u036f\u200b-\u200d]/u.test(ch) ? 0 : /[iljtf.,:;'|!I()[\] ]/.test(ch) ? 0.36 : /[A-Z@MWmw%]/.test(ch) ? 0.8 : 0.62
  return em * fontSize * (bold ? 1.08 : 1)
}

export interface Ink {
  text: string
  muted: string
  axis: string
  grid: string
  background: string
  /** The emphasis colour (a selection, a differing word). */
  accent: string
  dark: boolean
}

export const INKS: Record<'light' | 'dark', Ink> = {
  light: { text: '#111827', muted: '#475569', axis: '#64748b', grid: '#e5e7eb', background: '#ffffff', accent: '#c2410c', dark: false },
  dark: { text: '#e5e7eb', muted: '#cbd5e1', axis: '#94a3b8', grid: '#374151', background: '#111827', accent: '#fb923c', dark: true },
}

export type FrameLang = 'en' | 'zh'

export interface Frame {
  /** The box the chart may use, in layout units (points). */
  x: number
  y: number
  width: number
  height: number
  fontSize: number
  measure: Measure
  lang: FrameLang
  ink: Ink
  /** Dim every matrix row but this one (the app's selection), or null: nothing dimmed. */
  highlightRow: number | null
  /** The page grows taller as the content asks (a paper figure being fitted). */
  grows?: boolean
  /**
   * Lay the view out its other way, where it has one (the view registry names it): the heatmap
   * transposed, side by side stacked, the alignment lines down the page. The fitter tries it when
   * the usual way does not fit at the text size asked.
   */
  alternative?: boolean
  /**
   * The smallest text the chart may set (a slide's floor in presentation mode): a text a builder
   * sets smaller than its size (a key) is no smaller than this. Absent: as the builder sets it.
   */
  least?: number
}

/** A box inside another. */
export function inset(f: Frame, box: { x: number; y: number; width: number; height: number }): Frame {
  return { ...f, ...box }
}

/** The widest of some texts. */
export function widest(texts: readonly string[], fontSize: number, measure: Measure, bold = false): number {
  let w = 0
  for (const t of texts) w = Math.max(w, measure(t, fontSize, bold))
  return w
}

/**
 * Text broken into lines no wider than `width`: at spaces, anywhere in CJK, and inside a word that
 * is wider than a line on its own.
 */
export function wrapText(text: string, width: number, fontSize: number, measure: Measure, bold = false): string[] {
  const lines: string[] = []
  for (const para of text.split('\n')) {
    // Words, with CJK characters as words of their own (they may break anywhere).
    const words = para.match(new RegExp(`${WIDE.source}|[^\\s\\u2e80-\\u9fff\\uac00-\\ud7a3\\uff00-\\uffef]+\\s*|\\s+`, 'gu')) ?? ['']
    let line = ''
    for (const word of words) {
      if (measure((line + word).trimEnd(), fontSize, bold) <= width || line === '') {
        line += word
      } else {
        lines.push(line.trimEnd())
        line = word.trimStart()
      }
      // A single word wider than the line: cut it.
      while (measure(line.trimEnd(), fontSize, bold) > width && [...line].length > 1) {
        const chars = [...line]
        let n = chars.length - 1
        while (n > 1 && measure(chars.slice(0, n).join(''), fontSize, bold) > width) n--
        lines.push(chars.slice(0, n).join(''))
        line = chars.slice(n).join('')
      }
    }
    lines.push(line.trimEnd())
  }
  return lines
}

/** A graphic text element with its left/centre/right edge at x and the centre of its line at y. */
export function textElement(
  text: string,
  x: number,
  y: number,
  f: Pick<Frame, 'fontSize' | 'ink'>,
  o: { align?: 'left' | 'center' | 'right'; bold?: boolean; color?: string; size?: number; rotate?: boolean } = {},
): GraphicElement {
  return {
    type: 'text',
    x,
    y,
    // A quarter turn counter-clockwise: read from the bottom up, as axis titles are.
    rotation: o.rotate ? Math.PI / 2 : 0,
    silent: true,
    style: {
      text,
      fontSize: o.size ?? f.fontSize,
      fontFamily: FIGURE_FONT,
      fontWeight: o.bold ? 'bold' : 'normal',
      fill: o.color ?? f.ink.text,
      align: o.align ?? 'left',
      verticalAlign: 'middle',
    },
  }
}

export type KeySymbol = 'line' | 'dashed' | 'dotted' | 'bar' | 'outline' | 'band' | 'triangle' | 'dot' | 'underline'

export interface KeyItem {
  label: string
  symbol: KeySymbol
  color: string
  /** The fill of a bar, band or dot whose border is `color`. */
  fill?: string
}

/** Width of a key's symbol, and the gaps after it and between items, for a text size. */
const keyMetrics = (fs: number) => ({ symbol: fs * 1.6, gap: fs * 0.4, between: fs * 1.1, pitch: linePitch(fs) })

/** How tall a key is once wrapped into `width`. */
export function keyHeight(items: KeyItem[], width: number, fs: number, measure: Measure): number {
  return keyRows(items, width, fs, measure).length * keyMetrics(fs).pitch
}

type KeyRow = { item: KeyItem; x: number; w: number; lines: string[] }[]

/** The key's items in rows no wider than `width`; an item wider than a row on its own wraps its label. */
function keyRows(items: KeyItem[], width: number, fs: number, measure: Measure): KeyRow[] {
  const k = keyMetrics(fs)
  const rows: KeyRow[] = []
  let row: KeyRow = []
  let x = 0
  for (const item of items) {
    const w = k.symbol + k.gap + measure(item.label, fs)
    if (w > width) {
      if (row.length) rows.push(row)
      const lines = wrapText(item.label, Math.max(fs, width - k.symbol - k.gap), fs, measure)
      rows.push([{ item, x: 0, w: k.symbol + k.gap + widest(lines, fs, measure), lines }])
      // The item's further lines take rows of their own.
      for (let i = 1; i < lines.length; i++) rows.push([])
      row = []
      x = 0
      continue
    }
    if (row.length && x + w > width) {
      rows.push(row)
      row = []
      x = 0
    }
    row.push({ item, x, w, lines: [item.label] })
    x += w + k.between
  }
  if (row.length) rows.push(row)
  return rows
}

/**
 * A key (legend) drawn as graphic elements, its rows wrapped to `width` and each row centred (or
 * left-aligned): symbol, then label. Returns the elements and the height they take.
 */
export function keyElements(
  items: KeyItem[],
  x: number,
  y: number,
  width: number,
  f: Pick<Frame, 'fontSize' | 'measure' | 'ink'>,
  align: 'left' | 'center' = 'center',
): { elements: GraphicElement[]; height: number } {
  const fs = f.fontSize
  const k = keyMetrics(fs)
  const rows = keyRows(items, width, fs, f.measure)
  const elements: GraphicElement[] = []
  rows.forEach((row, r) => {
    if (!row.length) return
    const used = row[row.length - 1].x + row[row.length - 1].w
    const x0 = x + (align === 'center' ? Math.max(0, (width - used) / 2) : 0)
    const cy = y + r * k.pitch + k.pitch / 2
    for (const { item, x: dx, lines } of row) {
      const sx = x0 + dx
      elements.push(...keySymbol(item, sx, cy, k.symbol, fs))
      lines.forEach((line, i) => elements.push(textElement(line, sx + k.symbol + k.gap, cy + i * k.pitch, f)))
    }
  })
  return { elements, height: rows.length * k.pitch }
}

/** One key symbol, `w` wide, centred vertically on cy. */
function keySymbol(item: KeyItem, x: number, cy: number, w: number, fs: number): GraphicElement[] {
  const h = fs * 0.7
  const line = (dash: number[] | null, width = Math.max(1.5, fs / 8)) => ({
    type: 'line',
    silent: true,
    shape: { x1: x, y1: cy, x2: x + w, y2: cy },
    style: { stroke: item.color, lineWidth: width, lineDash: dash ?? undefined },
  })
  switch (item.symbol) {
    case 'line':
      return [line(null)]
    case 'dashed':
      return [line([fs / 4, fs / 6])]
    case 'dotted':
      return [line([fs / 10, fs / 6])]
    case 'underline':
      return [line(null, Math.max(1, fs / 10))]
    case 'bar':
      return [
        {
          type: 'rect',
          silent: true,
          shape: { x: x + w * 0.2, y: cy - h / 2, width: w * 0.6, height: h },
          style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1 },
        },
      ]
    case 'band':
      return [
        {
          type: 'rect',
          silent: true,
          shape: { x, y: cy - h / 2, width: w, height: h },
          style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1, lineDash: [3, 2] },
        },
      ]
    case 'outline':
      return [
        {
          type: 'rect',
          silent: true,
          shape: { x: x + 1, y: cy - h / 2, width: w - 2, height: h },
          style: { fill: 'none', stroke: item.color, lineWidth: Math.max(1.5, fs / 8) },
        },
      ]
    case 'triangle':
      return [
        {
          type: 'polygon',
          silent: true,
          shape: { points: triangleDown(x + w / 2, cy - h / 2, h * 0.9) },
          style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1 },
        },
      ]
    case 'dot':
      return [
        line(null),
        {
          type: 'circle',
          silent: true,
          shape: { cx: x + w / 2, cy, r: h / 2.6 },
          style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1.5 },
        },
      ]
  }
}

/** A triangle pointing down with its flat top edge centred on (cx, top), `size` tall. */
export function triangleDown(cx: number, top: number, size: number): [number, number][] {
  const half = size * 0.62
  return [
    [cx - half, top],
    [cx + half, top],
    [cx, top + size],
  ]
}

/** Round tick steps (1, 2, 2.5, 5 × 10ⁿ) for a value axis that keeps `minGap` between its labels. */
export function niceTicks(min: number, max: number, length: number, minGap: number): { min: number; max: number; interval: number } {
  const span = max - min || 1
  const most = Math.max(1, Math.floor(length / minGap))
  // The first round step whose rounded-out range has at most `most` intervals.
  const p = 10 ** Math.floor(Math.log10(span / most))
  for (const k of [1, 2, 2.5, 5, 10, 20, 25, 50, 100]) {
    const step = k * p
    const lo = Math.floor(min / step + 1e-9) * step
    const hi = Math.ceil(max / step - 1e-9) * step
    if ((hi - lo) / step <= most + 1e-9) return { min: lo, max: hi, interval: step }
  }
  return { min, max: min + span, interval: span }
}

/** A tick value as short text: 0.25, 1.5, 40, 1.2k; a value off the round steps to three digits (14.2, not 14.1822). */
export function tickText(v: number): string {
  if (Math.abs(v) >= 10_000) return `${+(v / 1000).toFixed(1)}k`
  if (Number.isInteger(v) || v === 0) return String(v)
  return String(+v.toPrecision(Math.max(3, Math.floor(Math.log10(Math.abs(v))) + 1)))
}

/**
 * Which of n equally spaced category labels to show: every k-th, k the smallest step at which a
 * label's extent along the axis (plus a gap) fits into k categories.
 */
export function labelStep(n: number, pitch: number, extent: number, gap: number): number {
  if (n <= 1 || pitch <= 0) return 1
  return Math.max(1, Math.ceil((extent + gap) / pitch - 1e-9))
}

export interface ColumnLabel {
  text: string
  bold?: boolean
  color?: string
}

/**
 * Labels of n columns `pitch` wide: each upright when it fits its column (a single CJK character
 * always does once a column is 1.3 em wide), else turned a quarter to read upwards. Every label is
 * drawn (`step` is 1): where even turned labels are too close, the fitter sees them overlap and
 * gives the figure more room or refuses it. `extent` is the height the tallest takes.
 */
export function columnLabels(
  labels: ColumnLabel[],
  pitch: number,
  f: Pick<Frame, 'fontSize' | 'measure'>,
): { upright: boolean[]; step: number; extent: number } {
  const fs = f.fontSize
  const lh = textHeight(fs)
  const widths = labels.map((l) => f.measure(l.text, fs, l.bold))
  const upright = widths.map((w) => w <= pitch - fs * 0.3)
  const step = 1
  let extent = 0
  labels.forEach((_, i) => {
    if (i % step === 0) extent = Math.max(extent, upright[i] ? lh : widths[i])
  })
  return { upright, step, extent }
}

/** Column labels as graphic elements, below (`y` the axis, labels under it) or above the columns. */
export function columnLabelElements(
  labels: ColumnLabel[],
  x0: number,
  pitch: number,
  y: number,
  side: 'below' | 'above',
  f: Pick<Frame, 'fontSize' | 'measure' | 'ink'>,
): GraphicElement[] {
  const fs = f.fontSize
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const { upright, step } = columnLabels(labels, pitch, f)
  const out: GraphicElement[] = []
  labels.forEach((l, i) => {
    if (i % step) return
    const cx = x0 + (i + 0.5) * pitch
    const o = { bold: l.bold, color: l.color }
    if (upright[i]) out.push(textElement(l.text, cx, side === 'below' ? y + gap + lh / 2 : y - gap - lh / 2, f, { ...o, align: 'center' }))
    // Turned to read upwards: below the axis it ends at the axis, above it starts there.
    else out.push(textElement(l.text, cx, side === 'below' ? y + gap : y - gap, f, { ...o, align: side === 'below' ? 'right' : 'left', rotate: true }))
  })
  return out
}

export interface CartesianInput {
  /** Category labels along the bottom, one per column. */
  xLabels: ColumnLabel[]
  xTitle?: string
  /** The value axis' range; its ticks are chosen to fit. */
  y: { min: number; max: number }
  /** Tick labels of the value axis from a tick value. */
  yText?: (v: number) => string
  yTitle?: string
  /** Every label the value axis may show, when its ticks are not plain numbers (reserves their width). */
  yLabels?: string[]
  key?: KeyItem[]
  /** Room to keep free right of the plot (a label at the end of a marker line). */
  right?: number
  /** Room to keep free above the plot, under the key (value labels over the bars). */
  above?: number
}

export interface CartesianLayout {
  grid: { left: number; top: number; width: number; height: number }
  /** The page is too small for the chart at this text size (its plot would be squeezed to nothing). */
  cramped: boolean
  ticks: { min: number; max: number; interval: number }
  /** Key, column labels, axis titles. */
  elements: GraphicElement[]
}

/**
 * A chart with columns along the bottom and a value axis on the left laid out on a frame: the
 * key on top, the value axis' labels and title on the left, the column labels (upright when they
 * fit, else turned) and title below, all measured, so none of them overlaps another or the page edge.
 */
export function cartesianLayout(f: Frame, o: CartesianInput): CartesianLayout {
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const n = Math.max(1, o.xLabels.length)
  const key = o.key?.length ? keyElements(o.key, f.x, f.y, f.width, f) : { elements: [], height: 0 }
  const top = f.y + key.height + (key.height ? gap : 0) + (o.above ?? 0) + lh / 2
  const yText = o.yText ?? tickText
  const ticksFor = (length: number) => niceTicks(o.y.min, o.y.max, length, lh * 1.8)
  const tickLabels = (t: { min: number; max: number; interval: number }) => {
    const out: string[] = []
    for (let v = t.min; v <= t.max + t.interval / 2; v += t.interval) out.push(yText(+v.toFixed(10)))
    return out
  }
  const yTitleW = o.yTitle ? lh + gap : 0
  const place = (ticks: { min: number; max: number; interval: number }, labelsH: number) => {
    const labelW = Math.max(widest(tickLabels(ticks), fs, m), widest(o.yLabels ?? [], fs, m))
    const left = f.x + yTitleW + labelW + gap
    const right = Math.max(o.right ?? 0, gap)
    const width = f.x + f.width - right - left
    const height = f.y + f.height - (labelsH + gap + (o.xTitle ? lh + gap : 0)) - top
    return { left, width: Math.max(fs, width), height: Math.max(fs, height), cramped: width < 4 * fs || height < 2 * lh }
  }
  // The column labels' height depends on the plot's width, which depends on the value labels' width.
  let ticks = ticksFor(f.height * 0.6)
  let g = place(ticks, lh)
  let cols = columnLabels(o.xLabels, g.width / n, f)
  ticks = ticksFor(place(ticks, cols.extent).height)
  g = place(ticks, cols.extent)
  cols = columnLabels(o.xLabels, g.width / n, f)
  g = place(ticks, cols.extent)
  const grid = { left: g.left, top, width: g.width, height: g.height }
  const elements = [...key.elements, ...columnLabelElements(o.xLabels, grid.left, grid.width / n, top + grid.height, 'below', f)]
  if (o.yTitle) elements.push(textElement(o.yTitle, f.x + lh / 2, top + g.height / 2, f, { align: 'center', rotate: true, color: f.ink.muted }))
  if (o.xTitle) elements.push(textElement(o.xTitle, g.left + g.width / 2, f.y + f.height - lh / 2, f, { align: 'center', color: f.ink.muted }))
  return { grid, cramped: g.cramped, ticks, elements }
}

/** ECharts axes for a cartesian layout: a category x axis and a value y axis, styled for the frame. */
export function cartesianAxes(
  f: Frame,
  lay: CartesianLayout,
  o: { yText?: (v: number) => string; n: number },
): { xAxis: XAXisComponentOption; yAxis: YAXisComponentOption } {
  const fs = f.fontSize
  const gap = fs * 0.4
  return {
    // Column labels are drawn by the layout, each upright or turned as it fits.
    xAxis: {
      type: 'category',
      data: Array.from({ length: o.n }, (_, i) => String(i)),
      axisTick: { show: false },
      axisLine: { lineStyle: { color: f.ink.axis } },
      axisLabel: { show: false },
    },
    yAxis: {
      type: 'value',
      min: lay.ticks.min,
      max: lay.ticks.max,
      interval: lay.ticks.interval,
      axisLine: { show: true, onZero: false, lineStyle: { color: f.ink.axis } },
      splitLine: { lineStyle: { color: f.ink.grid } },
      axisLabel: { formatter: (v: number) => (o.yText ?? tickText)(+v.toFixed(10)), fontSize: fs, margin: gap, color: f.ink.text },
    },
  }
}

export interface TokenRow {
  /** The row's name, in bold, with an optional key symbol before it. */
  head: string
  symbol?: KeyItem
  tokens: { text: string; mark?: boolean }[]
}

/** Token rows at a text size: lines of each row, and the height they take. */
function flowTokens(
  rows: TokenRow[],
  width: number,
  fs: number,
  m: Measure,
): { headW: number; headAbove: boolean; lines: { row: number; items: { text: string; mark?: boolean; x: number }[] }[]; height: number } {
  const k = keyMetrics(fs)
  const space = fs * 0.45
  const heads = Math.max(...rows.map((r) => (r.symbol ? k.symbol + k.gap : 0) + m(r.head, fs, true))) + fs * 0.8
  // Names wider than a third of the line go on a line of their own, the tokens under them.
  const headAbove = heads > width * 0.35
  const headW = headAbove ? fs : heads
  const flow = Math.max(fs, width - headW)
  const lines: { row: number; items: { text: string; mark?: boolean; x: number }[] }[] = []
  rows.forEach((r, row) => {
    let line: { text: string; mark?: boolean; x: number }[] = []
    let x = 0
    for (const tok of r.tokens) {
      const text = tok.text
      const w = m(text, fs, tok.mark)
      if (line.length && x + w > flow) {
        lines.push({ row, items: line })
        line = []
        x = 0
      }
      line.push({ text, mark: tok.mark, x })
      x += w + space
    }
    lines.push({ row, items: line })
  })
  const rowGap = fs * 0.35
  return { headW, headAbove, lines, height: (lines.length + (headAbove ? rows.length : 0)) * linePitch(fs) + (rows.length - 1) * rowGap }
}

/**
 * Rows of tokens (a model's output, the text before and after an override): the row's name on
 * the left, its tokens flowing into lines on the right, marked tokens bold, in the accent colour
 * and underlined. Every token is drawn at the frame's size: `overflow` says the rows took more
 * than `maxHeight`, for the caller to report its figure cramped (the fitter then gives it room).
 */
export function tokenRowElements(
  rows: TokenRow[],
  x: number,
  y: number,
  width: number,
  maxHeight: number,
  f: Pick<Frame, 'fontSize' | 'measure' | 'ink'>,
): { elements: GraphicElement[]; height: number; overflow: boolean } {
  const fs = f.fontSize
  const flow = flowTokens(rows, width, fs, f.measure)
  const pitch = linePitch(fs)
  const rowGap = fs * 0.35
  const k = keyMetrics(fs)
  const ff = { ...f, fontSize: fs }
  const elements: GraphicElement[] = []
  let cy = y
  let shown = 0
  rows.forEach((r, row) => {
    const kept = flow.lines.filter((l) => l.row === row)
    const headY = cy + pitch / 2
    if (flow.headAbove) {
      cy += pitch
      shown++
    }
    let hx = x
    if (r.symbol) {
      elements.push(...keySymbol(r.symbol, hx, headY, k.symbol, fs))
      hx += k.symbol + k.gap
    }
    elements.push(textElement(r.head, hx, headY, ff, { bold: true }))
    kept.forEach((line, i) => {
      const ly = cy + (i + 0.5) * pitch
      line.items.forEach((tok) => {
        const tx = x + flow.headW + tok.x
        elements.push(textElement(tok.text, tx, ly, ff, tok.mark ? { bold: true, color: f.ink.accent } : {}))
        if (tok.mark) {
          const w = f.measure(tok.text, fs, true)
          const uy = ly + textHeight(fs) / 2
          elements.push({
            type: 'line',
            silent: true,
            shape: { x1: tx, y1: uy, x2: tx + w, y2: uy },
            style: { stroke: f.ink.accent, lineWidth: Math.max(1, fs / 12) },
          })
        }
      })
    })
    cy += kept.length * pitch + rowGap
    shown += kept.length
  })
  const height = shown * pitch + (rows.length - 1) * rowGap
  return { elements, height, overflow: height > maxHeight + 0.01 }
}
