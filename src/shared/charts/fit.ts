/**
 * A figure fitted to its page, or refused with one line that says what would fit.
 *
 * Every view lays itself out for a text size on a box; whether its labels then have room is read
 * back from the drawn SVG (every text's box: none outside the page, none over another, none under
 * the floor). The fitter adapts before it shrinks (issue 40), in turn: the preset's text size as
 * asked; the view's other arrangement at that size (the heatmap transposed, side by side stacked,
 * the lines down the page); the output steps split into consecutive parts at that size (a slide
 * each), else the source too where its columns are too wide for the page (a grid of parts); and
 * only where none of those fits, the largest text above the floor (14 pt on a slide),
 * said in the note. On a paper size (the width fixed by the column) the page grows taller as the
 * content asks, up to a page's text block; a slide keeps its size. What does not fit even so is
 * refused, naming what does (another page, a larger one), every one of them fitted.
 */
import type { FigureData, FigureSpec, FontPreset, SizePreset } from '../figure'
import { FONT_PRESETS, fontForSize, SIZE_PRESETS } from '../figure'
import { RefusedError } from '../errors'
import type { ChartOption, ChartSeries } from './echarts-parts'
import { composeFigure } from './figure'
import { viewDef } from './views'
import type { Measure } from './frame'
import { outside, overlap, textBoxes, type Point, type TextBox } from './text-boxes'

/** An ECharts option drawn as SVG at a page's size (layout units as pixels). */
export type RenderSvg = (option: ChartOption, width: number, height: number) => string

/** A map's series whose cells carry no text: drawn, they are no text's box, and most of ECharts' work on a map. */
const bareCells = (s: ChartSeries) => s.type === 'heatmap' && !s.label?.show && Array.isArray(s.data) && s.data.length > 0

/**
 * The option with its maps' cells left out where they carry no text, for reading its texts' boxes
 * (layoutProblems) where nothing else of the drawing is kept: presentation mode's fitting (its
 * chart then draws the option whole) and the search for what fits instead of a refused figure.
 * Every text is drawn where it is without them (axes take their categories from their own data),
 * in a fraction of the time (the forecast's 48 × 384 map: about 1 s a candidate in Node, 0.06 s
 * without). The option itself where it has no such cells.
 */
export function withoutCells(option: ChartOption): ChartOption {
  const series = Array.isArray(option.series) ? (option.series as ChartSeries[]) : [option.series as ChartSeries]
  if (!series.some(bareCells)) return option
  return { ...option, series: series.map((s) => (bareCells(s) ? { ...s, data: [] } : s)) as ChartOption['series'] }
}

const textsFirst = new WeakSet<RenderSvg>()

/**
 * `render`, marked for the fitter to judge each candidate by its texts drawn without its maps'
 * cells (withoutCells) and to draw a candidate whole only when its `svg` is read: the figure kept,
 * not the steps of the search before it. Not for a render that keeps state from one call to the
 * next (an animation's frames, frame-cells.ts), nor where every candidate's drawing is read.
 */
export function textsFirstRender(render: RenderSvg): RenderSvg {
  textsFirst.add(render)
  return render
}

/** The smallest text a figure may use: token labels and other text, and numbers inside cells. */
export interface Floors {
  label: number
  number: number
}

/** The tallest a paper figure grows: a page's text block (9 in). */
export const PAPER_MAX_HEIGHT = 648

/**
 * Paper text (8 pt) shrinks to 7 pt and its cell values to 5.25 pt; slide text (20 pt) to 14 pt
 * and cell values to ¾ of that; other sizes in proportion. Never above the size asked for.
 */
export function floorsFor(fontSize: number): Floors {
  const label = fontSize < 14 ? Math.min(fontSize, Math.max(7, fontSize * 0.875)) : fontSize * 0.7
  return { label, number: label * 0.75 }
}

const PAPER = ['paper-single', 'paper-double'] as const

/** The named preset a page is, if any. */
export function presetOf(spec: Pick<FigureSpec, 'width' | 'height'>): keyof typeof SIZE_PRESETS | null {
  for (const [name, s] of Object.entries(SIZE_PRESETS)) if (s.width === spec.width && s.height === spec.height) return name as keyof typeof SIZE_PRESETS
  return null
}

