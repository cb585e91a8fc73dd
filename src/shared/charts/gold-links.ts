import type { Link } from '../alignment'
import type { ColormapName } from './colormaps'
import type { Frame } from './frame'
import { buildHeatmapOption, heatmapLayout, type HeatmapInput } from './heatmap'
import type { ScatterSeriesOption } from 'echarts/charts'
import { asList, mapEach, type FigureOption } from './echarts-parts'

/**
 * One gold sentence's attention (over the gold's words) with links drawn on its cells: the gold's
 * sure (●) and possible (○) links, the links extracted from the attention (□) and the statistical
 * aligner's (×). The heatmap is the heatmap view's own builder; the links are scatter series on
 * its category axes, so they sit on the same cells in the app and on a page.
 */
export interface GoldLinksInput {
  srcWords: string[]
  tgtWords: string[]
  /** [target word][source word]; a null row (a word past the model's length limit) is drawn empty. */
  matrix: (number[] | null)[]
  gold: Link[]
  extracted: Link[]
  statistical: Link[] | null
  /** The legend's names, in the view's language. */
  names: { sure: string; possible: string; extracted: string; statistical: string }
  title?: string
  /** The axis titles (a part of a split figure names its words). */
  outputTitle?: string
  sourceTitle?: string
  colormap?: ColormapName
  colorScale?: boolean
  frame?: Frame
}

/** Colours that read on every colour map (dark blue to yellow), on grey and in the key on white. */
const INK = { gold: '#f97316', extracted: '#22d3ee', statistical: '#e11d48' }

export function buildGoldLinksOption(input: GoldLinksInput): FigureOption {
  const S = input.srcWords.length
  // On a page the links' key takes the top line; the heatmap is laid out in the rest.
  const keyH = input.frame ? input.frame.fontSize * 2 : 0
  const frame = input.frame ? { ...input.frame, y: input.frame.y + keyH, height: input.frame.height - keyH } : undefined
  const heat: HeatmapInput = {
    srcTokens: input.srcWords,
    tgtTokens: input.tgtWords,
    attention: input.matrix.map((r) => r ?? new Array<number>(S).fill(0)),
    colormap: input.colormap,
    labels: 'off',
    title: input.title,
    ...(input.outputTitle ? { outputTitle: input.outputTitle } : {}),
    ...(input.sourceTitle ? { sourceTitle: input.sourceTitle } : {}),
    frame,
    colorScale: input.colorScale,
  }
  const option = buildHeatmapOption(heat)
  // A marker a little smaller than a cell: on a page the layout says how big a cell is.
  const cell = frame ? Math.min(heatmapLayout(heat, frame).cell.w, heatmapLayout(heat, frame).cell.h) : 22
  const size = Math.max(4, Math.min(18, cell * 0.62))
  const at = (links: readonly Link[]) => links.map((l) => [l.i, l.j])
  const series = (name: string, data: number[][], style: ScatterSeriesOption): ScatterSeriesOption => ({
    type: 'scatter',
    name,
    data,
    silent: true,
    z: 5,
    ...style,
  })
  const marks = [
    series(input.names.sure, at(input.gold.filter((l) => l.sure)), { symbol: 'circle', symbolSize: size * 0.7, z: 4, itemStyle: { color: INK.gold } }),
    series(input.names.possible, at(input.gold.filter((l) => !l.sure)), {
      symbol: 'circle',
      symbolSize: size * 0.7,
      z: 4,
      itemStyle: { color: 'rgba(0,0,0,0)', borderColor: INK.gold, borderWidth: Math.max(1, size / 9) },
    }),
    series(input.names.extracted, at(input.extracted), {
      symbol: 'rect',
      symbolSize: size,
      itemStyle: { color: 'rgba(0,0,0,0)', borderColor: INK.extracted, borderWidth: Math.max(1, size / 8) },
    }),
    ...(input.statistical
      ? [
          series(input.names.statistical, at(input.statistical), {
            symbol: 'path://M0,0L10,10M10,0L0,10',
            symbolSize: size * 0.45,
            z: 6,
            itemStyle: { color: 'rgba(0,0,0,0)', borderColor: INK.statistical, borderWidth: Math.max(1, size / 9) },
          }),
        ]
      : []),
  ]
  // The colour scale maps the heatmap's values only: on a scatter series it would recolour the links.
  const visualMap = option.visualMap ? mapEach(option.visualMap, (v) => ({ ...v, seriesIndex: 0 })) : undefined
  return {
    ...option,
    ...(visualMap ? { visualMap } : {}),
    ...(frame ? {} : { grid: mapEach(option.grid ?? {}, (g) => ({ ...g, bottom: 36 })) }),
    legend: {
      data: marks.map((m) => String(m.name)),
      ...(input.frame ? { top: input.frame.y, textStyle: { fontSize: Math.max(input.frame.fontSize * 0.8, input.frame.least ?? 0) } } : { bottom: 0 }),
    },
    series: [...asList(option.series), ...marks],
  }
}
