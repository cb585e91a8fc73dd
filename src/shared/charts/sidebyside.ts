/**
 * Side by side on a page: two attention maps of one sentence on one fixed 0–1 colour scale, and
 * the difference A − B in red and blue, each a heatmap figure of its own in a panel of the page,
 * merged into one option (one grid per panel).
 */
import type { Translation } from '../api'
import type { ColormapName } from './colormaps'
import { attentionDifference, DIFFERENCE_COLORS } from './difference'
import { FIGURE_TEXT } from './figure-text'
import { linePitch, textElement, wrapText, type Frame } from './frame'
import { buildHeatmapOption } from './heatmap'
import type { XAXisComponentOption, YAXisComponentOption } from 'echarts'
import type { GridComponentOption, VisualMapComponentOption } from 'echarts/components'
import { asList, graphicElements, type ChartSeries, type FigureOption, type GraphicElement } from './echarts-parts'

export interface SideBySideFigureInput {
  a: Translation
  b: Translation
  names: [string, string]
  colormap: ColormapName
  /** Draw the colour bars. */
  colorScale: boolean
  frame: Frame
}

/** Single-grid options as one option: panel i's grid, axes and series indexed i. */
export function mergePanels(parts: FigureOption[], extra: GraphicElement[]): FigureOption {
  const grid: GridComponentOption[] = []
  const xAxis: XAXisComponentOption[] = []
  const yAxis: YAXisComponentOption[] = []
  const visualMap: VisualMapComponentOption[] = []
  const series: ChartSeries[] = []
  const elements = [...extra]
  let cramped = false
  parts.forEach((p, i) => {
    grid.push(...asList(p.grid))
    xAxis.push(...asList(p.xAxis).map((x) => ({ ...x, gridIndex: i })))
    yAxis.push(...asList(p.yAxis).map((y) => ({ ...y, gridIndex: i })))
    // Each panel's colour map applies to its own heatmap series (its first).
    visualMap.push(...asList(p.visualMap).map((v) => ({ ...v, seriesIndex: series.length })))
    for (const s of asList(p.series)) series.push({ ...s, xAxisIndex: i, yAxisIndex: i })
    elements.push(...graphicElements(p))
    cramped ||= !!p.cramped
  })
  return { animation: false, grid, xAxis, yAxis, visualMap, series, graphic: { elements }, cramped }
}

type Arrangement = 'row' | 'grid' | 'stacked' | 'keyed'

/**
 * The first arrangement whose maps have room for every label: in one column on a page taller
 * than wide, else in a row on a very wide page, else A and B above the difference, else in a row,
 * else (a slide) A and B large and the difference small on A's axes without token labels.
 */
export function buildSideBySideFigure(input: SideBySideFigureInput): FigureOption {
  const f = input.frame
  const order: Arrangement[] = f.height >= 1.2 * f.width ? ['stacked'] : f.width >= 2.2 * f.height ? ['row', 'grid', 'keyed'] : ['grid', 'row', 'keyed']
  let option: FigureOption = { series: [] }
  for (const how of order) {
    option = arranged(input, how)
    if (!option.cramped) break
  }
  return option
}

function arranged(input: SideBySideFigureInput, how: Arrangement): FigureOption {
  const { a, b, frame: f } = input
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const gap = fs * 1.2
  const sameSource = a.srcTokens.join('\u0001') === b.srcTokens.join('\u0001')
  // A row: A, B and the difference side by side; a grid: A and B above the difference; stacked
  // (a paper column the fitter made taller): every map in one column, A and B sharing B's colour bar.
  const panels = sameSource ? 3 : 2
  const stacked = how === 'stacked'
  // Keyed (a slide too small for three labelled maps): A and B large in a row, the difference
  // small beside them with A's axes but no token labels of its own.
  const keyed = how === 'keyed' && sameSource
  const row = !stacked && (!sameSource || how === 'row' || keyed)
  const cols = stacked ? 1 : row ? panels : 2
  const w = (f.width - (cols - 1) * gap) / cols
  const heads = [`A · ${input.names[0]}`, `B · ${input.names[1]}`, keyed ? L.differenceKeyed : 'A − B'].slice(0, panels)
  const share = keyed ? [0.38, 0.38, 0.24] : [1 / 3, 1 / 3, 1 / 3]
  const keyedW = share.map((x) => x * (f.width - (cols - 1) * gap))
  // Heads wrap to two lines at most, the same height over every panel of a row.
  const lines = heads.map((h, i) => wrapText(h, !row && i === 2 ? f.width : keyed ? keyedW[i] : w, fs, f.measure, true).slice(0, 2))
  const headH = Math.max(...lines.map((l) => l.length)) * linePitch(fs) + fs * 0.3
  const rowH = row ? f.height : stacked ? (f.height - (panels - 1) * gap) / panels : (f.height - gap) / 2
  const boxes = heads.map((_, i) => {
    if (stacked) return { x: f.x, y: f.y + i * (rowH + gap), width: f.width, height: rowH }
    if (keyed) return { x: f.x + keyedW.slice(0, i).reduce((x, y) => x + y + gap, 0), y: f.y, width: keyedW[i], height: f.height }
    const [c, r] = row ? [i, 0] : [i % 2, Math.floor(i / 2)]
    // The difference alone on the lower row, the page's full width.
    if (!row && i === 2) return { x: f.x, y: f.y + rowH + gap, width: f.width, height: rowH }
    return { x: f.x + c * (w + gap), y: f.y + r * (rowH + gap), width: w, height: rowH }
  })
  const heading: GraphicElement[] = []
  boxes.forEach((box, i) =>
    lines[i].forEach((line, k) =>
      heading.push(textElement(line, box.x + box.width / 2, box.y + (k + 0.5) * linePitch(fs), f, { align: 'center', bold: true })),
    ),
  )
  const body = (box: (typeof boxes)[number]): Frame => ({ ...f, x: box.x, y: box.y + headH, width: box.width, height: box.height - headH })
  const side = (t: Translation, box: (typeof boxes)[number], bar = input.colorScale) =>
    buildHeatmapOption({
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      attention: t.attention,
      // One scale for both: weights from 0 to 1, whatever the app's range setting.
      norm: 'fixed',
      scale: 'linear',
      colormap: input.colormap,
      colorScale: bar,
      labels: 'auto',
      frame: body(box),
    })
  const parts = [side(a, boxes[0], input.colorScale && !stacked), side(b, boxes[1])]
  if (sameSource) {
    const diff = attentionDifference({ srcTokens: a.srcTokens, aTokens: a.tgtTokens, bTokens: b.tgtTokens, a: a.attention, b: b.attention })
    const r = diff.range.toFixed(1)
    parts.push(
      buildHeatmapOption({
        srcTokens: keyed ? a.srcTokens.map(() => '') : a.srcTokens,
        tgtTokens: keyed ? diff.rows.map(() => '') : diff.rows,
        attention: diff.d,
        labels: 'off',
        colorScale: input.colorScale,
        diverging: { range: diff.range, colors: DIFFERENCE_COLORS, ends: [L.moreA(r), L.moreB(r)] },
        frame: body(boxes[2]),
      }),
    )
  }
  return mergePanels(parts, heading)
}
