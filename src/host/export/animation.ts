/**
 * Animated figures: the decoding played one decoder step a frame, as an animated GIF or PNG (APNG),
 * for a slide. Every frame is drawn by the still figures' code (figure.ts: the view's builder on a
 * page, fitted by the same rules, rasterised by resvg), so a frame is the still export of that step.
 *
 * - heatmap: frame t shows the rows of steps 1…t coloured and their output words; the rows still to
 *   come are blank and unlabelled, the newest row's label is in the accent colour, and for a local
 *   model the window and p_t are drawn on the newest row only, so they move down the map.
 * - step, local: frame t is the still figure of step t (scores → softmax → context; the spotlight).
 * - beam: frame t is the tree as it stood after step t (laid out again each frame, as it grows); the
 *   winning path is drawn in the accent colour only in the last frame, when it is known; the
 *   hypotheses pruned from the beam are left out.
 *
 * One frame per decoder step, no extra frames: the last frame is held longer by its delay. The
 * text size is one for every frame (the smallest any frame fits at), so nothing jumps. The bytes
 * depend on the data and the settings alone: same input, same file.
 *
 * Encoders: gifenc (GIF: LZW and the frame layout; the palette and the frame deltas are built in
 * animation-gif.ts) and upng-js (APNG, lossless RGBA, each frame stored as the rectangle that
 * changed), its deflate done by node's zlib.
 */
import { deflateSync } from 'node:zlib'
import UPNG from 'upng-js'
import { RefusedError } from '../../shared/errors'
import { composeFigure } from '../../shared/charts/figure'
import { fitAtSize, fitFigure, growsWithContent, type FittedFigure } from '../../shared/charts/fit'
import { INKS } from '../../shared/charts/frame'
import { wordSteps } from '../../shared/charts/figure-text'
import type { ChartOption } from '../../shared/charts/echarts-parts'
import type { AnimatedData, AnimationFormat } from '../../shared/animation'
import { pngPixels, type FigureSpec } from '../../shared/figure'
import type { BeamNode, BeamTree } from '../../shared/teaching'
import { GifFrames, hex } from './animation-gif'
import { rasterise } from './figure'
import { frameRenderer } from './frame-cells'
import { fontFiles, measureText, textRuns } from './fonts'
import { textsAsPaths } from './text-paths'

export { ANIMATED_VIEWS, ANIMATION_FORMATS, isAnimated, type AnimatedData, type AnimationFormat } from '../../shared/animation'

export interface AnimationOptions {
  format: AnimationFormat
  /** How long each step is shown, in ms (GIF keeps hundredths of a second). */
  stepMs?: number
  /** How long the last frame is shown, in ms: the hold before the animation starts again. */
  holdMs?: number
  /** A caption line per frame naming the step ("step 7: « jeune »"), under the spec's own caption. */
  captions?: boolean
  /** Called after each frame is drawn and once encoded: (done, total), total = frames + 1. */
  onProgress?: (done: number, total: number) => void
  /** Stops between frames with an AbortError. */
  signal?: AbortSignal
}

export const DEFAULT_STEP_MS = 800
export const DEFAULT_HOLD_MS = 3000

/** One frame as drawn: its SVG (layout units), the step it shows (from 0), its caption. */
export interface AnimationFrame {
  step: number
  caption: string | null
  svg: string
}

export interface AnimationPlan {
  frames: AnimationFrame[]
  /** The page every frame is drawn on (a paper figure may have grown taller) and the chart's text size. */
  spec: FigureSpec
  fontSize: number
  delays: number[]
  /** The spec the figure was fitted with (the widest caption): locateCell(data, fittedWith, s, t) finds a cell in every frame. */
  fittedWith: FigureSpec
}

/** The caption of the frame showing step `step` (from 0), which wrote `token`. */
export function stepCaption(step: number, token: string, lang: FigureSpec['lang']): string {
  const word = token.trim() || token
  return lang === 'zh' ? `第 ${step + 1} 步：« ${word} »` : `step ${step + 1}: « ${word} »`
}

/**
 * The caption of decoder step `step` (from 0) in a heatmap drawn in words: the step, and the word
 * it is a piece of, "step 6 · word 5 of 29 (pieces 6–7): « jeune »".
 */
