/**
 * A chart fitted to its box on screen the way the exporter fits a figure to its page (fit.ts):
 * the shared builder lays the chart out itself for a frame (the chart's width, a text size), the
 * candidate is drawn as SVG and read back (every text's box: none outside the box, none over
 * another, none under the floor), and the box grows taller until nothing is wrong. Presentation
 * mode uses it so that its promise (chart text of at least 20 px, every label, no collisions)
 * holds on any sentence; the text never shrinks under the floor to make room.
 */
import { layoutProblems, type RenderSvg } from '../../../shared/charts/fit'
import { FIGURE_FONT, INKS, type Frame, type FrameLang, type Measure } from '../../../shared/charts/frame'
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
export type FrameBuilder = (frame: Frame) => Record<string, unknown>

export interface ScreenFit {
  option: ChartOption
  height: number
  /** False when even the tallest box left a problem: the option drawn is then the tallest one's. */
  fits: boolean
}

/**
 * The lowest box, from `height` up to `maxHeight`, in which the chart drawn at `fontSize` has no
 * text off the box, over another or under `fontSize` (within 10 % of the lowest, as the exporter
 * searches). Every text is held to the one floor: presentation mode promises it for all of them.
 */
export function fitToScreen(
  build: FrameBuilder,
  box: { width: number; height: number; maxHeight: number },
  o: { fontSize: number; lang: FrameLang; highlightRow?: number | null },
): ScreenFit {
  const floors = { label: o.fontSize, number: o.fontSize }
  const attempt = (height: number): { option: Record<string, unknown>; ok: boolean } => {
    const frame: Frame = {
      x: 0,
      y: 0,
      width: box.width,
      height,
      fontSize: o.fontSize,
      measure: screenMeasure,
      lang: o.lang,
      ink: INKS.light,
      highlightRow: o.highlightRow ?? null,
    }
    const { cramped, ...option } = build(frame) as Record<string, unknown> & { cramped?: boolean }
    if (cramped) return { option, ok: false }
    const svg = screenSvg(option, box.width, height)
    return { option, ok: layoutProblems(svg, screenMeasure, { width: box.width, height }, floors, 1).length === 0 }
  }
  const first = attempt(box.height)
  if (first.ok) return { option: first.option as ChartOption, height: box.height, fits: true }
  const tallest = attempt(box.maxHeight)
  if (!tallest.ok) return { option: tallest.option as ChartOption, height: box.maxHeight, fits: false }
  let best = { option: tallest.option, height: box.maxHeight }
  let [lo, hi] = [box.height, box.maxHeight]
  while (hi / lo > 1.1) {
    const h = Math.round((lo + hi) / 2)
    const got = attempt(h)
    if (got.ok) [best, hi] = [{ option: got.option, height: h }, h]
    else lo = h
  }
  return { option: best.option as ChartOption, height: best.height, fits: true }
}