/** A paper preset: its width is the column's, its height follows the content. */
export const growsWithContent = (spec: Pick<FigureSpec, 'width' | 'height'>) => (PAPER as readonly string[]).includes(presetOf(spec) ?? '')

/**
 * Numbers as a figure writes them, set like the values in cells: a value, a tick, a score, or a
 * head's stats line ("1.04 b · d .80": numbers and their one-letter names).
 */
export const NUMBER = /^(?=.*\d)([−+-]?(\d+(\.\d+)?|\.\d+)(k|%)?|[bdaα]|[\s·:=±])+$/

const bounds = (c: Point[]) => {
  const xs = c.map((p) => p[0])
  const ys = c.map((p) => p[1])
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as const
}

/** What is wrong with a drawn figure: texts off the page, over one another, or under the floor. */
export function layoutProblems(svg: string, measure: Measure, page: { width: number; height: number }, floors: Floors, most = 5): string[] {
  const boxes = textBoxes(svg, measure)
  const problems: string[] = []
  const say = (b: TextBox) => `"${b.text}" (${+b.size.toFixed(2)} pt)`
  for (const b of boxes) {
    if (outside(b.corners, page)) problems.push(`${say(b)} leaves the page`)
    const floor = NUMBER.test(b.text.trim()) ? floors.number : floors.label
    if (b.size < floor - 0.01) problems.push(`${say(b)} is under ${floor} pt`)
    if (problems.length >= most) return problems
  }
  // Neighbours by a grid of buckets, so a 45 × 45 map's values are not all compared pairwise.
  const cell = 24
  const grid = new Map<string, number[]>()
  const boxBounds = boxes.map((b) => bounds(b.corners))
  boxBounds.forEach(([x0, y0, x1, y1], i) => {
    for (let gx = Math.floor(x0 / cell); gx <= Math.floor(x1 / cell); gx++)
      for (let gy = Math.floor(y0 / cell); gy <= Math.floor(y1 / cell); gy++) {
        const key = `${gx},${gy}`
        const list = grid.get(key)
        if (list) list.push(i)
        else grid.set(key, [i])
      }
  })
  const seen = new Set<string>()
  for (const list of grid.values()) {
    for (let a = 0; a < list.length; a++)
      for (let b = a + 1; b < list.length; b++) {
        const [i, j] = [list[a], list[b]]
        const key = `${i} ${j}`
        if (seen.has(key)) continue
        seen.add(key)
        const [p, q] = [boxBounds[i], boxBounds[j]]
        if (p[2] <= q[0] || q[2] <= p[0] || p[3] <= q[1] || q[3] <= p[1]) continue
        if (overlap(boxes[i].corners, boxes[j].corners)) problems.push(`${say(boxes[i])} overlaps ${say(boxes[j])}`)
        if (problems.length >= most) return problems
      }
  }
  return problems
}

export interface FittedFigure {
  option: ChartOption
  /** The page as drawn: a paper figure may be taller than asked. */
  spec: FigureSpec
  /** The chart's text size (the title and caption keep the spec's). */
  fontSize: number
  svg: string
  /** Drawn the view's other way (the heatmap transposed, side by side stacked, the lines down the page). */
  alternative: boolean
  /** What the fitter did, in the figure's language ("set at 16 pt to fit; transposed"), or null: as asked. */
  note: string | null
  /**
   * A figure split into consecutive parts at the asked text size (one slide each): every part
   * fitted, the first of them being this figure's option and svg. Absent: one figure.
   */
  parts?: FittedPart[]
}

/**
 * One part of a split figure: its data (with its output steps `rows` and source positions `cols`,
 * or the piece of the view it draws), its fit, and what it is, as the note and the CLI name it
 * ("steps 1–14", "steps 1–12 · source 1–17", "stage 4").
 */
export interface FittedPart {
  /** Output steps [first, end), where the part is some of them. */
  rows?: [number, number]
  /** Source positions [first, end), where the part is some of them. */
  cols?: [number, number]
  label: string
  data: FigureData
  fit: FittedFigure
}

