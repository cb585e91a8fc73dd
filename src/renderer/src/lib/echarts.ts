// Register only what the views draw, so the bundle carries no unused charts.
import * as echarts from 'echarts/core'
import type { EChartsType } from 'echarts/core'
import { CanvasRenderer } from 'echarts/renderers'
import { CHART_PARTS } from '../../../shared/charts/echarts-parts'

echarts.use([...CHART_PARTS, CanvasRenderer])

export { echarts }
export type ChartInstance = EChartsType
/** An option made only of the registered parts (defined beside CHART_PARTS). */
export type { ChartOption } from '../../../shared/charts/echarts-parts'
