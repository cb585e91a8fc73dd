/**
 * Geometry of the alignment-lines figure: source tokens in a row at the top, output tokens in a
 * row at the bottom, and one line per (output step t, source token s) whose stroke width and
 * opacity follow attention[t][s]. Pure (no DOM), so the renderer and an SVG exporter draw the
 * same figure and it can be unit tested. Token widths come in from the caller (measured text
 * width, or `estimateTextWidth`).
 */
import { FIGURE_TEXT } from './figure-text'
import { keyElements, keyHeight, textElement, textHeight, type Frame, type KeyItem } from './frame'
import type { FigureOption, GraphicElement } from './echarts-parts'

export interface AlignmentInput {
  /** Width in px of each source token's text. */
  srcWidths: number[]
  /** Width in px of each output token's text. */
  tgtWidths: number[]
  /** attention[t][s]: weight of source token s at output step t. */
  attention: number[][]
  /** Lines with a weight below this are dropped (0 keeps every line). */
  threshold?: number
  /** A focused output token: only its lines are kept and the source tokens carry its weights. */
  selectedRow?: number | null
  /** A focused source token: only its lines are kept and the output tokens carry its weights. */
  selectedCol?: number | null
  /** Lay the figure out at least this wide (e.g. the panel's width); rows spread out to fill it. */
  minWidth?: number
  layout?: Partial<AlignmentLayoutOptions>
}

export interface AlignmentLayoutOptions {
  /** Horizontal padding inside a token box, each side. */
  padX: number
  /** Smallest token box width. */
  minBox: number
  /** Space between neighbouring token boxes. */
  gap: number
  /** Most extra space added to a gap when a row is spread to fill the width. */
  maxExtraGap: number
  /** Token box height. */
  boxHeight: number
  /** Vertical distance between the bottom of the source row and the top of the output row. */
  span: number
  /** Margin left and right of the rows. */
  marginX: number
  /** Margin above the source row and below the output row (room for weight labels). */
  marginY: number
  /** Stroke width of a line with weight 0 and weight 1. */
  minStroke: number
  maxStroke: number
  /** Opacity of a line with weight 0 and weight 1. */
  minOpacity: number
  maxOpacity: number
}

export const ALIGNMENT_DEFAULTS: AlignmentLayoutOptions = {
  padX: 7,
  minBox: 30,
  gap: 8,
  maxExtraGap: 80,
  boxHeight: 28,
  span: 180,
  marginX: 10,
  marginY: 20,
  minStroke: 0.6,
  maxStroke: 7,
  minOpacity: 0.12,
  maxOpacity: 0.9,
}

export interface TokenBox {
  /** Index into srcTokens / tgtTokens. */
  i: number
  x: number
  y: number
  width: number
  height: number
  /** Centre of the box, horizontally. */
  cx: number
  /** This token is the selection. */
  selected: boolean
  /**
   * With a token on the other row in focus: the attention weight between it and this token
   * (how strongly to highlight this one); null otherwise.
   */
  weight: number | null
}

export interface AlignmentLine {
  /** Output step (row of the attention matrix). */
  t: number
  /** Source token (column of the attention matrix). */
  s: number
  weight: number
  /** (x1, y1): top centre of output token t; (x2, y2): bottom centre of source token s. */
  x1: number
  y1: number
  x2: number
  y2: number
  width: number
  opacity: number
}

export interface AlignmentLayout {
  width: number
  height: number
  src: TokenBox[]
  tgt: TokenBox[]
  /** Lines to draw, weakest first so strong lines end up on top. */
  lines: AlignmentLine[]
  /** y of the source row's top and of the output row's top. */
  srcY: number
  tgtY: number
}

/** Stroke width for a weight (clamped to [0, 1]); grows with the weight. */
export function strokeWidth(weight: number, o: AlignmentLayoutOptions = ALIGNMENT_DEFAULTS): number {
  return o.minStroke + (o.maxStroke - o.minStroke) * clamp01(weight)
}

