/**
 * A chart fitted to its box on screen the way the exporter fits a figure to its page (fit.ts):
 * the shared builder lays the chart out itself for a frame (the chart's width, a text size), the
 * candidate is drawn as SVG and read back (every text's box: none outside the box, none over
 * another, none under the floor), and the box grows taller until nothing is wrong. Presentation
 * mode uses it so that its promise (chart text of at least 20 px, every label, no collisions)
 * holds on any sentence; the text never shrinks under the floor to make room.
 */
import { layoutProblems, withoutCells, type RenderSvg } from '../../../shared/charts/fit'
import type { FigureOption } from '../../../shared/charts/echarts-parts'
import { FIGURE_FONT, INKS, type Frame, type FrameLang, type Measure } from '../../../shared/charts/frame'
import { normaliseText } from '../../../shared/charts/text-boxes'
import { textsSvg } from '../../../shared/charts/texts-svg'
import { echarts, type ChartOption } from './echarts'

const context = typeof document !== 'undefined' ? document.createElement('canvas').getContext('2d') : null

/**
 * Widths measured, by font and text: a slide's fitting measures the same labels at the same few
 * sizes for every candidate layout and part, and setting the canvas's font costs more than the
 * measuring (a fifth of the fitting's time without this, in presentation-slide.test.ts). Cleared when it grows large.
 */
const widths = new Map<string, number>()
let font = ''

/** Text widths as the page draws them (the figure font family, measured by the browser). */
export const screenMeasure: Measure = (text, size, bold) => {
  if (!context) return text.length * size * 0.6
  const f = `${bold ? 'bold ' : ''}${size}px ${FIGURE_FONT}`
  const key = `${f}\u0000${text}`
  const known = widths.get(key)
  if (known !== undefined) return known
  if (f !== font) context.font = font = f
  const w = context.measureText(text).width
  if (widths.size > 20_000) widths.clear()
  widths.set(key, w)
  return w
}

/** The fitter's view of a candidate layout: the option as SVG, texts on their baselines. */
export const screenSvg: RenderSvg = (option, width, height) => {
  const c = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width, height })
  try {
    c.setOption(option)
    return normaliseText(c.renderToSVGString())
  } finally {
    c.dispose()
  }
}

/**
 * The fitter's view of a candidate whose drawing is not kept: its texts alone, as screenSvg writes
 * them (textsSvg). Laying the chart out is still most of the cost; writing its shapes was a fifth
 * of it (presentation-slide.test.ts, issue 40).
 */
const screenTexts: RenderSvg = (option, width, height) => {
  const c = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width, height })
  try {
    c.setOption(option)
    return normaliseText(textsSvg(c))
  } finally {
    c.dispose()
  }
}

/** A builder that lays its chart out for a frame (the `frame` input of the shared chart builders). */
export type FrameBuilder = (frame: Frame) => FigureOption

export interface ScreenFit {
  option: ChartOption
  height: number
  /** False when even the tallest box left a problem: the option drawn is then the last layout's, at its tallest. */
  fits: boolean
}

/** One way to lay a chart out: its builder, its text size, and how tall it may grow. */
export interface Layout {
  build: FrameBuilder
  fontSize: number
  maxHeight: number
}

/**
 * The first layout that fits, each in the lowest box from `height` up to its `maxHeight` in which
 * no text is off the box, over another or under `floor` (to within 10 % of the lowest, as the
 * exporter searches). Every text is held to the one floor: presentation mode promises it for all.
 */