export function wordStepCaption(step: number, k: number, words: readonly (readonly [number, number])[], token: string, lang: FigureSpec['lang']): string {
  const word = token.trim() || token
  const which = wordSteps(k, words.length, words[k], lang)
  return lang === 'zh' ? `第 ${step + 1} 步 · ${which}：« ${word} »` : `step ${step + 1} · ${which}: « ${word} »`
}

/**
 * The decoder steps of a heatmap drawn in words: for each step (a piece), the word it belongs to;
 * null where the rows are the steps themselves (pieces, or words of one piece each are still words).
 */
function wordOfStep(data: AnimatedData): number[] | null {
  const spans = data.view === 'heatmap' ? data.translation.words?.tgt : undefined
  if (!spans?.length) return null
  const of: number[] = []
  spans.forEach(([a, b], k) => {
    for (let p = a; p <= b; p++) of[p] = k
  })
  return of
}

/** The token each frame's caption names: the output's, or in a beam search the best hypothesis' at that step. */
function stepTokens(data: AnimatedData): string[] {
  if (data.view !== 'beam') return data.translation.tgtTokens
  const nodes = data.translation.beamTree?.nodes ?? []
  const steps = Math.max(-1, ...nodes.map((n) => n.step)) + 1
  return Array.from({ length: steps }, (_, t) => {
    const at = nodes.filter((n) => n.step === t && n.status !== 'pruned')
    const pick = at.find((n) => n.status === 'chosen') ?? at.reduce<BeamNode | null>((a, n) => (a === null || n.score > a.score ? n : a), null)
    return pick?.token ?? ''
  })
}

/**
 * The beam tree as it stood after step t: the hypotheses kept in the beam at steps 0…t (parents
 * renumbered), and the winning path not yet told apart from the others it was kept with, but in
 * the last frame. The pruned ones are left out of every frame: a whole tree seldom has room for
 * them, and a frame that drew them before one that cannot would flicker.
 */
export function beamAt(tree: BeamTree, t: number, last: boolean): BeamTree {
  const kept = tree.nodes.map((n, i) => [n, i] as const).filter(([n]) => n.step <= t && n.status !== 'pruned')
  const index = new Map(kept.map(([, i], k) => [i, k]))
  const nodes = kept.map(([n]) => ({
    ...n,
    parent: n.parent < 0 ? n.parent : (index.get(n.parent) ?? -1),
    status: !last && n.status === 'chosen' ? ('kept' as const) : n.status,
  }))
  return { ...tree, nodes }
}

/** The data of frame t: the step's still figure, or the beam tree grown to step t. */
function frameData(data: AnimatedData, t: number, last: boolean): AnimatedData {
  if (data.view === 'beam') return { ...data, translation: { ...data.translation, beamTree: beamAt(data.translation.beamTree!, t, last) } }
  return { ...data, step: t } as AnimatedData
}

const captionFor = (base: string | undefined, line: string | null) => (line === null ? base : base ? `${line} · ${base}` : line)

function check(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw Object.assign(new Error('The animation was cancelled.'), { name: 'AbortError' })
}

/**
 * A frame of the heatmap filling: rows 0 … filled − 1 drawn, the rest blank; row `now` labelled in
 * the accent colour and the rows after it unlabelled; the local window on row `now`. In pieces a
 * step's row is filled at once (filled = now + 1); in words a word's row is filled at its last piece.
 */
function heatmapFrame(option: ChartOption, now: number, filled: number, accent: string): ChartOption {
  const series = (option.series as Record<string, unknown>[]).map((s, i) => {
    const data = s.data as { value?: number[] }[] | number[][]
    if (i === 0) return { ...s, data: (data as { value: number[] }[]).filter((c) => c.value[1] < filled) }
    // The local overlay: [row, p_t, first, last] per row; only the newest row's window.
    return { ...s, data: (data as number[][]).filter((d) => d[0] === now) }
  })
  const yAxis = option.yAxis as Record<string, unknown> & { axisLabel: Record<string, unknown> & { formatter: (v: string) => string; rich?: object } }
  const label = yAxis.axisLabel
  const formatter = (v: string) => {
    const row = Number(v)
    if (row > now) return ''
    const text = label.formatter(v)
    return row === now ? `{now|${text.replace(/^\{sel\|(.*)\}$/, '$1')}}` : text
  }
  return {
    ...option,
    series,
    yAxis: { ...yAxis, axisLabel: { ...label, formatter, rich: { ...label.rich, now: { color: accent, fontSize: label.fontSize } } } },
  } as ChartOption
}