/**
 * A split figure's parts in a line: "steps 1–11, 12–21" for output steps alone, "steps 1–12, 13–24 ×
 * source 1–17, 18–34" for a grid of them and source positions, else each part's label ("stages 1–3; stage 4").
 */
export function partsSummary(parts: readonly FittedPart[], lang: FigureSpec['lang'] = 'en'): string {
  const zh = lang === 'zh'
  if (parts.every((p) => p.rows && !p.cols && p.label === stepsLabel(p.rows, lang)))
    return stepsLabel(
      parts.map((p) => p.rows!),
      lang,
    )
  const grid = gridOf(parts, lang)
  if (grid) return grid
  return parts.map((p) => p.label).join(zh ? '；' : '; ')
}

const spans = (parts: readonly (readonly [number, number])[], zh: boolean) => parts.map(([a, b]) => `${a + 1}–${b}`).join(zh ? '、' : ', ')

/** Parts of output steps, named: "steps 1–14" (one part), "steps 1–14, 15–28". */
function stepsLabel(rows: readonly (readonly [number, number])[] | readonly [number, number], lang: FigureSpec['lang']): string {
  const all = (typeof rows[0] === 'number' ? [rows] : rows) as (readonly [number, number])[]
  return lang === 'zh' ? `第 ${spans(all, true)} 步` : `steps ${spans(all, false)}`
}

/** Parts of source positions, named: "source 1–17", "source 1–17, 18–34". */
const sourceLabel = (cols: readonly (readonly [number, number])[], lang: FigureSpec['lang']) =>
  lang === 'zh' ? `源语言第 ${spans(cols, true)} 个` : `source ${spans(cols, false)}`

/** A part of a grid, named by its output steps (where it is some of them) and its source positions: "steps 1–12 · source 1–17". */
const gridLabel = (rows: [number, number] | undefined, cols: [number, number], lang: FigureSpec['lang']) =>
  [rows && stepsLabel(rows, lang), sourceLabel([cols], lang)].filter(Boolean).join(' · ')

/** Parts that are a whole grid of output steps × source positions, in a line ("steps 1–12, 13–24 × source 1–17, 18–34"), or null. */
function gridOf(parts: readonly FittedPart[], lang: FigureSpec['lang']): string | null {
  if (!parts.every((p) => p.cols && p.label === gridLabel(p.rows, p.cols, lang))) return null
  const key = (r: readonly [number, number] | undefined) => (r ? r.join('-') : '')
  const rows = [...new Map(parts.map((p) => [key(p.rows), p.rows])).values()]
  const cols = [...new Map(parts.map((p) => [key(p.cols), p.cols!])).values()]
  if (rows.length * cols.length !== parts.length) return null
  const steps = rows.every((r) => r) ? `${stepsLabel(rows as [number, number][], lang)} × ` : ''
  return `${steps}${sourceLabel(cols, lang)}`
}

/**
 * Something else that fits where the figure as asked does not, found by fitting it: smaller text
 * (a text-size preset), another page, or the output steps split into two figures.
 */
export interface FitAlternative {
  /** "fits at 12 pt", "fits on paper-double", "split into two slides: steps 1–14 and 15–28" */
  label: string
  /** The text-size preset to choose. */
  font?: FontPreset
  /** The text size in points, where no preset has it (a slide's 16 pt). */
  fontSize?: number
  /** The page to choose: a size preset (with its own text size), or a custom size in points. */
  size?: { preset: SizePreset; width: number; height: number }
  /** The output steps of each part, [first, end) (data.rows of each figure). */
  parts?: [number, number][]
  /** The CLI's options for it. */
  options: string
}

/** `strict`: the preset's text size and the view's usual arrangement only; `alternatives: false`: refuse without looking for any. */
export interface FitOptions {
  strict?: boolean
  alternatives?: boolean
  /**
   * `false`: one figure only, never split into parts (an animation, whose frames are one figure):
   * where the view's two arrangements do not fit at the asked size, the largest text above the
   * floor, said in the note.
   */
  split?: boolean
}

