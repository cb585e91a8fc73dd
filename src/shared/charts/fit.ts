/**
 * A figure fitted to its page, or refused with one line that says what would fit.
 *
 * Every view lays itself out for a text size on a box; whether its labels then have room is read
 * back from the drawn SVG (every text's box: none outside the page, none over another, none under
 * the floor). The fitter tries, in turn, the preset's text size, the view's other arrangement at
 * that size (the heatmap transposed, side by side stacked, the lines down the page), and the
 * largest text above the floor either way; on a paper size (the width fixed by the column) the
 * page grows taller as the content asks, up to a page's text block. A slide keeps its size. What
 * does not fit is refused, naming what does: smaller text, another page, or two figures of half
 * the output steps each, every one of them fitted.
 */
import type { FigureData, FigureSpec, FontPreset, SizePreset } from '../figure'
import { FONT_PRESETS, fontForSize, SIZE_PRESETS } from '../figure'
import { RefusedError } from '../errors'
import type { ChartOption } from './echarts-parts'
import { composeFigure } from './figure'
import { viewDef } from './views'
import type { Measure } from './frame'
import { outside, overlap, textBoxes, type Point, type TextBox } from './text-boxes'

/** An ECharts option drawn as SVG at a page's size (layout units as pixels). */
export type RenderSvg = (option: ChartOption, width: number, height: number) => string

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
  const text = strict ? `${fmt(spec.fontSize)} pt text laid out the usual way` : `text of at least ${fmt(floors.label)} pt`
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

/**
 * The figure fitted, or null: (a) the preset's text size; (b) the view's other arrangement at
 * that size; (c) the largest text above the floor either way. On paper each is on the lowest page
 * from the one asked up to a page's text block.
 */
function fitOrNull(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg, strict = false): FittedFigure | null {
  const floors = floorsFor(spec.fontSize)
  const floor = +floors.label.toFixed(3)
  const grow = growsWithContent(spec)
  const tallest = grow ? Math.max(spec.height, PAPER_MAX_HEIGHT) : spec.height
  const other = !strict && alternativeName(data, spec) !== null
  const attempt = (fontSize: number, height: number, alternative: boolean): FittedFigure | null => {
    const s = { ...spec, height }
    const { option, cramped, fallback } = composeFigure(data, s, measure, fontSize, grow, alternative)
    // A layout that leaves a part out is a last resort: larger text with everything comes first.
    if (cramped || (fallback && fontSize > floor)) return null
    const svg = render(option, s.width, s.height)
    if (layoutProblems(svg, measure, s, floors, 1).length) return null
    const fit = { option, spec: s, fontSize, svg, alternative }
    return { ...fit, note: fitNote(fit, data, spec) }
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
  const asked = at(spec.fontSize, false) ?? (other ? at(spec.fontSize, true) : null)
  if (asked || strict || floor >= spec.fontSize) return asked
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

/** The page presets a figure refused on one page might fit on instead, in the order offered. */
const OTHER_PAGES: Record<string, (keyof typeof SIZE_PRESETS)[]> = {
  'slide-16x9': ['paper-double'],
  'slide-4x3': ['slide-16x9', 'paper-double'],
  'paper-single': ['paper-double'],
  'paper-double': [],
  custom: ['paper-double', 'slide-16x9'],
}

/** What does fit where the figure as asked does not: each one fitted, not guessed. */
export function fitAlternatives(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg): FitAlternative[] {
  const out: FitAlternative[] = []
  const fits = (d: FigureData, s: FigureSpec) => fitOrNull(d, s, measure, render)
  // Smaller text: the largest text-size preset under the size asked.
  for (const [font, size] of Object.entries(FONT_PRESETS).sort((x, y) => y[1] - x[1])) {
    if (size >= spec.fontSize) continue
    const got = fits(data, { ...spec, fontSize: size })
    if (!got) continue
    const way = got.alternative ? `, ${alternativeName(data, spec)?.en}` : ''
    out.push({ label: `fits at ${fmt(got.fontSize)} pt${way}`, font: font as FontPreset, options: `--font ${font}` })
    break
  }
  // Another page, with its own text size.
  const here = presetOf(spec) ?? 'custom'
  for (const p of OTHER_PAGES[here]) {
    const s = { ...spec, ...SIZE_PRESETS[p], fontSize: FONT_PRESETS[fontForSize(p)] }
    if (fits(data, s)) out.push({ label: `fits on ${p}`, size: { preset: p, ...SIZE_PRESETS[p] }, options: `--size ${p}` })
  }
  // The output steps in two figures.
  const steps = (viewDef(data.view)?.steps as ((d: FigureData) => number) | undefined)?.(data) ?? 0
  if (steps >= 4 && !('rows' in data && data.rows)) {
    const half = Math.ceil(steps / 2)
    const parts: [number, number][] = [
      [0, half],
      [half, steps],
    ]
    if (parts.every((rows) => fits({ ...data, rows } as FigureData, spec))) {
      const what = here.startsWith('slide') ? 'slides' : 'figures'
      out.push({
        label: `split into two ${what}: steps 1–${half} and ${half + 1}–${steps}`,
        parts,
        options: `--rows 1-${half}, then --rows ${half + 1}-${steps}`,
      })
    }
  }
  // Where nothing else does: a larger page at the text size asked.
  for (const k of out.length ? [] : [1.5, 2, 3]) {
    const size = {
      preset: 'custom' as const,
      width: Math.round(spec.width * k),
      height: Math.round((growsWithContent(spec) ? PAPER_MAX_HEIGHT : spec.height) * k),
    }
    if (size.width > 6000 || size.height > 6000 || !fits(data, { ...spec, width: size.width, height: size.height })) continue
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
 * The figure at the largest text size (preset down to the floor), the view's usual arrangement
 * before its other one at each size, and on paper the lowest page at which nothing is off the
 * page, over another text or under the floor. Throws a RefusedError naming what does fit (its
 * details: `{ alternatives }`) when nothing does.
 */
export function fitFigure(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg, options: FitOptions = {}): FittedFigure {
  const fit = fitOrNull(data, spec, measure, render, options.strict)
  if (fit) return fit
  const auto = options.strict && options.alternatives !== false ? fitOrNull(data, spec, measure, render) : null
  const alternatives: FitAlternative[] = auto
    ? [{ label: `fits when adapted (${auto.note})`, options: '--fit auto' }]
    : options.alternatives === false
      ? []
      : fitAlternatives(data, spec, measure, render)
  throw new RefusedError(refusal(data, spec, alternatives, options.strict), { alternatives })
}
