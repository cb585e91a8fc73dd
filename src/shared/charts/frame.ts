/**
 * The page a figure is laid out on, for the exporter (and the export dialog's preview): its box,
 * text size, language, colours and a function that measures text the way it will be drawn. With
 * a frame, a chart builder places every label itself from measured sizes, so nothing overlaps or
 * leaves the page at any size, text size or language; without one it leaves the layout to ECharts,
 * as the views on screen do.
 */

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

const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u

/** A font-free estimate (CJK one em, other characters about DejaVu Sans' average). */
export function estimateWidth(text: string, fontSize: number, bold = false): number {
  let em = 0
  for (const ch of text) em += WIDE.test(ch) ? 1 : /[\u0300-\u036f\u200b-\u200d]/u.test(ch) ? 0 : /[iljtf.,:;'|!I()[\] ]/.test(ch) ? 0.36 : /[A-Z@MWmw%]/.test(ch) ? 0.8 : 0.62
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
): Record<string, unknown> {
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

function keyRows(items: KeyItem[], width: number, fs: number, measure: Measure): { item: KeyItem; x: number; w: number }[][] {
  const k = keyMetrics(fs)
  const rows: { item: KeyItem; x: number; w: number }[][] = []
  let row: { item: KeyItem; x: number; w: number }[] = []
  let x = 0
  for (const item of items) {
    const w = k.symbol + k.gap + measure(item.label, fs)
    if (row.length && x + w > width) {
      rows.push(row)
      row = []
      x = 0
    }
    row.push({ item, x, w })
    x += w + k.between
  }
  if (row.length) rows.push(row)
  return rows
}

/**
 * A key (legend) drawn as graphic elements, its rows wrapped to `width` and each row centred (or
 * left-aligned): symbol, then label. Returns the elements and the height they take.
 */
export function keyElements(items: KeyItem[], x: number, y: number, width: number, f: Pick<Frame, 'fontSize' | 'measure' | 'ink'>, align: 'left' | 'center' = 'center'): { elements: Record<string, unknown>[]; height: number } {
  const fs = f.fontSize
  const k = keyMetrics(fs)
  const rows = keyRows(items, width, fs, f.measure)
  const elements: Record<string, unknown>[] = []
  rows.forEach((row, r) => {
    const used = row[row.length - 1].x + row[row.length - 1].w
    const x0 = x + (align === 'center' ? Math.max(0, (width - used) / 2) : 0)
    const cy = y + r * k.pitch + k.pitch / 2
    for (const { item, x: dx } of row) {
      const sx = x0 + dx
      elements.push(...keySymbol(item, sx, cy, k.symbol, fs))
      elements.push(textElement(item.label, sx + k.symbol + k.gap, cy, f))
    }
  })
  return { elements, height: rows.length * k.pitch }
}

/** One key symbol, `w` wide, centred vertically on cy. */
function keySymbol(item: KeyItem, x: number, cy: number, w: number, fs: number): Record<string, unknown>[] {
  const h = fs * 0.7
  const line = (dash: number[] | null, width = Math.max(1.5, fs / 8)) => ({ type: 'line', silent: true, shape: { x1: x, y1: cy, x2: x + w, y2: cy }, style: { stroke: item.color, lineWidth: width, lineDash: dash ?? undefined } })
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
      return [{ type: 'rect', silent: true, shape: { x: x + w * 0.2, y: cy - h / 2, width: w * 0.6, height: h }, style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1 } }]
    case 'band':
      return [{ type: 'rect', silent: true, shape: { x, y: cy - h / 2, width: w, height: h }, style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1, lineDash: [3, 2] } }]
    case 'outline':
      return [{ type: 'rect', silent: true, shape: { x: x + 1, y: cy - h / 2, width: w - 2, height: h }, style: { fill: 'none', stroke: item.color, lineWidth: Math.max(1.5, fs / 8) } }]
    case 'triangle':
      return [{ type: 'polygon', silent: true, shape: { points: triangleDown(x + w / 2, cy - h / 2, h * 0.9) }, style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1 } }]
    case 'dot':
      return [line(null), { type: 'circle', silent: true, shape: { cx: x + w / 2, cy, r: h / 2.6 }, style: { fill: item.fill ?? item.color, stroke: item.color, lineWidth: 1.5 } }]
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
  const raw = span / most
  const p = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw - 1e-12) ?? 10 * p
  return { min: Math.floor(min / step + 1e-9) * step, max: Math.ceil(max / step - 1e-9) * step, interval: step }
}

/** A tick value as short text: 0.25, 1.5, 40, 1.2k. */
export function tickText(v: number): string {
  if (Math.abs(v) >= 10_000) return `${+(v / 1000).toFixed(1)}k`
  return String(+v.toFixed(4))
}

/**
 * Which of n equally spaced category labels to show: every k-th, k the smallest step at which a
 * label's extent along the axis (plus a gap) fits into k categories.
 */
export function labelStep(n: number, pitch: number, extent: number, gap: number): number {
  if (n <= 1 || pitch <= 0) return 1
  return Math.max(1, Math.ceil((extent + gap) / pitch - 1e-9))
}