/** How many tokens a view carries, for the refusal's wording. */
function tokensOf(data: FigureData): number | null {
  switch (data.view) {
    case 'corpus':
    case 'forecast':
      return null
    case 'comparison':
      return Math.max(0, ...data.translations.map((t) => t.srcTokens.length))
    case 'whatif':
      return data.result.modified.srcTokens.length
    case 'sidebyside':
      return Math.max(data.a.srcTokens.length, data.b.srcTokens.length)
    case 'goldlinks':
      return data.srcWords.length
    case 'occlusion':
      return data.occlusion.srcWords.length
    default:
      return data.translation.srcTokens.length
  }
}

const VIEW_NAMES: Record<FigureData['view'], string> = {
  heatmap: 'The heatmap',
  local: 'The local attention figure',
  positions: 'The pₜ plot',
  step: 'The step-through figure',
  lines: 'The alignment lines',
  comparison: 'The with / without figure',
  whatif: 'The what-if figure',
  corpus: 'The BLEU-by-length figure',
  forecast: 'The forecast figure',
  sidebyside: 'Side by side',
  beam: 'The beam tree',
  heads: 'The heads figure',
  goldlinks: 'The gold alignment figure',
  occlusion: 'The occlusion figure',
  contributions: 'The contributions figure',
}

const fmt = (pt: number) => +pt.toFixed(1)
const inches = (pt: number) => +(pt / 72).toFixed(2)

/** The other arrangement's name for a note, or null when the view has none for this figure. */
function alternativeName(data: FigureData, spec: FigureSpec): { en: string; zh: string } | null {
  const alt = viewDef(data.view)?.alternative as { names: { en: string; zh: string }; offered?: (d: FigureData, s: FigureSpec) => boolean } | undefined
  return alt && (alt.offered?.(data, spec) ?? true) ? alt.names : null
}

/** What the fitter did, as the dialog shows it and the CLI prints it; null when nothing. */
export function fitNote(fit: Pick<FittedFigure, 'fontSize' | 'alternative'>, data: FigureData, spec: FigureSpec): string | null {
  const zh = spec.lang === 'zh'
  const smaller = fit.fontSize < spec.fontSize - 1e-6
  const name = fit.alternative ? alternativeName(data, spec)?.[zh ? 'zh' : 'en'] : null
  if (!smaller && !name) return null
  if (zh) return [smaller ? `为放下改用 ${fmt(fit.fontSize)} pt` : null, name].filter(Boolean).join('；')
  if (!smaller) return `${name} to fit`
  return [`set at ${fmt(fit.fontSize)} pt to fit`, name].filter(Boolean).join('; ')
}

/** The one line a refused figure says: what did not fit, and what does (each one fitted). */
export function refusal(data: FigureData, spec: FigureSpec, alternatives: readonly FitAlternative[] = [], strict = false): string {
  const floors = floorsFor(spec.fontSize)
  const n = tokensOf(data)
  const page = presetOf(spec) ?? `${inches(spec.width)} × ${inches(spec.height)} in`
  const pieces = viewDef(data.view)?.pieces as ((d: FigureData) => unknown[] | null) | undefined
  const splits = splittable(data) || sourcesOf(data) >= 2 || !!pieces?.(data)?.length
  const text = strict
    ? `${fmt(spec.fontSize)} pt text laid out the usual way`
    : `text of at least ${fmt(floors.label)} pt${splits ? `, either way round or split into ${page.startsWith('slide') ? 'slides' : 'figures'}` : ''}`
  const what = `${VIEW_NAMES[data.view]}${n === null ? '' : ` of ${n} tokens`} cannot fit ${page} with ${text}`
  return alternatives.length ? `${what}; try: ${alternatives.map((a) => a.label).join('; ')}.` : `${what}, and nothing tried instead fits.`
}

/** Text sizes from the asked one down to the floor: whole points on a slide, half points on paper. */
function sizesBetween(asked: number, floor: number): number[] {
  const step = asked >= 14 ? 1 : 0.5
  const out: number[] = []
  for (let s = Math.ceil(asked / step - 1e-9) * step - step; s > floor + 1e-6; s -= step) out.push(+s.toFixed(3))
  return [...out, +floor.toFixed(3)]
}

