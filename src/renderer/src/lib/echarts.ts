// Register only what the views draw, so the bundle carries no unused charts.
import * as echarts from 'echarts/core'
import type { ComposeOption, EChartsType } from 'echarts/core'
import type { BarSeriesOption, CustomSeriesOption, HeatmapSeriesOption, LineSeriesOption, ScatterSeriesOption } from 'echarts/charts'
import type {
  DataZoomComponentOption,
  GridComponentOption,
  LegendComponentOption,
  MarkAreaComponentOption,
  MarkLineComponentOption,
  MarkPointComponentOption,
  TitleComponentOption,
  TooltipComponentOption,
  VisualMapComponentOption,
} from 'echarts/components'
import { CanvasRenderer } from 'echarts/renderers'
import { CHART_PARTS } from '../../../shared/charts/echarts-parts'

echarts.use([...CHART_PARTS, CanvasRenderer])

export { echarts }
export type ChartInstance = EChartsType
/** An option made only of what is registered above. */
export type ChartOption = ComposeOption<
  | HeatmapSeriesOption
  | CustomSeriesOption
  | BarSeriesOption
  | LineSeriesOption
  | ScatterSeriesOption
  | DataZoomComponentOption
  | GridComponentOption
  | LegendComponentOption
  | MarkAreaComponentOption
  | MarkLineComponentOption
  | MarkPointComponentOption
  | TitleComponentOption
  | TooltipComponentOption
  | VisualMapComponentOption
>