/** The frames of an animation, drawn as SVG on one page at one text size. */
export function planAnimation(
  data: AnimatedData,
  spec: FigureSpec,
  opts: Pick<AnimationOptions, 'captions' | 'stepMs' | 'holdMs' | 'signal'> = {},
): AnimationPlan {
  const tokens = stepTokens(data)
  // One frame per decoder step: in a heatmap drawn in words, a frame per piece of each word.
  const wordOf = wordOfStep(data)
  const T = wordOf ? wordOf.length : tokens.length
  if (T === 0) throw new RefusedError('There is nothing to animate: the translation has no output steps.')
  const captions = opts.captions !== false
  const spans = data.view === 'heatmap' ? data.translation.words?.tgt : undefined
  const lines = Array.from({ length: T }, (_, t) =>
    !captions ? null : wordOf && spans ? wordStepCaption(t, wordOf[t], spans, tokens[wordOf[t]], spec.lang) : stepCaption(t, tokens[t], spec.lang),
  )
  const grows = growsWithContent(spec)
  const ink = INKS[spec.theme === 'dark' ? 'dark' : 'light']
  // A frame's SVG: the still figure's, without the hover styles no frame shows, its repeated heatmap cells drawn once.
  const frameSvg = frameRenderer()
  let frames: AnimationFrame[]
  let page: FigureSpec
  let fontSize: number
  let fittedWith: FigureSpec
  if (data.view === 'heatmap') {
    // Fitted once, whole, with the widest caption: every frame is that figure with rows left out.
    const widest = lines.reduce<string | null>(
      (a, b) => (a === null || (b !== null && measureText(b, spec.fontSize) > measureText(a, spec.fontSize)) ? b : a),
      null,
    )
    fittedWith = { ...spec, caption: captionFor(spec.caption, widest) }
    // One figure whose rows fill in: never split into slides (issue 40's split is for still figures).
    const fit = fitFigure(data, fittedWith, measureText, frameSvg, { split: false })
    page = fit.spec
    fontSize = fit.fontSize
    frames = lines.map((line, t) => {
      check(opts.signal)
      const { option } = composeFigure(data, { ...page, caption: captionFor(spec.caption, line) }, measureText, fontSize, grows)
      const now = wordOf ? wordOf[t] : t
      const filled = wordOf && spans ? (spans[now][1] === t ? now + 1 : now) : t + 1
      return { step: t, caption: line, svg: frameSvg(heatmapFrame(option, now, filled, ink.accent), page.width, page.height) }
    })
  } else {
    // A still figure per step; then all at the smallest text and the tallest page. A step that fits
    // at the smallest size found so far is drawn at it (one attempt, not a search): the search
    // would find a size at least as large, so the smallest stays the same.
    const perStep = (t: number) => frameData(data, t, t === T - 1)
    let least = Infinity
    const fits: FittedFigure[] = lines.map((line, t) => {
      check(opts.signal)
      const s = { ...spec, caption: captionFor(spec.caption, line) }
      const fit = (least < spec.fontSize ? fitAtSize(perStep(t), s, measureText, frameSvg, least) : null) ?? fitFigure(perStep(t), s, measureText, frameSvg)
      least = Math.min(least, fit.fontSize)
      return fit
    })
    fontSize = least
    const height = Math.max(...fits.map((f) => f.spec.height))
    page = { ...fits[0].spec, height }
    fittedWith = { ...spec, caption: captionFor(spec.caption, lines[0]) }
    frames = fits.map((f, t) => {
      if (f.fontSize === fontSize && f.spec.height === height) return { step: t, caption: lines[t], svg: f.svg }
      const { option } = composeFigure(perStep(t), { ...page, caption: captionFor(spec.caption, lines[t]) }, measureText, fontSize, grows)
      return { step: t, caption: lines[t], svg: frameSvg(option, page.width, page.height) }
    })
  }
  const stepMs = opts.stepMs ?? DEFAULT_STEP_MS
  const holdMs = opts.holdMs ?? DEFAULT_HOLD_MS
  const delays = frames.map((_, i) => (i === frames.length - 1 ? holdMs : stepMs))
  return { frames, spec: page, fontSize, delays, fittedWith }
}

