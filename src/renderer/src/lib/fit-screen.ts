/**
 * A chart fitted to its box on screen the way the exporter fits a figure to its page (fit.ts):
 * the shared builder lays the chart out itself for a frame (the chart's width, a text size), the
 * candidate is drawn as SVG and read back (every text's box: none outside the box, none over
 * another, none under the floor), and the box grows taller until nothing is wrong. Presentation
 * mode uses it so that its promise (chart text of at least 20 px, every label, no collisions)
 * holds on any sentence; the text never shrinks under the floor to make room.
 */
import { layoutProblems, type RenderSvg } from '../../../shared/charts/fit'
import type { FigureOption } from '../../../shared/charts/echarts-parts'
import { FIGURE_FONT, INKS, type Frame, type FrameLang, type Measure } from '../../../shared/charts/frame'
import { buildHeatmapOption, type HeatmapInput } from '../../../shared/charts/heatmap'
import { normaliseText } from '../../../shared/charts/text-boxes'
import { echarts, type ChartOption } from './echarts'

const context = typeof document !== 'undefined' ? document.createElement('canvas').getContext('2d') : null

/** Text widths as the page draws them (the figure font family, measured by the browser). */
export const screenMeasure: Measure = (text, size, bold) => {
  if (!context) return text.length * size * 0.6
  context.font = `${bold ? 'bold ' : ''}${size}px ${FIGURE_FONT}`
  return context.measureText(text).width
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
      const svg = screenSvg(option, box.width, height)
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
 * A heatmap on a projector: laid out by the builder and fitted (every label upright or turned, none
 * over another). Values in the cells are text too, held to the same floor: with labels at
 * floor / 0.75 (the builder sets values at ¾ of the labels) where the map fits without growing
 * much, else labels at the floor and no values.
 */
export function heatmapFit(input: HeatmapInput, height: number, floor: number): ScreenFitSpec {
  const build = (frame: Frame) => buildHeatmapOption({ ...input, title: undefined, frame })
  const plain = (frame: Frame) => buildHeatmapOption({ ...input, title: undefined, labels: 'off', frame })
  return {
    build,
    height,
    highlightRow: input.selectedRow ?? null,
    layouts: [
      ...(input.labels === 'off' ? [] : [{ build, fontSize: Math.ceil(floor / 0.75), maxHeight: height * 1.25 }]),
      { build: plain, fontSize: floor, maxHeight: height * 4 },
    ],
  }
}