/** The output steps of a figure that can be split into parts, or 0 (a view of one step, or already a part). */
export function stepsOf(data: FigureData): number {
  if ('rows' in data && data.rows) return 0
  return (viewDef(data.view)?.steps as ((d: FigureData) => number) | undefined)?.(data) ?? 0
}

/** Whether a figure can be split into parts of consecutive output steps. */
export const splittable = (data: FigureData) => stepsOf(data) >= 2

/** The source positions of a figure that can be split across its source, or 0 (a view that cannot, or already a part of it). */
export function sourcesOf(data: FigureData): number {
  if ('cols' in data && data.cols) return 0
  return (viewDef(data.view)?.sources as ((d: FigureData) => number) | undefined)?.(data) ?? 0
}

/** The output steps [0, steps) in k consecutive parts, as even as can be. */
export function evenParts(steps: number, k: number): [number, number][] {
  return Array.from({ length: k }, (_, i) => [Math.round((i * steps) / k), Math.round(((i + 1) * steps) / k)] as [number, number])
}

/**
 * The most parts a figure is split into: beyond that a slide holds too few steps to read as one
 * figure. Eight: side by side of a 25-word sentence (38 output steps) is five steps a slide at 20 pt.
 */
export const MOST_PARTS = 8

/**
 * The most parts of a figure cut both ways, along its source and its output steps: three by three.
 * A 31-word side by side (34 source words, 34 steps, two maps a slide) fits at 20 pt in thirds of
 * each and in nothing of eight parts or fewer (issue 40 #1: a split rather than a refusal).
 */
export const MOST_GRID_PARTS = 9

/**
 * The figure fitted, or null: (a) the preset's text size; (b) the view's other arrangement at
 * that size; (c) where `shrink`, the largest text above the floor either way. On paper each is on
 * the lowest page from the one asked up to a page's text block.
 */
function fitOrNull(
  data: FigureData,
  spec: FigureSpec,
  measure: Measure,
  render: RenderSvg,
  strict = false,
  shrink = !strict,
  only?: number,
): FittedFigure | null {
  const floors = floorsFor(spec.fontSize)
  const floor = +floors.label.toFixed(3)
  const grow = growsWithContent(spec)
  const tallest = grow ? Math.max(spec.height, PAPER_MAX_HEIGHT) : spec.height
  const other = !strict && alternativeName(data, spec) !== null
  const attempt = (fontSize: number, height: number, alternative: boolean): FittedFigure | null => {
    const s = { ...spec, height }
    const { option, cramped, fallback } = composeFigure(data, s, measure, fontSize, grow, alternative)
    // A layout that leaves a part out is a last resort: larger text with everything comes first;
    // but a part of a split figure (some output steps, on a slide of its own) is at the text size
    // asked or not at all, and may leave out what its own note says it leaves out.
    const part = ('rows' in data && !!data.rows) || ('cols' in data && !!data.cols)
    if (cramped || (fallback && fontSize > floor && !part)) return null
    const texts = textsFirst.has(render) ? withoutCells(option) : option
    const checked = render(texts, s.width, s.height)
    if (layoutProblems(checked, measure, s, floors, 1).length) return null
    const note = fitNote({ fontSize, alternative }, data, spec)
    if (texts === option) return { option, spec: s, fontSize, svg: checked, alternative, note }
    // Drawn whole when its drawing is asked for: most candidates that fit are steps of a search.
    let whole: string | undefined
    return {
      option,
      spec: s,
      fontSize,
      get svg() {
        return (whole ??= render(option, s.width, s.height))
      },
      alternative,
      note,
    }
  }
  /** The lowest page that fits at this text size, given one that does (to within 10 %). */
  const lowest = (fits: FittedFigure): FittedFigure => {
    let best = fits
    let [lo, hi] = [spec.height, fits.spec.height]
    while (hi / lo > 1.1) {
      const h = Math.round((lo + hi) / 2)
      const got = attempt(fits.fontSize, h, fits.alternative)
      if (got) [best, hi] = [got, h]
      else lo = h
    }
    return best
  }
  /** The page as asked, else (paper) the lowest that fits. */
  const at = (fontSize: number, alternative: boolean): FittedFigure | null => {
    const asked = attempt(fontSize, spec.height, alternative)
    if (asked || !grow) return asked
    const tall = attempt(fontSize, tallest, alternative)
    return tall && lowest(tall)
  }
  if (only !== undefined) return at(only, false) ?? (other ? at(only, true) : null)
  const asked = at(spec.fontSize, false) ?? (other ? at(spec.fontSize, true) : null)
  if (asked || !shrink || floor >= spec.fontSize) return asked
  // The largest size that fits, each arrangement searched by halves (a size that fits, the next
  // larger that does not); the usual arrangement where both fit at the same size.
  const sizes = sizesBetween(spec.fontSize, floor)
  let best: FittedFigure | null = null
  for (const alternative of other ? [false, true] : [false]) {
    const atFloor = attempt(floor, tallest, alternative)
    if (!atFloor) continue
    let fits: FittedFigure = atFloor
    let [lo, hi] = [sizes.length - 1, -1]
    while (lo - hi > 1) {
      const mid = Math.floor((lo + hi) / 2)
      const got: FittedFigure | null = sizes[mid] > (best?.fontSize ?? 0) ? attempt(sizes[mid], tallest, alternative) : null
      if (got) [fits, lo] = [got, mid]
      else hi = mid
    }
    if (!best || fits.fontSize > best.fontSize) best = fits
  }
  return best && (grow ? lowest(best) : best)
}

