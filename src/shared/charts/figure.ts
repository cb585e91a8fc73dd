/**
 * A figure as one ECharts option: the page (background, title, caption) around the chart a view's
 * builder lays out on it. The exporter renders this option to SVG, PNG and PDF, and the export
 * dialog's preview renders the same option, so what is previewed is what is saved.
 */
import type { FigureData, FigureSpec } from '../figure'
import { FIGURE_FONT, INKS, linePitch, textElement, wrapText, type Frame, type Measure } from './frame'
import { buildFigureParts } from './views'
import { graphicElements, type ChartOption, type GraphicElement } from './echarts-parts'

const BACKGROUND = { light: INKS.light.background, dark: INKS.dark.background, transparent: 'transparent' } as const

/** The page's margin for a text size. */
export const pageMargin = (fontSize: number) => Math.max(4, fontSize * 0.6)

/** The figure at the spec's text size, unfitted (fit.ts fits it to its page). */
export function buildFigureOption(data: FigureData, spec: FigureSpec, measure: Measure): ChartOption {
  return composeFigure(data, spec, measure).option
}

/**
 * The page around the chart, the chart's text at `chartFont` (the title and caption keep the
 * spec's size), the view's other arrangement where `alternative`; `cramped` when the view's own layout already knows it does not fit; `fallback`
 * when it fits only by leaving a part out (taken only at the floor text size).
 */
export function composeFigure(
  data: FigureData,
  spec: FigureSpec,
  measure: Measure,
  chartFont = spec.fontSize,
  grows = false,
  alternative = false,
): { option: ChartOption; cramped: boolean; fallback: boolean } {
  const fs = spec.fontSize
  const ink = INKS[spec.theme === 'dark' ? 'dark' : 'light']
  const margin = pageMargin(fs)
  const width = spec.width - 2 * margin
  const titleSize = fs * 1.2
  const title = spec.title ? wrapText(spec.title, width, titleSize, measure, true) : []
  const caption = spec.caption ? wrapText(spec.caption, width, fs, measure) : []
  const titleH = title.length ? title.length * linePitch(titleSize) + fs * 0.5 : 0
  const captionH = caption.length ? caption.length * linePitch(fs) + fs * 0.4 : 0
  const frame: Frame = {
    x: margin,
    y: margin + titleH,
    width,
    height: Math.max(fs, spec.height - 2 * margin - titleH - captionH),
    fontSize: fs,
    measure,
    lang: spec.lang,
    ink,
    highlightRow: spec.highlightRow ?? null,
    grows,
    alternative,
  }
  // The flags are for the fitter, not ECharts: the option drawn goes without them.
  const { cramped = false, fallback = false, ...option } = buildFigureParts(data, spec, { ...frame, fontSize: chartFont })
  const page: GraphicElement[] = [
    ...title.map((line, i) =>
      textElement(line, spec.width / 2, margin + (i + 0.5) * linePitch(titleSize), frame, { align: 'center', bold: true, size: titleSize }),
    ),
    ...caption.map((line, i) =>
      textElement(line, spec.width / 2, spec.height - margin - captionH + fs * 0.4 + (i + 0.5) * linePitch(fs), frame, { align: 'center' }),
    ),
  ]
  const own = graphicElements(option)
  return {
    cramped,
    fallback,
    option: {
      ...option,
      animation: false,
      backgroundColor: BACKGROUND[spec.theme],
      textStyle: { fontFamily: FIGURE_FONT, fontSize: fs, color: ink.text },
      graphic: { elements: [...page, ...own] },
      tooltip: undefined,
    },
  }
}