/** Stroke opacity for a weight (clamped to [0, 1]); grows with the weight. */
export function strokeOpacity(weight: number, o: AlignmentLayoutOptions = ALIGNMENT_DEFAULTS): number {
  return o.minOpacity + (o.maxOpacity - o.minOpacity) * clamp01(weight)
}

function clamp01(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0
}

/** Wide (CJK, fullwidth, Hangul, kana) characters take a full em; others about 0.6 em. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u

/**
 * A DOM-free estimate of a token's rendered width at `fontSize` px: CJK and other wide
 * characters count one em, narrow ones 0.6 em. For exporters and for when no canvas is at hand.
 */
export function estimateTextWidth(text: string, fontSize = 15): number {
  let em = 0
  for (const ch of text) em += WIDE.test(ch) ? 1 : /[\u0300-\u036f\u200b-\u200d]/u.test(ch) ? 0 : 0.6
  return em * fontSize
}

/**
 * Places a row of boxes of the given widths inside [marginX, marginX + content]: spaced by `gap`,
 * spread by up to `maxExtraGap` more per gap when the row is narrower than the content, then centred.
 */
function placeRow(boxes: number[], content: number, o: AlignmentLayoutOptions): number[] {
  const n = boxes.length
  if (n === 0) return []
  const natural = boxes.reduce((a, b) => a + b, 0) + o.gap * (n - 1)
  const extra = n > 1 ? Math.min(o.maxExtraGap, Math.max(0, content - natural) / (n - 1)) : 0
  const used = natural + extra * (n - 1)
  let x = o.marginX + Math.max(0, (content - used) / 2)
  return boxes.map((w) => {
    const at = x
    x += w + o.gap + extra
    return at
  })
}

/** Lays out the alignment-lines figure: token boxes of both rows and the lines to draw. */
export function buildAlignment(input: AlignmentInput): AlignmentLayout {
  const o: AlignmentLayoutOptions = { ...ALIGNMENT_DEFAULTS, ...input.layout }
  const threshold = input.threshold ?? 0
  const S = input.srcWidths.length
  const T = input.tgtWidths.length
  const row = input.selectedRow != null && input.selectedRow >= 0 && input.selectedRow < T ? input.selectedRow : null
  // A row selection wins if both are set (the views select one side at a time).
  const col = row === null && input.selectedCol != null && input.selectedCol >= 0 && input.selectedCol < S ? input.selectedCol : null
  const w = (t: number, s: number) => {
    const v = input.attention[t]?.[s]
    return typeof v === 'number' && Number.isFinite(v) ? v : 0
  }

  const box = (tw: number) => Math.max(o.minBox, Math.ceil(tw) + 2 * o.padX)
  const srcBox = input.srcWidths.map(box)
  const tgtBox = input.tgtWidths.map(box)
  const natural = (b: number[]) => (b.length ? b.reduce((a, c) => a + c, 0) + o.gap * (b.length - 1) : 0)
  const content = Math.max(natural(srcBox), natural(tgtBox), (input.minWidth ?? 0) - 2 * o.marginX)
  const width = Math.ceil(content + 2 * o.marginX)
  const srcY = o.marginY
  const tgtY = srcY + o.boxHeight + o.span
  const height = tgtY + o.boxHeight + o.marginY

  const srcX = placeRow(srcBox, content, o)
  const tgtX = placeRow(tgtBox, content, o)
  const src: TokenBox[] = srcBox.map((bw, s) => ({
    i: s,
    x: srcX[s],
    y: srcY,
    width: bw,
    height: o.boxHeight,
    cx: srcX[s] + bw / 2,
    selected: s === col,
    weight: row !== null ? w(row, s) : null,
  }))
  const tgt: TokenBox[] = tgtBox.map((bw, t) => ({
    i: t,
    x: tgtX[t],
    y: tgtY,
    width: bw,
    height: o.boxHeight,
    cx: tgtX[t] + bw / 2,
    selected: t === row,
    weight: col !== null ? w(t, col) : null,
  }))

  const lines: AlignmentLine[] = []
  for (let t = 0; t < T; t++) {
    if (row !== null && t !== row) continue
    for (let s = 0; s < S; s++) {
      if (col !== null && s !== col) continue
      const v = input.attention[t]?.[s]
      // Cells the matrix lacks (a model without attention) have no line at all.
      if (typeof v !== 'number' || !Number.isFinite(v) || v < threshold) continue
      lines.push({
        t,
        s,
        weight: v,
        x1: tgt[t].cx,
        y1: tgtY,
        x2: src[s].cx,
        y2: srcY + o.boxHeight,
        width: strokeWidth(v, o),
        opacity: strokeOpacity(v, o),
      })
    }
  }
  lines.sort((a, b) => a.weight - b.weight || a.t - b.t || a.s - b.s)
  return { width, height, src, tgt, lines, srcY, tgtY }
}