/**
 * The figure at one text size (either arrangement), judged by the floors of the size asked, or
 * null. Where a figure fits at some size it fits at every smaller one the search tries, so an
 * animation fits its other frames at the smallest size found so far with one attempt each.
 */
export function fitAtSize(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg, fontSize: number): FittedFigure | null {
  return fitOrNull(data, spec, measure, render, false, false, fontSize)
}

/** The note of a split figure: how many parts, which they are, and the arrangement where it is the other one. */
function splitNote(data: FigureData, spec: FigureSpec, parts: FittedPart[]): string {
  const zh = spec.lang === 'zh'
  const slides = (presetOf(spec) ?? '').startsWith('slide')
  const which = partsSummary(parts, spec.lang)
  const alt = parts.some((p) => p.fit.alternative) ? alternativeName(data, spec)?.[zh ? 'zh' : 'en'] : null
  if (zh) return [`分成 ${parts.length} ${slides ? '张幻灯片' : '幅图'}：${which}`, alt].filter(Boolean).join('；')
  const what = slides ? 'slides' : 'figures'
  return [`split into ${parts.length} ${what} to fit at ${fmt(spec.fontSize)} pt: ${which}`, alt].filter(Boolean).join('; ')
}

/**
 * The figure as consecutive parts of its output steps, each at the text size asked (the usual
 * arrangement, else the other one), in as few parts as fit, up to MOST_PARTS; or null.
 */
function splitOrNull(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg): FittedFigure | null {
  const steps = stepsOf(data)
  const most = Math.min(MOST_PARTS, steps)
  // Where the first of the most parts does not fit, fewer (larger) parts will not either.
  if (most < 2 || !fitOrNull({ ...data, rows: evenParts(steps, most)[0] } as FigureData, spec, measure, render, false, false)) return null
  for (let k = 2; k <= most; k++) {
    const parts: FittedPart[] = []
    for (const rows of evenParts(steps, k)) {
      const part = { ...data, rows } as FigureData
      const fit = fitOrNull(part, spec, measure, render, false, false)
      if (!fit) break
      parts.push({ rows, label: stepsLabel(rows, spec.lang), data: part, fit })
    }
    if (parts.length < k) continue
    const note = splitNote(data, spec, parts)
    return { ...parts[0].fit, note, parts }
  }
  return null
}

/**
 * The figure as a grid of parts where its source is too wide for the page (viewDef.sources): the
 * source in c consecutive parts, each of them in r parts of the output steps as needed, each part
 * at the text size asked; the fewest parts first (c·r ≤ MOST_GRID_PARTS), of fewer source parts where
 * as many; in reading order (steps, then source). Null where no grid fits.
 */