/**
 * The font files the frames need: the CJK ones (two large collections, which resvg reads again
 * for every frame, a third of a frame's time) only where some text has a CJK run.
 */
function framesFonts(frames: AnimationFrame[]): string[] {
  const all = fontFiles()
  const text = frames.map((f) => Array.from(f.svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g), (m) => m[1]).join('')).join('')
  const cjk = textRuns(text).some((r) => r.script === 'cjk')
  const latin = all.filter((f) => !/cjk/i.test(f))
  return cjk || latin.length === 0 ? all : latin
}

/** The animation's file, and what went into it. */
export interface Animation {
  bytes: Buffer
  frames: number
  width: number
  height: number
  delays: number[]
  plan: AnimationPlan
}

/** The animation of a figure's decoding as GIF or APNG bytes. */
export async function renderAnimation(data: AnimatedData, spec: FigureSpec, opts: AnimationOptions): Promise<Animation> {
  const plan = planAnimation(data, spec, opts)
  const { frames, delays } = plan
  const page = plan.spec
  const [width, height] = pngPixels(page)
  const total = frames.length + 1
  // The GIF keeps what changed from frame to frame as they come; the APNG (upng-js) takes whole frames.
  const gif = opts.format === 'gif' ? new GifFrames(width, height, frames.length, hex(INKS[page.theme === 'dark' ? 'dark' : 'light'].background)) : null
  const pixels: ArrayBuffer[] = []
  const files = framesFonts(frames)
  for (const [i, f] of frames.entries()) {
    check(opts.signal)
    const svg = textsAsPaths(f.svg)
    const img = rasterise(svg, page, files, svg.includes('<text'))
    if (img.width !== width || img.height !== height) throw new Error(`frame ${f.step + 1} came out ${img.width}×${img.height}, not ${width}×${height}`)
    const px = img.pixels
    if (gif) gif.add(px)
    else pixels.push(px.byteOffset === 0 && px.byteLength === px.buffer.byteLength ? (px.buffer as ArrayBuffer) : new Uint8Array(px).buffer)
    opts.onProgress?.(i + 1, total)
    // Let a cancel and other work in.
    await new Promise((r) => setImmediate(r))
  }
  check(opts.signal)
  const bytes = gif ? gif.encode(delays, page) : encodeApng(pixels, width, height, delays)
  opts.onProgress?.(total, total)
  return { bytes, frames: frames.length, width, height, delays, plan }
}

/** upng-js's per-frame step: filter the rows, deflate, keep the smallest of the filters tried. */
type FilterZero = (img: Uint8Array, h: number, bpp: number, bpl: number, data: Uint8Array) => Uint8Array
const upngEncode = UPNG.encode as unknown as {
  _filterZero: FilterZero
  _filterLine: (data: Uint8Array, img: Uint8Array, y: number, bpl: number, bpp: number, type: number) => void
}

/**
 * upng-js's own choice of filters (all five on a small frame, none and sub on a large one; none
 * on a palette image), each deflated by node's zlib instead of pako, its bundled JavaScript
 * deflate: the same file size, and a 27-frame step-through APNG in about a third less time
 * (bench/ANIMATION-RESULTS.md).
 */
const nativeFilterZero: FilterZero = (img, h, bpp, bpl, data) => {
  let best: Uint8Array | null = null
  for (let type = 0; type < 5; type++) {
    if (h * bpl > 500_000 && type >= 2 && type <= 4) continue
    for (let y = 0; y < h; y++) upngEncode._filterLine(data, img, y, bpl, bpp, type)
    const packed = deflateSync(data)
    if (!best || packed.length < best.length) best = new Uint8Array(packed)
    if (bpp === 1) break
  }
  return best!
}

/** The APNG of whole RGBA frames (upng-js reads them, it does not change them). */
function encodeApng(buffers: ArrayBuffer[], width: number, height: number, delays: number[]): Buffer {
  const own = upngEncode._filterZero
  upngEncode._filterZero = nativeFilterZero
  try {
    return Buffer.from(UPNG.encode(buffers, width, height, 0, delays))
  } finally {
    upngEncode._filterZero = own
  }
}
