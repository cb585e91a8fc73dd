/**
 * A figure fitted to its page, or refused with one line that says what would fit.
 *
 * Every view lays itself out for a text size on a box; whether its labels then have room is read
 * back from the drawn SVG (every text's box: none outside the page, none over another, none under
 * the floor). The fitter tries the preset's text size first and shrinks it only down to a floor;
 * on a paper size (the width fixed by the column) the page grows taller as the content asks, up
 * to a page's text block: the preset's text on a taller page comes before smaller text. A slide keeps its size: what does not fit there is refused.
 */
import type { FigureData, FigureSpec } from '../figure'
import { SIZE_PRESETS } from '../figure'
import { RefusedError } from '../errors'
import type { ChartOption } from './echarts-parts'
import { composeFigure } from './figure'
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

/** What else would fit, for the refusal. */
function alternatives(data: FigureData, spec: FigureSpec): string[] {
  const preset = presetOf(spec)
  const out: string[] = []
  if (preset === 'paper-single' || preset?.startsWith('slide')) out.push('paper-double')
  out.push(preset === 'paper-double' || preset === 'paper-single' ? 'a wider custom size' : 'a taller custom size')
  if (data.view === 'beam') out.push('the heatmap instead of the tree')
  if (data.view === 'lines') out.push('the heatmap instead of the lines')
  if (data.view === 'heads' && !data.head) out.push('one head instead of the grid')
  if (data.view === 'forecast') out.push('fewer steps')
  if (data.view === 'comparison') out.push('fewer models')
  if (data.view !== 'corpus' && data.view !== 'forecast') out.push('a shorter sentence')
  return out
}

/** The one line a refused figure says: what did not fit, and what would. */
export function refusal(data: FigureData, spec: FigureSpec): string {
  const floors = floorsFor(spec.fontSize)
  const n = tokensOf(data)
  const page = presetOf(spec) ?? `${+spec.width.toFixed(1)} × ${+spec.height.toFixed(1)} pt`
  const alt = alternatives(data, spec)
  const list = alt.length > 1 ? `${alt.slice(0, -1).join(', ')} or ${alt[alt.length - 1]}` : alt[0]
  return `${VIEW_NAMES[data.view]}${n === null ? '' : ` of ${n} tokens`} cannot fit ${page} with text of at least ${+floors.label.toFixed(2)} pt; try ${list}.`
}

/**
 * The figure at the largest text size (preset down to the floor) and, on paper, the smallest
 * height at which nothing is off the page, over another text or under the floor. Throws a
 * RefusedError with `refusal()` when none is.
 */
export function fitFigure(data: FigureData, spec: FigureSpec, measure: Measure, render: RenderSvg): FittedFigure {
  const floors = floorsFor(spec.fontSize)
  const floor = +floors.label.toFixed(3)
  const mid = +((spec.fontSize + floors.label) / 2).toFixed(3)
  const grow = growsWithContent(spec)
  const tallest = grow ? Math.max(spec.height, PAPER_MAX_HEIGHT) : spec.height
  const attempt = (fontSize: number, height: number): FittedFigure | null => {
    const s = { ...spec, height }
    const { option, cramped, fallback } = composeFigure(data, s, measure, fontSize, grow)
    // A layout that leaves a part out is a last resort: larger text with everything comes first.
    if (cramped || (fallback && fontSize > floor)) return null
    const svg = render(option, s.width, s.height)
    return layoutProblems(svg, measure, s, floors, 1).length ? null : { option, spec: s, fontSize, svg }
  }
  /** The lowest page that fits at this text size, given one that does (to within 10 %). */
  const lowest = (fontSize: number, fits: FittedFigure): FittedFigure => {
    let best = fits
    let [lo, hi] = [spec.height, fits.spec.height]
    while (hi / lo > 1.1) {
      const h = Math.round((lo + hi) / 2)
      const got = attempt(fontSize, h)
      if (got) [best, hi] = [got, h]
      else lo = h
    }
    return best
  }
  // Each try draws the figure, so the order keeps them few: the preset's size on the page as
  // asked; then the tallest page (paper); then the floor, and between the two where the floor fits.
  const asked = attempt(spec.fontSize, spec.height)
  if (asked) return asked
  if (grow) {
    const tall = attempt(spec.fontSize, tallest)
    if (tall) return lowest(spec.fontSize, tall)
  }
  if (floor < spec.fontSize) {
    const small = attempt(floor, tallest)
    if (small) {
      const between = mid > floor && mid < spec.fontSize ? attempt(mid, tallest) : null
      const [size, fits] = between ? [mid, between] : [floor, small]
      return grow ? lowest(size, fits) : fits
    }
  }
  throw new RefusedError(refusal(data, spec))
}
