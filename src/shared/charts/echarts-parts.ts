/**
 * The ECharts charts and components the shared builders use, registered by the app (with the
 * canvas renderer) and by the figure exporter (with the SVG renderer): one list, so a builder that
 * starts using a new component cannot work on screen and fail in the exported file, or the reverse.
 */
import { BarChart, CustomChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts'
import {
  DataZoomComponent,
  GraphicComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  MarkPointComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components'
import { LegacyGridContainLabel } from 'echarts/features'

export const CHART_PARTS = [
  HeatmapChart,
  CustomChart,
  BarChart,
  LineChart,
  ScatterChart,
  DataZoomComponent,
  GraphicComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  MarkPointComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapComponent,
  // Lets builders say `containLabel: true` (ECharts 6 moved it to an opt-in feature).
  LegacyGridContainLabel,
]