function gridOrNull(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg): FittedFigure | null {
  const sources = sourcesOf(data)
  if (sources < 2) return null
  const steps = stepsOf(data)
  const fits = new Map<string, FittedFigure | null>()
  const part = (rows: [number, number] | undefined, cols: [number, number]) => ({ ...data, ...(rows ? { rows } : {}), cols }) as FigureData
  const fitPart = (rows: [number, number] | undefined, cols: [number, number]) => {
    const key = `${rows ?? ''}|${cols}`
    if (!fits.has(key)) fits.set(key, fitOrNull(part(rows, cols), spec, measure, render, false, false))
    return fits.get(key)!
  }
  const rowsIn = (r: number) => (r > 1 ? evenParts(steps, r) : [undefined])
  const grids: [number, number][] = []
  for (let c = 2; c <= Math.min(MOST_GRID_PARTS, sources); c++)
    for (let r = 1; r <= Math.min(Math.floor(MOST_GRID_PARTS / c), Math.max(1, steps)); r++) grids.push([c, r])
  grids.sort(([c0, r0], [c1, r1]) => c0 * r0 - c1 * r1 || c0 - c1)
  // Where a source part with its first output steps of the most parts does not fit, fewer (longer) step parts will not either.
  const hopeless = new Map<number, boolean>()
  for (const [c, r] of grids) {
    const cols = evenParts(sources, c)
    if (!hopeless.has(c)) {
      const widest = cols.reduce((w, p) => (p[1] - p[0] > w[1] - w[0] ? p : w))
      hopeless.set(c, !fitPart(rowsIn(Math.min(Math.floor(MOST_GRID_PARTS / c), Math.max(1, steps)))[0], widest))
    }
    if (hopeless.get(c)) continue
    const parts: FittedPart[] = []
    grid: for (const rows of rowsIn(r))
      for (const span of cols) {
        const fit = fitPart(rows, span)
        if (!fit) break grid
        parts.push({ ...(rows ? { rows } : {}), cols: span, label: gridLabel(rows, span, spec.lang), data: part(rows, span), fit })
      }
    if (parts.length === c * r) return { ...parts[0].fit, note: splitNote(data, spec, parts), parts }
  }
  return null
}

/**
 * The figure as the view's own pieces (viewDef.pieces: the step-through's stages, the heads' average
 * and grid), each on its slide at the text size asked, a piece too long for one slide split by its
 * output steps; or null where any piece fits in neither way, or they come to more than MOST_PARTS.
 */
function piecesOrNull(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg): FittedFigure | null {
  const pieces = (viewDef(data.view)?.pieces as ((d: FigureData) => { data: FigureData; names: { en: string; zh: string } }[] | null) | undefined)?.(data)
  if (!pieces?.length) return null
  const parts: FittedPart[] = []
  const sep = spec.lang === 'zh' ? '，' : ', '
  for (const piece of pieces) {
    const name = piece.names[spec.lang]
    const whole = fitOrNull(piece.data, spec, measure, render, false, false)
    if (whole) {
      parts.push({ label: name, data: piece.data, fit: whole })
      continue
    }
    const split = splittable(piece.data) ? splitOrNull(piece.data, spec, measure, render) : null
    if (!split?.parts) return null
    parts.push(...split.parts.map((p) => ({ ...p, label: `${name}${sep}${p.label}` })))
  }
  if (parts.length > MOST_PARTS) return null
  return { ...parts[0].fit, note: splitNote(data, spec, parts), parts }
}

/**
 * The figure as asked or the view's other way at the asked text size; else split into parts at
 * that size: its output steps, else its source and output steps (a grid), else the view's own pieces; else (a view of one step, or one whose
 * parts do not fit either) the largest text above the floor, said in the note, never silently.
 */
function fitAuto(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg, split = true): FittedFigure | null {
  if (!split) return fitOrNull(data, spec, measure, render)
  const asked = fitOrNull(data, spec, measure, render, false, false)
  if (asked) return asked
  return (
    (splittable(data) ? splitOrNull(data, spec, measure, render) : null) ??
    gridOrNull(data, spec, measure, render) ??
    piecesOrNull(data, spec, measure, render) ??
    fitOrNull(data, spec, measure, render)
  )
}