export interface AlignmentFigureInput {
  srcTokens: string[]
  tgtTokens: string[]
  attention: number[][]
  threshold: number
  frame: Frame
  /** Rows across the page, or columns down it; absent: across where the rows fit the page, else down. */
  orient?: 'across' | 'down'
  /** The output's label (default: the frame language's "output"). */
  outputTitle?: string
  /** Source positions that stand for words left out (GAP, drawn without a box): a part of a split figure. */
  gaps?: ReadonlySet<number>
}

/** What stands for source words a part of a split figure leaves out. */
export const GAP = '…'

/**
 * Alignment lines on a page at the page's text size, laid out by buildAlignment: "source" over
 * the source row, "output" under the output row, a line of key at the bottom. Where the rows are
 * wider than the page (a long sentence in a column), the figure turns: source tokens down the
 * left, output tokens down the right, the lines across. Text is never set smaller to fit: the
 * fitter picks the size, and a page with no room says so (`cramped`).
 */
export function buildAlignmentFigure(input: AlignmentFigureInput): FigureOption {
  const f = input.frame
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const key: KeyItem[] = [{ label: L.lineKey(input.threshold), symbol: 'line', color: LINE_COLOR }]
  const keyH = keyHeight(key, f.width, fs, f.measure) + gap
  const o: AlignmentLayoutOptions = {
    ...ALIGNMENT_DEFAULTS,
    padX: fs * 0.35,
    minBox: fs * 1.6,
    gap: fs * 0.35,
    maxExtraGap: fs * 4,
    boxHeight: textHeight(fs) + fs * 0.5,
    marginX: 0,
    marginY: 0,
    minStroke: Math.max(0.4, fs / 25),
    maxStroke: fs * 0.45,
  }
  o.span = Math.max(fs, f.height - 2 * (lh + gap) - keyH - 2 * o.boxHeight)
  const lay = buildAlignment({
    srcWidths: input.srcTokens.map((t) => f.measure(t, fs)),
    tgtWidths: input.tgtTokens.map((t) => f.measure(t, fs)),
    attention: input.attention,
    threshold: input.threshold,
    minWidth: f.width,
    layout: o,
  })
  const box = (x: number, y: number, width: number, height: number) => ({
    type: 'rect',
    silent: true,
    shape: { x, y, width, height, r: fs * 0.25 },
    style: { fill: f.ink.background, stroke: f.ink.axis, lineWidth: Math.max(0.5, fs / 20) },
  })
  const line = (x1: number, y1: number, x2: number, y2: number, v: number) => ({
    type: 'line',
    silent: true,
    shape: { x1, y1, x2, y2 },
    style: { stroke: LINE_COLOR, lineWidth: strokeWidth(v, o), opacity: strokeOpacity(v, o), lineCap: 'round' as const },
  })
  const keyAt = keyElements(key, f.x, f.y + f.height - keyH + gap, f.width, f).elements
  const output = input.outputTitle ?? L.output
  const across = lay.width <= f.width + 1
  if (input.orient === 'across' && !across) return { animation: false, series: [], cramped: true }
  if (across && input.orient !== 'down') {
    const x0 = f.x
    const y0 = f.y + lh + gap
    const elements: GraphicElement[] = [
      textElement(L.source, f.x + f.width / 2, f.y + lh / 2, f, { align: 'center', color: f.ink.muted }),
      ...lay.lines.map((l) => line(x0 + l.x1, y0 + l.y1, x0 + l.x2, y0 + l.y2, l.weight)),
    ]
    for (const [boxes, tokens, gaps] of [
      [lay.src, input.srcTokens, input.gaps],
      [lay.tgt, input.tgtTokens, undefined],
    ] as const) {
      for (const b of boxes) {
        const gap = gaps?.has(b.i)
        if (!gap) elements.push(box(x0 + b.x, y0 + b.y, b.width, b.height))
        elements.push(textElement(tokens[b.i], x0 + b.cx, y0 + b.y + b.height / 2, f, { align: 'center', ...(gap ? { color: f.ink.muted } : {}) }))
      }
    }
    const bottom = y0 + lay.height
    elements.push(textElement(output, f.x + f.width / 2, bottom + gap + lh / 2, f, { align: 'center', color: f.ink.muted }))
    elements.push(...keyAt)
    if (!lay.lines.length) elements.push(textElement(L.noLines, f.x + f.width / 2, y0 + lay.srcY + lay.height / 2, f, { align: 'center', color: f.ink.muted }))
    return { animation: false, graphic: { elements }, series: [], cramped: o.span < 2 * fs }
  }
  // Turned: a column of source tokens on the left, of output tokens on the right, in rows as close
  // as the text allows (a box a line high), so a long sentence's words stand one under the other:
  // 16 rows on a 16:9 slide at 20 pt, half of a 25–31-word sentence's split in two.
  const rowBox = lh + fs * 0.15
  const S = input.srcTokens.length
  const T = input.tgtTokens.length
  const colW = (tokens: string[]) => Math.max(o.minBox, ...tokens.map((t) => f.measure(t, fs) + 2 * o.padX))
  const [sw, tw] = [colW(input.srcTokens), colW(input.tgtTokens)]
  const top = f.y + lh + gap
  const height = f.y + f.height - keyH - top
  const pitch = (n: number) => height / Math.max(1, n)
  const sx = f.x
  const tx = f.x + f.width - tw
  const elements: GraphicElement[] = [
    textElement(L.source, sx, f.y + lh / 2, f, { color: f.ink.muted }),
    textElement(output, f.x + f.width, f.y + lh / 2, f, { align: 'right', color: f.ink.muted }),
  ]
  const cy = (i: number, n: number) => top + (i + 0.5) * pitch(n)
  let drawn = 0
  for (let t = 0; t < T; t++)
    for (let s = 0; s < S; s++) {
      const v = input.attention[t]?.[s]
      if (typeof v !== 'number' || !Number.isFinite(v) || v < input.threshold) continue
      elements.push(line(sx + sw, cy(s, S), tx, cy(t, T), v))
      drawn++
    }
  input.srcTokens.forEach((tok, s) => {
    const gap = input.gaps?.has(s)
    if (!gap) elements.push(box(sx, cy(s, S) - rowBox / 2, sw, rowBox))
    elements.push(textElement(tok, sx + sw / 2, cy(s, S), f, { align: 'center', ...(gap ? { color: f.ink.muted } : {}) }))
  })
  input.tgtTokens.forEach((tok, t) => {
    elements.push(box(tx, cy(t, T) - rowBox / 2, tw, rowBox))
    elements.push(textElement(tok, tx + tw / 2, cy(t, T), f, { align: 'center' }))
  })
  elements.push(...keyAt)
  if (!drawn) elements.push(textElement(L.noLines, f.x + f.width / 2, top + height / 2, f, { align: 'center', color: f.ink.muted }))
  const cramped = tx - (sx + sw) < 3 * fs || Math.min(pitch(S), pitch(T)) < rowBox + fs * 0.05
  return { animation: false, graphic: { elements }, series: [], cramped }
}

/** The colour of alignment lines (the view's as well). */
export const LINE_COLOR = '#2563eb'
