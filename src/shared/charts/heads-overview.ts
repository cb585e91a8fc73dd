/**
 * The heads overview: one number per cross-attention head, drawn as one small heatmap (rows: layers,
 * columns: heads). For models with many heads (BART-large, M2M100-418M and NLLB-600M have 12 × 16 =
 * 192), where a map per head would be too small to read, the heads view shows this instead of the
 * grid of maps; a click on a cell opens that head (headOfOverviewCell).
 *
 * The numbers: the head's entropy in bits and its diagonality over this sentence (as the grid's
 * b and d, src/shared/attention/heads.ts), or its AER on the gold set scored in the Alignment score
 * tab. Colour: darker where the head is more focused (lower entropy), more diagonal, or aligns better
 * (lower AER), on the heatmap's colour map.
 */
import { diagonality, headMatrix, headShape, meanEntropy, type HeadRef } from '../attention/heads'
import { COLORMAPS, colorAt, textColorOn, type ColormapName } from './colormaps'
import type { ChartOption, FigureOption } from './echarts-parts'
import { FIGURE_FONT, textHeight, type Frame } from './frame'

export type OverviewMetric = 'entropy' | 'diagonality' | 'aer'

/** The most heads the view draws as a grid of maps; above it, the overview (README: heads view). */
export const GRID_MAX_HEADS = 48

/** One number per head, [layer][head]: entropy (bits) or diagonality of a sentence's cross-attention. */
export function overviewValues(cross: number[][][][], metric: Exclude<OverviewMetric, 'aer'>): number[][] {
  const { layers, heads } = headShape(cross)
  return Array.from({ length: layers }, (_, layer) =>
    Array.from({ length: heads }, (_, head) => {
      const m = headMatrix(cross, { layer, head })
      return metric === 'entropy' ? meanEntropy(m) : diagonality(m)
    }),
  )
}

/** The last digit formatOverviewValue writes, by metric. */
const PRINTED_STEP: Record<OverviewMetric, number> = { entropy: 0.01, diagonality: 0.01, aer: 0.1 }

/** A value as the cells write it: entropy 2.31, diagonality .45, AER 57.3. */
export function formatOverviewValue(metric: OverviewMetric, v: number): string {
  if (metric === 'aer') return v.toFixed(1)
  if (metric === 'diagonality') return v.toFixed(2).replace(/^0\./, '.')
  return v.toFixed(2)
}

export interface HeadsOverviewInput {
  /** [layer][head] */
  values: number[][]
  metric: OverviewMetric
  /** What the key says the numbers are ("entropy (bits)", …). */
  metricName: string
  /** "layer", "head": the axes' names. */
  names: { layer: string; head: string; cell: (layer: number, head: number) => string }
  selected: HeadRef | null
  colormap: ColormapName
  frame: Frame
}

/** Lower is darker (more focused, better aligned) for entropy and AER; higher for diagonality. */
const lowIsStrong = (metric: OverviewMetric) => metric !== 'diagonality'

/** Where the cells are: the heatmap's box and each cell's size, in the frame's units. */
export function overviewLayout(input: Pick<HeadsOverviewInput, 'values' | 'frame' | 'names' | 'metricName'>) {
  const f = input.frame
  const L = input.values.length
  const H = input.values[0]?.length ?? 0
  const fs = f.fontSize
  const line = textHeight(fs)
  const rowLabel = Math.max(...Array.from({ length: L }, (_, l) => f.measure(String(l + 1), fs)), 0)
  const left = f.x + line + fs * 0.5 + rowLabel + fs * 0.5
  const keyWidth = fs * 1.2 + fs * 0.5 + f.measure('0.00', fs) + fs
  const top = f.y + line + fs * 0.4 + line + fs * 0.3
  const bottom = fs * 0.5
  const width = Math.max(10, f.x + f.width - left - keyWidth - fs)
  const height = Math.max(10, f.y + f.height - top - bottom)
  return { left, top, width, height, cellW: width / Math.max(1, H), cellH: height / Math.max(1, L), line, keyLeft: left + width + fs }
}

/**
 * The overview as an ECharts option laid out on `frame` at its font size: the title line (the
 * metric), the head numbers above the columns, the layer numbers left of the rows, a value in each
 * cell where it fits at that size (else only in the tooltip), the key on the right. `cramped` when
 * the cells would be thinner than 6 units: the fitter then takes a taller box or a smaller size.
 */
