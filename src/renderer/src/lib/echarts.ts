// Register only what the views draw, so the bundle carries no unused charts.
import * as echarts from 'echarts/core'
import type { EChartsType } from 'echarts/core'
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers'
import { CHART_PARTS } from '../../../shared/charts/echarts-parts'

echarts.use([...CHART_PARTS, CanvasRenderer, SVGRenderer])

/**
 * Canvas, unless the page was opened with `?renderer=svg`: the end-to-end tests draw the charts as
 * SVG so that they can read every text's box from the page, as a reader of the export reads the PDF.
 */
export const RENDERER: 'canvas' | 'svg' = typeof location !== 'undefined' && new URLSearchParams(location.search).get('renderer') === 'svg' ? 'svg' : 'canvas'

export { echarts }
export type ChartInstance = EChartsType
/** An option made only of the registered parts (defined beside CHART_PARTS). */
export type { ChartOption } from '../../../shared/charts/echarts-parts'
