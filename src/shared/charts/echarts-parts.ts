/**
 * The ECharts charts and components the shared builders use, registered by the app (with the
 * canvas renderer) and by the figure exporter (with the SVG renderer): one list, so a builder that
 * starts using a new component cannot work on screen and fail in the exported file, or the reverse.
 */
import { BarChart, CustomChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts'
import type { BarSeriesOption, CustomSeriesOption, HeatmapSeriesOption, LineSeriesOption, ScatterSeriesOption } from 'echarts/charts'
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
import type {
  DataZoomComponentOption,
  GraphicComponentOption,
  GridComponentOption,
  LegendComponentOption,
  MarkAreaComponentOption,
  MarkLineComponentOption,
  MarkPointComponentOption,
  TitleComponentOption,
  TooltipComponentOption,
  VisualMapComponentOption,
} from 'echarts/components'
import type { ComposeOption, EChartsCoreOption } from 'echarts/core'
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

/** The catch-all `[key: string]: unknown` ECharts' option types carry, taken out. */
type KnownKeys<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] }

type Composed = ComposeOption<
  | HeatmapSeriesOption
  | CustomSeriesOption
  | BarSeriesOption
  | LineSeriesOption
  | ScatterSeriesOption
  | DataZoomComponentOption
  | GraphicComponentOption
  | GridComponentOption
  | LegendComponentOption
  | MarkAreaComponentOption
  | MarkLineComponentOption
  | MarkPointComponentOption
  | TitleComponentOption
  | TooltipComponentOption
  | VisualMapComponentOption
>

/**
 * An option made only of the parts in CHART_PARTS (keep the two lists in step): what every
 * builder returns. ECharts' own composed type ends in an index signature that takes any key with
 * any value, so a plain `Record<string, unknown>` (or an unregistered component such as `polar`,
 * or a misspelt `xaxis`) would pass it unchecked; this one knows only the registered keys, and
 * needs `series`, which no figure goes without, so an untyped object is refused where a chart is
 * drawn.
 */
export type ChartOption = KnownKeys<Composed> & Globals & { series: NonNullable<Composed['series']> }

/**
 * The option's own keys (animation, textStyle, backgroundColor, color...): ComposeOption takes
 * them from ECharts' base option with an `Omit`, which over its index signature keeps only the
 * index signature, so they are typed from the base option here.
 */
type Globals = Omit<KnownKeys<EChartsCoreOption>, 'baseOption' | 'options' | 'media' | 'timeline'>

/** One series of a ChartOption. */
export type ChartSeries = HeatmapSeriesOption | CustomSeriesOption | BarSeriesOption | LineSeriesOption | ScatterSeriesOption

/** One element of the graphic component (text, rect, line, group...), which ECharts does not export by name. */
export type GraphicElement = NonNullable<Extract<GraphicComponentOption, { type?: 'group' }>['children']>[number]

/**
 * What a builder laid out on a frame returns: its option, and whether its own layout already
 * knows it does not fit (`cramped`) or fits only by leaving a part out (`fallback`, taken only at
 * the floor text size), which the fitter reads and composeFigure removes before the option is
 * drawn. Not ECharts keys, so kept out of ChartOption.
 */
export type FigureOption = ChartOption & { cramped?: boolean; fallback?: boolean }

/** The elements of an option's graphic component (the builders give it as one `{ elements }`). */
export function graphicElements(o: Pick<ChartOption, 'graphic'>): GraphicElement[] {
  const g = o.graphic
  return (Array.isArray(g) ? g : g ? [g] : []).flatMap((c) => ('elements' in c && c.elements ? c.elements : []))
}

/** One entry of a mark line's or mark area's `data`. */
export type MarkLineItem = NonNullable<MarkLineComponentOption['data']>[number]
export type MarkAreaItem = NonNullable<MarkAreaComponentOption['data']>[number]

/** A component that may be given alone or as a list, as a list. */
export const asList = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x])

/** One entry of a heatmap series' `data`: a value array, or an item with its own style. */
export type HeatmapDatum = NonNullable<HeatmapSeriesOption['data']>[number]

/** A component given alone or as a list, changed item by item, in the same shape. */
export const mapEach = <T, U>(x: T | T[], f: (t: T) => U): U | U[] => (Array.isArray(x) ? x.map(f) : f(x))