/** The page presets a figure refused on one page might fit on instead, in the order offered. */
const OTHER_PAGES: Record<string, (keyof typeof SIZE_PRESETS)[]> = {
  'slide-16x9': ['paper-double'],
  'slide-4x3': ['slide-16x9', 'paper-double'],
  'paper-single': ['paper-double'],
  'paper-double': [],
  custom: ['paper-double', 'slide-16x9'],
}

/**
 * What does fit where the figure as asked does not, each one fitted, not guessed: smaller text
 * (never under the size's floor, 14 pt on a slide), another page, or a larger page.
 */
export function fitAlternatives(data: FigureData, spec: FigureSpec, measure: Measure, draw: RenderSvg): FitAlternative[] {
  // Whether each fits is all that is kept of it: its texts are drawn, not its maps' cells.
  const render: RenderSvg = (option, width, height) => draw(withoutCells(option), width, height)
  const out: FitAlternative[] = []
  // Smaller text: the largest size from the one asked down to the floor at which it fits whole.
  const smaller = fitOrNull(data, spec, measure, render, false, true)
  if (smaller && smaller.fontSize < spec.fontSize) {
    const way = smaller.alternative ? `, ${alternativeName(data, spec)?.en}` : ''
    const preset = Object.entries(FONT_PRESETS).find(([, size]) => size === smaller.fontSize)?.[0] as FontPreset | undefined
    out.push({
      label: `fits at ${fmt(smaller.fontSize)} pt${way}`,
      ...(preset ? { font: preset } : {}),
      fontSize: smaller.fontSize,
      options: `--font ${preset ?? fmt(smaller.fontSize)}`,
    })
  }
  // Another page, with its own text size.
  const here = presetOf(spec) ?? 'custom'
  for (const p of OTHER_PAGES[here]) {
    const s = { ...spec, ...SIZE_PRESETS[p], fontSize: FONT_PRESETS[fontForSize(p)] }
    if (fitAuto(data, s, measure, render)) out.push({ label: `fits on ${p}`, size: { preset: p, ...SIZE_PRESETS[p] }, options: `--size ${p}` })
  }
  // Where nothing else does: a larger page at the text size asked.
  for (const k of out.length ? [] : [1.5, 2, 3]) {
    const size = {
      preset: 'custom' as const,
      width: Math.round(spec.width * k),
      height: Math.round((growsWithContent(spec) ? PAPER_MAX_HEIGHT : spec.height) * k),
    }
    if (size.width > 6000 || size.height > 6000 || !fitOrNull(data, { ...spec, width: size.width, height: size.height }, measure, render, false, false))
      continue
    out.push({
      label: `fits on a ${inches(size.width)} × ${inches(size.height)} in page`,
      size,
      options: `--size ${inches(size.width)}x${inches(size.height)}in`,
    })
    break
  }
  return out
}

/**
 * The figure fitted, adapting before anything else: as asked; the view's other arrangement at the
 * preset's text size; the output steps split into consecutive parts at that size (`parts`, one
 * slide each), and the source too where that is not enough; and only for a view that cannot split (one step's figure), the largest text above
 * the floor, said in the note. On paper each is on the lowest page that fits. Throws a
 * RefusedError naming what does fit (its details: `{ alternatives }`) when nothing does: smaller
 * text is one of those, never chosen silently for a figure that could split.
 */
export function fitFigure(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg, options: FitOptions = {}): FittedFigure {
  const fit = options.strict ? fitOrNull(data, spec, measure, render, true) : fitAuto(data, spec, measure, render, options.split !== false)
  if (fit) return fit
  const auto = options.strict && options.alternatives !== false ? fitAuto(data, spec, measure, render) : null
  const alternatives: FitAlternative[] = auto
    ? [{ label: `fits when adapted (${auto.note})`, options: '--fit auto' }]
    : options.alternatives === false
      ? []
      : fitAlternatives(data, spec, measure, render)
  throw new RefusedError(refusal(data, spec, alternatives, options.strict), { alternatives })
}