export function buildHeadsOverviewOption(input: HeadsOverviewInput): FigureOption {
  const { values, metric, frame: f, selected } = input
  const L = values.length
  const H = values[0]?.length ?? 0
  const fs = f.fontSize
  const g = overviewLayout(input)
  const flat = values.flat()
  let lo = flat.length ? Math.min(...flat) : 0
  let hi = flat.length ? Math.max(...flat) : 1
  // The colours span at least ten steps of the numbers as printed: heads that all read 3.42 bits
  // (random weights attend near-uniformly) were coloured across the whole map by their fourth decimal.
  const span = 10 * PRINTED_STEP[metric]
  if (hi - lo < span) {
    const mid = (hi + lo) / 2
    ;[lo, hi] = [mid - span / 2, mid + span / 2]
  }
  const stops = [...COLORMAPS[input.colormap]]
  // The colour maps run light → dark for greys, dark → bright for viridis/cividis: "strong" is the map's 1-end.
  const strong = (v: number) => (lowIsStrong(metric) ? (hi - v) / (hi - lo) : (v - lo) / (hi - lo))
  const labels = g.cellW >= f.measure(formatOverviewValue(metric, hi), fs) + 4 && g.cellH >= textHeight(fs) + 2
  const data = values.flatMap((row, l) =>
    row.map((v, h) => {
      const rgb = colorAt(input.colormap, strong(v))
      const isSel = !!selected && selected.layer === l && selected.head === h
      return {
        value: [h, l, v],
        itemStyle: isSel ? { borderColor: f.ink.accent, borderWidth: 3 } : { borderColor: f.ink.background, borderWidth: 1 },
        label: { show: labels, color: textColorOn(rgb) },
      }
    }),
  )
  const cat = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1))
  const axisText = { fontSize: fs, color: f.ink.text, fontFamily: FIGURE_FONT }
  const option: ChartOption = {
    animation: false,
    textStyle: { fontFamily: FIGURE_FONT },
    tooltip: {
      formatter: (p: unknown) => {
        const v = (p as { value: number[] }).value
        return `${input.names.cell(v[1] + 1, v[0] + 1)}: ${input.metricName} ${formatOverviewValue(metric, v[2])}`
      },
    },
    grid: { left: g.left, top: g.top, width: g.width, height: g.height, containLabel: false },
    xAxis: {
      type: 'category',
      data: cat(H),
      position: 'top',
      name: input.names.head,
      nameLocation: 'middle',
      nameGap: g.line + fs * 0.3,
      nameTextStyle: axisText,
      axisLabel: { ...axisText, interval: 0, margin: fs * 0.3 },
      axisTick: { show: false },
      axisLine: { show: false },
      splitArea: { show: false },
    },
    yAxis: {
      type: 'category',
      data: cat(L),
      inverse: true,
      name: input.names.layer,
      nameLocation: 'middle',
      nameRotate: 90,
      nameGap: g.left - f.x - g.line * 0.6,
      nameTextStyle: axisText,
      axisLabel: { ...axisText, interval: 0, margin: fs * 0.5 },
      axisTick: { show: false },
      axisLine: { show: false },
    },
    visualMap: {
      type: 'continuous',
      show: true,
      min: lo,
      max: hi,
      dimension: 2,
      inverse: false,
      calculable: false,
      orient: 'vertical',
      left: g.keyLeft,
      top: g.top,
      itemWidth: fs * 1.2,
      itemHeight: Math.max(20, g.height - 2 * (textHeight(fs) + fs * 0.4)),
      text: [formatOverviewValue(metric, hi), formatOverviewValue(metric, lo)],
      textGap: fs * 0.4,
      textStyle: axisText,
      inRange: { color: lowIsStrong(metric) ? [...stops].reverse() : stops },
    },
    graphic: {
      elements: [
        {
          type: 'text',
          left: f.x,
          top: f.y,
          style: { text: input.metricName, fontSize: fs, fontWeight: 'bold', fill: f.ink.text, fontFamily: FIGURE_FONT },
          silent: true,
        },
      ],
    },
    series: [
      {
        type: 'heatmap',
        id: 'heads-overview',
        data,
        label: {
          show: labels,
          fontSize: fs,
          fontFamily: FIGURE_FONT,
          formatter: (p: unknown) => formatOverviewValue(metric, (p as { value: number[] }).value[2]),
        },
        emphasis: { itemStyle: { borderColor: f.ink.text, borderWidth: 2 } },
        progressive: 0,
      },
    ],
  }
  return { ...option, cramped: g.cellW < 6 || g.cellH < 6 }
}

/** The head a click on the overview's cell names, from the click's value [head, layer, v]. */
export function headOfOverviewCell(p: { seriesId?: string; value?: unknown }): HeadRef | null {
  if (p.seriesId !== 'heads-overview' || !Array.isArray(p.value)) return null
  const [head, layer] = p.value as number[]
  return Number.isInteger(head) && Number.isInteger(layer) ? { layer, head } : null
}
