// Register only what the views draw, so the bundle carries no unused charts.
import * as echarts from 'echarts/core'
import { HeatmapChart } from 'echarts/charts'
import { GridComponent, TitleComponent, TooltipComponent, VisualMapComponent } from 'echarts/components'
import { CanvasRenderer } from 'echarts/renderers'

echarts.use([HeatmapChart, GridComponent, TitleComponent, TooltipComponent, VisualMapComponent, CanvasRenderer])

export { echarts }
export type ChartInstance = ReturnType<typeof echarts.init>