export function fitToScreen(
  layouts: Layout[],
  box: { width: number; height: number },
  o: { floor: number; lang: FrameLang; highlightRow?: number | null },
): ScreenFit {
  const floors = { label: o.floor, number: o.floor }
  let last: ScreenFit | null = null
  for (const layout of layouts) {
    const attempt = (height: number): { option: ChartOption; ok: boolean } => {
      const frame: Frame = {
        x: 0,
        y: 0,
        width: box.width,
        height,
        fontSize: layout.fontSize,
        measure: screenMeasure,
        lang: o.lang,
        ink: INKS.light,
        highlightRow: o.highlightRow ?? null,
      }
      const { cramped, ...built } = layout.build(frame)
      // Every text in the font it was measured in, as the exporter's page sets it: ECharts' axis
      // labels otherwise take the page's `sans-serif`, which in the Chinese interface (lang zh-CN)
      // is a CJK face with other widths and a line box a quarter taller than the rows left for it.
      const option: ChartOption = { ...built, textStyle: { fontFamily: FIGURE_FONT, ...built.textStyle } }
      if (cramped) return { option, ok: false }
      // Only the texts are read: the maps' cells are left out of the candidate (the chart draws them).
      const svg = screenTexts(withoutCells(option), box.width, height)
      return { option, ok: layoutProblems(svg, screenMeasure, { width: box.width, height }, floors, 1).length === 0 }
    }
    const first = attempt(box.height)
    if (first.ok) return { option: first.option, height: box.height, fits: true }
    const top = Math.max(box.height, layout.maxHeight)
    const tallest = attempt(top)
    last = { option: tallest.option, height: top, fits: false }
    if (!tallest.ok) continue
    let best = { option: tallest.option, height: top }
    let [lo, hi] = [box.height, top]
    while (hi / lo > 1.1) {
      const h = Math.round((lo + hi) / 2)
      const got = attempt(h)
      if (got.ok) [best, hi] = [{ option: got.option, height: h }, h]
      else lo = h
    }
    return { option: best.option, height: best.height, fits: true }
  }
  if (!last) throw new Error('fitToScreen: no layout given')
  return last
}

/**
 * What a view gives its chart for presentation mode: the builder at the mode's text size, growing
 * from `height` to `maxHeight` (4 × by default), or its own list of layouts to try in order.
 */
export interface ScreenFitSpec {
  build: FrameBuilder
  height: number
  maxHeight?: number
  highlightRow?: number | null
  layouts?: Layout[]
}

/**
 * A slide (presentation mode): the chart laid out for a box of a fixed size, which never grows, at
 * the largest text size that fits it. `sizes` are tried from the largest down (a binary search:
 * a layout that fits at one size fits at every smaller one, near enough), each checked as the
 * exporter checks a page: no text off the box, over another or under its size. A layout may set
 * its own floor (a heatmap's values at ¾ of its labels). When none fits, the smallest is drawn and
 * `fits` is false.
 */
export interface SlideLayout {
  build: FrameBuilder
  fontSize: number
  /** The smallest text the layout may draw (default: its font size). */
  floor?: number
}

export interface SlideFit {
  option: ChartOption
  fontSize: number
  /** The layout taken, its index in the list. */
  index: number
  fits: boolean
  frame: Frame
}

/**
 * Layouts found, by content and box. A slide in parts remembers one entry per part tried at each
 * window size (local attention's p_t plot: about 35 at each): at 200 the cache was emptied every few
 * slides and a slide shown again searched anew (a twelfth of presentation-slide.test.ts's fits, issue 40).
 */
const SLIDE_CACHE_SIZE = 4000
const slideCache = new Map<string, { index: number; fits: boolean }>()
const slideHints = new Map<string, number>()

type SlideOptions = { lang: FrameLang; highlightRow?: number | null; key?: string; family?: string; least?: number }

/** A layout's frame for a slide's box. */
const slideFrame = (l: SlideLayout, box: { width: number; height: number }, o: SlideOptions): Frame => ({
  x: 0,
  y: 0,
  width: box.width,
  height: box.height,
  fontSize: l.fontSize,
  measure: screenMeasure,
  lang: o.lang,
  ink: INKS.light,
  highlightRow: o.highlightRow ?? null,
  ...(o.least === undefined ? {} : { least: o.least }),
})

/** A layout built for a slide's box: its option, in the font it was measured in, and whether it is cramped. */
function buildSlide(l: SlideLayout, box: { width: number; height: number }, o: SlideOptions): { option: ChartOption; cramped: boolean } {
  const { cramped, ...built } = l.build(slideFrame(l, box, o))
  return { option: { ...built, textStyle: { fontFamily: FIGURE_FONT, ...built.textStyle } }, cramped: !!cramped }
}

/**
 * The layout taken (see fitSlide), and the options the search built, by index: the one taken is
 * drawn as it was built for its check rather than built again.
 */
function searchSlide(
  layouts: SlideLayout[],
  box: { width: number; height: number },
  o: SlideOptions,
): { index: number; fits: boolean; built: Map<number, ChartOption> } {
  if (!layouts.length) throw new Error('fitSlide: no layout given')
  const built = new Map<number, ChartOption>()
  const ok = (i: number): boolean => {
    const got = buildSlide(layouts[i], box, o)
    built.set(i, got.option)
    if (got.cramped) return false
    const floor = layouts[i].floor ?? layouts[i].fontSize
    // Only the texts are read: the maps' cells are left out of the candidate (the slide draws them).
    const svg = screenTexts(withoutCells(got.option), box.width, box.height)
    return layoutProblems(svg, screenMeasure, box, { label: floor, number: floor }, 1).length === 0
  }
  const cacheKey =
    o.key === undefined ? null : `${o.key}|${box.width}x${box.height}|${o.lang}|${layouts.map((l) => `${l.fontSize}/${l.floor ?? ''}`).join(',')}`
  const known = cacheKey ? slideCache.get(cacheKey) : undefined
  if (known) return { ...known, built }
  // The first index that fits (the list runs from the largest text down), by binary search,
  // starting from the index the same family of slides took last (the step before, most often).
  const last = layouts.length - 1
  const first = (lo: number, hi: number): number => {
    // The first index in [lo, hi] that fits, given that hi fits (or hi + 1 is past the end).
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2)
      if (ok(mid)) hi = mid
      else lo = mid + 1
    }
    return hi
  }
  const hint = o.family !== undefined ? slideHints.get(o.family) : undefined
  let best = -1
  if (hint !== undefined && hint <= last) {
    if (ok(hint)) best = hint === 0 || !ok(hint - 1) ? hint : first(0, hint - 1)
    else if (hint < last && ok(last)) best = first(hint + 1, last)
  } else if (ok(0)) best = 0
  else if (last > 0 && ok(last)) best = first(1, last)
  if (o.family !== undefined && best >= 0) {
    if (slideHints.size > 500) slideHints.clear()
    slideHints.set(o.family, best)
  }
  const found = { index: best < 0 ? last : best, fits: best >= 0 }
  if (cacheKey) {
    if (slideCache.size > SLIDE_CACHE_SIZE) slideCache.clear()
    slideCache.set(cacheKey, found)
  }
  return { ...found, built }
}

/**
 * The first (largest) layout that fits `box`. `key`, when given, names the content (the sentence,
 * the rows shown, the view): the layout found for a key and a box is remembered, so stepping
 * through a sentence lays each step out once instead of searching again.
 */
export function fitSlide(layouts: SlideLayout[], box: { width: number; height: number }, o: SlideOptions): SlideFit {
  const found = searchSlide(layouts, box, o)
  const l = layouts[found.index]
  const option = found.built.get(found.index) ?? buildSlide(l, box, o).option
  return { option, fontSize: l.fontSize, index: found.index, fits: found.fits, frame: slideFrame(l, box, o) }
}

/**
 * Whether `layouts` fit `box` (fitSlide's `fits`, and the frame of the layout it takes), without
 * building the option to draw: for a search of the parts a figure is cut into, which asks of many.
 */
export function slideFits(layouts: SlideLayout[], box: { width: number; height: number }, o: SlideOptions): { fits: boolean; frame: Frame } {
  const found = searchSlide(layouts, box, o)
  return { fits: found.fits, frame: slideFrame(layouts[found.index], box, o) }
}

/**
 * Text sizes a slide tries, largest first, in px: from `largest` (1.3 × the floor unless told) down
 * to the slide's floor (presentation.floor), never under it: a figure that does not fit at the floor
 * is shown in parts (slide-parts.ts), not in smaller text.
 */
export function slideSizes(floor: number, largest = 1.3 * floor): number[] {
  const above = [1.5, 1.4, 1.3, 1.2, 1.1, 1.05].map((k) => Math.round(floor * k * 2) / 2).filter((f) => f <= largest + 1e-9 && f > floor)
  return [...new Set(above), floor]
}
