/**
 * Multi-head cross-attention (a Transformer's): every head's [t][s] matrix as a layer × head grid
 * of small heatmaps, rows layers and columns heads, each titled with how spread out and how
 * diagonal that head is and, given a reference alignment, how well it agrees with it. The grid is
 * always laid out on a frame (a page in points for a figure, the view's box in pixels on screen),
 * every label placed from its measured size, so the small multiples stay readable and no text
 * overlaps at any size.
 *
 * The numbers (src/shared/attention/heads.ts computes them; also in the README):
 * - entropy: the entropy of a step's weights in bits, −Σ_s p_s log2 p_s, averaged over the steps;
 * - diagonality: the share of a step's weight on the source positions within ±1 of the
 *   proportional diagonal d_t = t·(S−1)/(T−1) (first output step on the first source token, last
 *   on the last), averaged over the steps: 1 for a head that reads along the diagonal, about 3/S
 *   for one that reads everywhere evenly;
 * - agreement with a reference alignment (another model's attention for the same source and
 *   output): Σ_s min(p_s, q_s) of the two rows, each scaled to sum to 1, averaged over the steps,
 *   which is 1 − the total variation distance of the two distributions: 1 when a head weighs the
 *   source exactly as the reference does, 0 when they never read the same token.
 */
import { COLORMAPS, type ColormapName } from './colormaps'
import { FIGURE_TEXT } from './figure-text'
import { FIGURE_FONT, columnLabelElements, columnLabels, linePitch, textElement, textHeight, widest, wrapText, type Frame } from './frame'
import { buildHeatmapOption, colorBarElements, displayValue, heatmapNeeds, scaleEnds, type HeatmapInput, type HeatmapStyle } from './heatmap'
import { escapeHtml } from './html'

import { headMatrix, headShape, headStats, projection, statsOf, type HeadRef, type HeadStats, type ReferenceInput } from '../attention/heads'
import type { XAXisComponentOption, YAXisComponentOption } from 'echarts'
import type { HeatmapSeriesOption } from 'echarts/charts'
import type { GridComponentOption, VisualMapComponentOption } from 'echarts/components'
import { firstItem, valueAt } from './data-values'
import { asList, graphicElements, type ChartOption, type FigureOption, type GraphicElement, type HeatmapDatum } from './echarts-parts'

/** A weight as the heatmap writes it: .45, 1.00. */
export const shortValue = (w: number) => w.toFixed(2).replace(/^0\./, '.')

/** The parts of a head's title: entropy, diagonality and, with a reference, agreement (notation, the same in every language). */
export function statsParts(s: HeadStats): string[] {
  return [`${s.entropy.toFixed(2)} b`, `d ${shortValue(s.diagonality)}`, ...(s.agreement === null ? [] : [`a ${shortValue(s.agreement)}`])]
}

export interface HeadsGridInput extends HeatmapStyle {
  srcTokens: string[]
  tgtTokens: string[]
  /** crossAttention[t][layer][head][s] */
  crossAttention: number[][][][]
  /** The head opened large, outlined; null: none. */
  selected?: HeadRef | null
  /** Another model's alignment of the same source and output: each head's agreement with it is on its title, and the best is outlined. */
  reference?: ReferenceInput | null
  colorScale?: boolean
  /** On screen: tooltips and cells that take clicks (a series per head, id `head-L-H`). A figure has neither. */
  interactive?: boolean
  frame: Frame
}

/** Where the grid put everything (for the view, and for tests). */
export interface HeadsGridLayout {
  layers: number
  heads: number
  /** Each head's plot, layer-major: cells[l * heads + h]. */
  cells: { x: number; y: number; width: number; height: number }[]
  /** The text size of the heads' titles, and how many lines each takes. */
  statsSize: number
  statsLines: number
  rowStep: number
  cramped: boolean
  /** How tall the grid and its key are, from the frame's top. */
  used: number
}

/**
 * The ways a head's title can be set, in order of preference: its parts on one line, else on two,
 * else one each, each at the full text size or down to 3/4 of it. Fewer lines come first: the
 * maps need the height more than the titles need the size.
 */
function titleFormats(parts: string[][], fs: number): { lines: string[][]; size: number }[] {
  const n = parts[0]?.length ?? 0
  const split = (p: string[], k: number): string[] => (k === 1 ? [p.join(' · ')] : k === 2 ? [p.slice(0, 2).join(' · '), ...p.slice(2)] : p)
  const out: { lines: string[][]; size: number }[] = []
  for (const k of n === 3 ? [1, 2, 3] : [1, 2]) for (const size of [fs, fs * 0.85, fs * 0.75]) out.push({ lines: parts.map((p) => split(p, k)), size })
  return out
}

/** Every n-th label along an axis whose labels sit `pitch` apart, so that two drawn are at least `need` apart. */
export function labelStep(pitch: number, need: number): number {
  return pitch >= need * 0.95 ? 1 : Math.ceil((need * 1.05) / Math.max(pitch, 1e-6))
}

/** The source labels under a map: every one where they stand apart, else every n-th (turned labels a line apart, upright ones a gap apart). */
export function sourceLabels(tokens: string[], pitch: number, f: Pick<Frame, 'fontSize' | 'measure'>): string[] {
  const fs = f.fontSize
  const { upright } = columnLabels(
    tokens.map((text) => ({ text })),
    pitch,
    f,
  )
  // A turned label is a line high; an upright one as wide as its text, and CJK words need a clear gap (no spaces tell them apart).
  const cjk = /[\u3000-\u9fff\uac00-\ud7a3\uff00-\uffef]/u
  const need = Math.max(...tokens.map((t, i) => (upright[i] ? f.measure(t, fs) + fs * (cjk.test(t) ? 0.6 : 0.3) : textHeight(fs) + fs * 0.15)), 0)
  const step = labelStep(pitch, need)
  return tokens.map((t, i) => (i % step === 0 ? t : ''))
}

/** The grid on its frame: headers, row and column labels, titles, plots; all measured. */
export function headsGridLayout(input: HeadsGridInput): HeadsGridLayout & {
  stats: HeadStats[]
  titles: string[][]
  left: number
  top: number
  hgap: number
  vgap: number
  statsH: number
  colHeadH: number
  colExtent: number
  keyLines: string[]
  scaleW: number
  layerText: string[]
  headText: string[]
  slack: number
} {
  const f = input.frame
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const { layers, heads } = headShape(input.crossAttention)
  const S = Math.max(1, input.srcTokens.length)
  const T = Math.max(1, input.tgtTokens.length)
  const stats = headStats(input.crossAttention, input.reference?.attention ?? null, projection(input.reference, input.tgtTokens, input.srcTokens))
  const parts = stats.map(statsParts)
  const keyLines = wrapText(L.heads.key(input.reference ? input.reference.name : null), f.width, fs, m)
  const keyH = keyLines.length * linePitch(fs) + gap
  const scaleW = input.colorScale === false ? 0 : Math.max(fs * 0.9, ...scaleEnds(input).map((e) => m(e, fs))) + 2 * gap
  const rowHeadW = lh + gap
  const rowLabelW = widest(input.tgtTokens, fs, m)
  const left0 = f.x + rowHeadW + rowLabelW + gap
  // Wide enough that the turned source labels of two neighbouring heads never touch (narrow
  // where the maps carry none: the small maps beside a labelled average).
  const hgap = input.srcTokens.some(Boolean) ? lh + fs * 0.3 : fs * 0.6
  const vgap = gap
  const colHeadH = lh + gap * 0.5
  const availW = Math.max(fs, f.x + f.width - scaleW - left0)
  const labels = input.srcTokens.map((text) => ({ text }))
  // For each way of setting the titles, the largest maps that leave room for them; the first way
  // whose titles fit the width of its maps wins.
  const place = (statsH: number) => {
    let cellW = Math.max(fs, (availW - (Math.max(1, heads) - 1) * hgap) / Math.max(1, heads))
    let cellH = fs
    let cols = columnLabels(labels, cellW / S, f)
    for (let i = 0; i < 3; i++) {
      cols = columnLabels(labels, cellW / S, f)
      const availH = f.height - keyH - colHeadH - cols.extent - 2 * gap
      cellH = Math.max(fs * 0.5, (availH - layers * statsH - (layers - 1) * vgap) / Math.max(1, layers))
      // Cells no more than twice as wide as tall: narrower maps (whose labels may then turn).
      if (cellW / S <= (2 * cellH) / T + 1e-9) break
      cellW = (2 * cellH * S) / T
    }
    // Nor twice as tall as wide.
    if (cellH / T > (2 * cellW) / S) cellH = (2 * cellW * T) / S
    return { cellW, cellH, cols }
  }
  const bold = !!input.reference
  const formats = titleFormats(parts, fs)
  let chosen = formats[formats.length - 1]
  let fits = false
  let statsH = 0
  let placed = place(0)
  for (const fmt of formats) {
    statsH = (fmt.lines[0]?.length ?? 0) * linePitch(fmt.size) + gap * 0.5
    placed = place(statsH)
    chosen = fmt
    if (widest(fmt.lines.flat(), fmt.size, m, bold) <= placed.cellW - fs * 0.2) {
      fits = true
      break
    }
  }
  const { cellW, cellH, cols } = placed
  const fit = { ...chosen, fits }
  const gridW = heads * cellW + (heads - 1) * hgap
  const slack = Math.max(0, (availW - gridW) / 2)
  const left = left0 + slack
  const top = f.y + colHeadH
  const cells: HeadsGridLayout['cells'] = []
  for (let l = 0; l < layers; l++)
    for (let h = 0; h < heads; h++) cells.push({ x: left + h * (cellW + hgap), y: top + l * (statsH + cellH + vgap) + statsH, width: cellW, height: cellH })
  // Headers: the long form where it fits, else L1 / H1.
  const headText = Array.from({ length: heads }, (_, h) => L.heads.head(h + 1))
  const headShort = headText.map((_, h) => `H${h + 1}`)
  const headFits = widest(headText, fs, m) <= cellW - fs * 0.3
  const layerText = Array.from({ length: layers }, (_, l) => L.heads.layer(l + 1))
  const layerFits = widest(layerText, fs, m) <= cellH + statsH
  const shortFits =
    widest(headShort, fs, m) <= cellW &&
    widest(
      layerText.map((_, l) => `L${l + 1}`),
      fs,
      m,
    ) <=
      cellH + statsH
  // Every row labelled where rows are a line high (the fitter gives them room); on a box that has
  // none (the app's page), every n-th row, so no label is drawn over the next.
  const rowStep = labelStep(cellH / T, lh)
  const used = colHeadH + layers * (statsH + cellH) + (layers - 1) * vgap + gap + cols.extent + gap + keyH
  return {
    layers,
    heads,
    cells,
    statsSize: fit.size,
    statsLines: fit.lines[0]?.length ?? 0,
    rowStep,
    // Too small to read: titles that do not fit, headers that do not, or maps whose rows are
    // thinner than a quarter of the text (the text then shrinks, and the maps grow).
    // (Small maps without token labels, read on the average's axes, show their shape at rows an eighth of the text.)
    cramped: !fit.fits || !shortFits || cellH / T < fs / (input.srcTokens.some(Boolean) ? 4 : 8) || cellW < 2 * fs || f.x + f.width - scaleW - left0 < 2 * fs,
    used,
    stats,
    titles: fit.lines,
    left,
    top,
    hgap,
    vgap,
    statsH,
    colHeadH,
    colExtent: cols.extent,
    keyLines,
    scaleW,
    layerText: layerFits ? layerText : layerText.map((_, l) => `L${l + 1}`),
    headText: headFits ? headText : headShort,
    slack,
  }
}

/**
 * The layer × head grid as one ECharts option: one grid and one heatmap series per head (each
 * the head's [t][s] weights on the shared 0–1 colour scale), the layers named on the left, the
 * heads on top, the output tokens beside the first column, the source tokens under the last row,
 * each head's numbers over its map, a colour bar and a key.
 */
export function buildHeadsGridOption(input: HeadsGridInput): FigureOption {
  const f = input.frame
  const fs = f.fontSize
  const gap = fs * 0.4
  const lh = textHeight(fs)
  const lay = headsGridLayout(input)
  const { srcTokens, tgtTokens, crossAttention: cross } = input
  const S = srcTokens.length
  const T = tgtTokens.length
  const cmap = input.colormap ?? 'viridis'
  const best = input.reference ? [...lay.stats].sort((x, y) => y.agreement! - x.agreement! || x.layer - y.layer || x.head - y.head)[0] : null
  const same = (a: HeadRef | null | undefined, b: HeadRef | null | undefined) => !!a && !!b && a.layer === b.layer && a.head === b.head
  const grid: GridComponentOption[] = []
  const xAxis: XAXisComponentOption[] = []
  const yAxis: YAXisComponentOption[] = []
  const series: HeatmapSeriesOption[] = []
  const elements: GraphicElement[] = []
  const indices = (n: number) => Array.from({ length: n }, (_, i) => String(i))
  const lineW = Math.max(1.5, fs / 8)
  const small = Math.min(...lay.cells.map((c) => Math.min(c.width / Math.max(1, S), c.height / Math.max(1, T))))
  lay.cells.forEach((c, g) => {
    const layer = Math.floor(g / lay.heads)
    const head = g % lay.heads
    const m = headMatrix(cross, { layer, head })
    grid.push({ left: c.x, top: c.y, width: c.width, height: c.height, containLabel: false })
    xAxis.push({
      type: 'category',
      gridIndex: g,
      position: 'top',
      data: indices(S),
      axisTick: { show: false },
      axisLine: { show: false },
      axisLabel: { show: false },
      splitArea: { show: false },
    })
    yAxis.push({
      type: 'category',
      gridIndex: g,
      inverse: true,
      data: indices(T),
      axisTick: { show: false },
      axisLine: { show: false },
      // The output tokens beside the first head of each layer only: the maps share their rows.
      axisLabel:
        head === 0
          ? { interval: lay.rowStep - 1, fontSize: fs, margin: gap, color: f.ink.text, formatter: (v: string) => tgtTokens[Number(v)] ?? '' }
          : { show: false },
    })
    const data: HeatmapDatum[] = []
    for (let t = 0; t < T; t++) {
      const r = m[t] ?? []
      const rowMax = Math.max(0, ...r)
      for (let s = 0; s < S; s++) data.push([s, t, displayValue(r[s] ?? 0, rowMax, input), r[s] ?? 0])
    }
    series.push({
      id: `head-${layer}-${head}`,
      name: FIGURE_TEXT[f.lang].heads.name(layer + 1, head + 1),
      type: 'heatmap',
      xAxisIndex: g,
      yAxisIndex: g,
      data,
      progressive: 0,
      silent: !input.interactive,
      cursor: input.interactive ? 'pointer' : 'default',
      emphasis: input.interactive ? { itemStyle: { borderColor: '#f97316', borderWidth: 1 } } : { disabled: true },
      itemStyle: {
        borderColor: f.ink.dark ? 'rgba(17,24,39,0.6)' : 'rgba(255,255,255,0.6)',
        borderWidth: small >= 6 ? Math.max(0.25, fs / 40) : 0,
      },
    })
    // The head's numbers over its map, centred, the best head's in bold accent.
    const isBest = same(best, { layer, head })
    const lines = lay.titles[g] ?? []
    const pitch = linePitch(lay.statsSize)
    lines.forEach((text, i) => {
      const y = c.y - gap * 0.5 - (lines.length - i - 0.5) * pitch
      elements.push(
        textElement(text, c.x + c.width / 2, y, f, { align: 'center', size: lay.statsSize, bold: isBest, color: isBest ? f.ink.accent : f.ink.text }),
      )
    })
    const outline = (color: string, width: number, dash?: number[]) => ({
      type: 'rect',
      silent: true,
      z: 100,
      shape: { x: c.x + width / 2, y: c.y + width / 2, width: c.width - width, height: c.height - width },
      style: { fill: 'none', stroke: color, lineWidth: width, lineDash: dash },
    })
    if (isBest) elements.push(outline(f.ink.accent, lineW * 1.5))
    // The head opened large: a dark line and a light one inside it, seen on every colour of the map.
    if (same(input.selected, { layer, head })) elements.push(outline('#111827', lineW * 2), outline('#ffffff', lineW, [lineW * 2, lineW * 1.5]))
  })
  // Heads named over their columns, layers beside their rows (turned a quarter, read upwards).
  lay.headText.forEach((text, h) => {
    const c = lay.cells[h]
    if (c) elements.push(textElement(text, c.x + c.width / 2, f.y + lh / 2, f, { align: 'center', color: f.ink.muted }))
  })
  lay.layerText.forEach((text, l) => {
    const c = lay.cells[l * lay.heads]
    if (c)
      elements.push(textElement(text, f.x + lay.slack + lh / 2, c.y - lay.statsH / 2 + c.height / 2, f, { align: 'center', rotate: true, color: f.ink.muted }))
  })
  // The source tokens under each map of the last layer.
  const bottom = lay.cells.slice(-lay.heads)
  for (const c of bottom)
    elements.push(
      ...columnLabelElements(
        sourceLabels(srcTokens, c.width / Math.max(1, S), f).map((text) => ({ text })),
        c.x,
        c.width / Math.max(1, S),
        c.y + c.height,
        'below',
        f,
      ).filter((e) => (e as { style?: { text?: string } }).style?.text !== ''),
    )
  const lastBottom = (bottom[0]?.y ?? f.y) + (bottom[0]?.height ?? 0)
  const keyTop = lastBottom + gap + lay.colExtent + gap
  lay.keyLines.forEach((line, i) =>
    elements.push(textElement(line, f.x + f.width / 2, keyTop + (i + 0.5) * linePitch(fs), f, { align: 'center', color: f.ink.muted })),
  )
  if (input.colorScale !== false && lay.cells.length) {
    const first = lay.cells[0]
    const span = lastBottom - first.y
    // At least room for the bar's end labels; reaching up past the first map when the grid is short.
    const total = Math.max(Math.min(span, fs * 9 + 2 * (lh + gap)), fs * 0.5 + 2 * (lh + gap))
    const barTop = total <= span ? first.y + (span - total) / 2 : Math.max(f.y, lastBottom - total)
    const cx = lay.cells[lay.heads - 1].x + lay.cells[lay.heads - 1].width + lay.scaleW / 2
    elements.push(...colorBarElements(cx, barTop, total, COLORMAPS[cmap], scaleEnds(input), f))
  }
  return {
    animation: false,
    textStyle: { fontFamily: FIGURE_FONT },
    cramped: lay.cramped,
    grid,
    xAxis,
    yAxis,
    visualMap: {
      show: false,
      min: 0,
      max: 1,
      dimension: 2,
      seriesIndex: series.map((_, i) => i),
      inRange: { color: [...COLORMAPS[cmap]] },
    },
    tooltip: input.interactive
      ? {
          trigger: 'item',
          formatter: (ps) => {
            const p = firstItem(ps)
            const [s, t, w] = [valueAt(p, 0), valueAt(p, 1), valueAt(p, 3)]
            return `${escapeHtml(p.seriesName ?? '')}<br/>${escapeHtml(tgtTokens[t] ?? '')} ← ${escapeHtml(srcTokens[s] ?? '')}<br/><b>${w.toFixed(4)}</b>`
          },
        }
      : undefined,
    graphic: { elements },
    series,
  }
}

/**
 * The grid as a figure: every map labelled where the page has room; else (a slide, a paper
 * column: twelve maps of a 10-token sentence cannot each carry a readable label per row) the
 * average of the heads large with every token label, and the twelve maps small beside or under
 * it with its axes but no token labels, each still titled with its numbers.
 */
export function buildHeadsGridFigure(input: HeadsGridInput): FigureOption {
  const grid = buildHeadsGridOption(input)
  const f = input.frame
  const fs = f.fontSize
  const first = headsGridLayout(input).cells[0]
  // A row or a turned column label needs a line's height of map.
  const line = textHeight(fs)
  const labelled = !!first && first.height / Math.max(1, input.tgtTokens.length) >= line && first.width / Math.max(1, input.srcTokens.length) >= line
  if (!grid.cramped && labelled) return grid
  const gap = fs
  // Beside the average on a wide page, under it on a tall one.
  const wide = f.width >= 1.2 * f.height
  const split = wide ? f.width * 0.45 : f.height * 0.45
  const keyBox = wide ? { ...f, width: split - gap / 2 } : { ...f, height: split - gap / 2 }
  const smallBox = wide
    ? { ...f, x: f.x + split + gap / 2, width: f.width - split - gap / 2 }
    : { ...f, y: f.y + split + gap / 2, height: f.height - split - gap / 2 }
  const key = headsAverageFigure(input, keyBox)
  const small = smallHeadsFigure(input, smallBox)
  return { ...joinOptions(key, small, []), cramped: !!key.cramped || !!small.cramped }
}

/** One part of the grid split into slides (issue 40): the heads' average with every label, or the grid of small maps. */
export function buildHeadsPanelFigure(input: HeadsGridInput & { outputTitle?: string }, panel: 'average' | 'grid'): FigureOption {
  // On a slide of its own the average carries the colour scale (beside the small maps, they do).
  return panel === 'average' ? headsAverageFigure(input, input.frame, input.colorScale !== false) : smallHeadsFigure(input, input.frame)
}

/** The average of every head on a box, large, titled and with every token label: the axes the small maps are read on. */
function headsAverageFigure(input: HeadsGridInput & { outputTitle?: string }, box: Frame, colorScale = false): FigureOption {
  const f = box
  const fs = f.fontSize
  const pitch = linePitch(fs)
  const { layers, heads } = headShape(input.crossAttention)
  const maps = Array.from({ length: layers * heads }, (_, g) => headMatrix(input.crossAttention, { layer: Math.floor(g / heads), head: g % heads }))
  const average = input.tgtTokens.map((_, t) => input.srcTokens.map((_, s) => maps.reduce((x, m) => x + (m[t]?.[s] ?? 0), 0) / Math.max(1, maps.length)))
  const keyLines = wrapText(FIGURE_TEXT[f.lang].heads.average, box.width, fs, f.measure, true)
  const keyH = keyLines.length * pitch + fs * 0.3
  const map: HeatmapInput = {
    srcTokens: input.srcTokens,
    tgtTokens: input.tgtTokens,
    attention: average,
    norm: 'fixed',
    scale: 'linear',
    colormap: input.colormap,
    colorScale: false,
    labels: 'off',
    ...(input.outputTitle ? { outputTitle: input.outputTitle } : {}),
  }
  // The colour bar where the page is wide enough for it beside every column's label (a long sentence's columns come first).
  const bar = colorScale && heatmapNeeds({ ...map, colorScale: true }, f).width <= box.width
  const option = buildHeatmapOption({ ...map, colorScale: bar, frame: { ...box, y: box.y + keyH, height: box.height - keyH } })
  const elements = keyLines.map((text, i) => textElement(text, box.x + box.width / 2, box.y + (i + 0.5) * pitch, f, { align: 'center', bold: true }))
  return { ...option, graphic: { elements: [...elements, ...graphicElements(option)] } }
}

/** Every head's map small, without token labels (read on the average's axes, the note says), each titled with its numbers. */
function smallHeadsFigure(input: HeadsGridInput, box: Frame): FigureOption {
  const fs = box.fontSize
  const pitch = linePitch(fs)
  const noteLines = wrapText(FIGURE_TEXT[box.lang].heads.sameAxes, box.width, fs, box.measure)
  const noteH = noteLines.length * pitch + fs * 0.3
  const blank = (tokens: string[]) => tokens.map(() => '')
  const small = buildHeadsGridOption({
    ...input,
    srcTokens: blank(input.srcTokens),
    tgtTokens: blank(input.tgtTokens),
    frame: { ...box, height: box.height - noteH },
  })
  const elements = noteLines.map((line, i) =>
    textElement(line, box.x + box.width / 2, box.y + box.height - noteH + fs * 0.3 + (i + 0.5) * pitch, box, {
      align: 'center',
      color: box.ink.muted,
    }),
  )
  return { ...small, graphic: { elements: [...graphicElements(small), ...elements] } }
}

const list = asList

/** Two options on one page: the second's grids, axes, series and colour maps indexed after the first's. */
function joinOptions(a: ChartOption, b: ChartOption, extra: GraphicElement[]): ChartOption {
  const grids = list(a.grid).length
  const series = list(a.series).length
  const shift = <A extends { gridIndex?: number }>(axis: A) => ({ ...axis, gridIndex: (axis.gridIndex ?? 0) + grids })
  const indexOf = (x: number | undefined) => x ?? 0
  const visualMap: VisualMapComponentOption[] = [
    ...list(a.visualMap).map((v) => ({ ...v, seriesIndex: v.seriesIndex ?? list(a.series).map((_, i) => i) })),
    ...list(b.visualMap).map((v) => ({
      ...v,
      seriesIndex: (Array.isArray(v.seriesIndex) ? v.seriesIndex : [typeof v.seriesIndex === 'number' ? v.seriesIndex : 0]).map((i) => i + series),
    })),
  ]
  const graphic = graphicElements
  return {
    animation: false,
    textStyle: { fontFamily: FIGURE_FONT },
    grid: [...list(a.grid), ...list(b.grid)],
    xAxis: [...list(a.xAxis), ...list(b.xAxis).map(shift)],
    yAxis: [...list(a.yAxis), ...list(b.yAxis).map(shift)],
    series: [...list(a.series), ...list(b.series).map((x) => ({ ...x, xAxisIndex: indexOf(x.xAxisIndex) + grids, yAxisIndex: indexOf(x.yAxisIndex) + grids }))],
    visualMap,
    graphic: { elements: [...extra, ...graphic(a), ...graphic(b)] },
  }
}

/** Which head a click on the grid's series `id` names, or null. */
export function headOfSeries(id: unknown): HeadRef | null {
  const m = typeof id === 'string' ? /^head-(\d+)-(\d+)$/.exec(id) : null
  return m ? { layer: Number(m[1]), head: Number(m[2]) } : null
}

export interface HeadFigureInput extends HeatmapStyle {
  srcTokens: string[]
  tgtTokens: string[]
  crossAttention: number[][][][]
  head: HeadRef
  reference?: ReferenceInput | null
  colorScale?: boolean
  frame: Frame
}

/** One head large on a page: its name and numbers on a line above, then its heatmap. */
export function buildHeadFigure(input: HeadFigureInput): FigureOption {
  const f = input.frame
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const m = headMatrix(input.crossAttention, input.head)
  const stats = statsOf(input.head, m, input.reference?.attention, projection(input.reference, input.tgtTokens, input.srcTokens))
  const heading = `${L.heads.name(input.head.layer + 1, input.head.head + 1)} · ${statsParts(stats).join(' · ')}`
  const { option, room } = headedHeatmap(f, heading, 'center', L.heads.key(input.reference ? input.reference.name : null), {
    srcTokens: input.srcTokens,
    tgtTokens: input.tgtTokens,
    attention: m,
    colormap: input.colormap,
    colorScale: input.colorScale,
    labels: 'auto',
  })
  return { ...option, cramped: !!option.cramped || room < 3 * fs }
}

/**
 * A heatmap on a page with a bold heading above it (wrapped, centred or from the left) and, when
 * given, a muted line below it, centred: the one-head and the step-by-head figures. `room` is the
 * height the heatmap was given.
 */
function headedHeatmap(
  f: Frame,
  heading: string,
  align: 'center' | 'left',
  footer: string | null,
  heatmap: Omit<HeatmapInput, 'frame'>,
): { option: FigureOption; room: number } {
  const fs = f.fontSize
  const pitch = linePitch(fs)
  const lines = wrapText(heading, f.width, fs, f.measure, true)
  const footLines = footer === null ? [] : wrapText(footer, f.width, fs, f.measure)
  const headH = lines.length * pitch + fs * 0.4
  const footH = footer === null ? 0 : footLines.length * pitch + fs * 0.4
  const room = f.height - headH - footH
  const heat = buildHeatmapOption({ ...heatmap, frame: { ...f, y: f.y + headH, height: Math.max(fs, room) } })
  const x = align === 'center' ? f.x + f.width / 2 : f.x
  const elements = [
    ...lines.map((line, i) => textElement(line, x, f.y + (i + 0.5) * pitch, f, { ...(align === 'center' ? { align } : {}), bold: true })),
    ...footLines.map((line, i) =>
      textElement(line, f.x + f.width / 2, f.y + f.height - footH + fs * 0.4 + (i + 0.5) * pitch, f, { align: 'center', color: f.ink.muted }),
    ),
    ...graphicElements(heat),
  ]
  return { option: { ...heat, graphic: { elements } }, room }
}

/** Row names of the per-head view of one step: L1 H1, L1 H2, …, then the average. */
export function headRowNames(layers: number, heads: number, average: string): string[] {
  const out: string[] = []
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) out.push(`L${l + 1} H${h + 1}`)
  return [...out, average]
}

/** One step's weights head by head, [l·H + h][s], with their average as the last row. */
export function stepHeadRows(step: number[][][], average: number[]): number[][] {
  return [...step.flat(), average]
}

export interface StepHeadsFigureInput {
  srcTokens: string[]
  tgtTokens: string[]
  step: number
  /** crossAttention[step]: [layer][head][s]. */
  heads: number[][][]
  /** attention[step]: the average of the heads. */
  average: number[]
  colormap?: ColormapName
  colorScale?: boolean
  frame: Frame
}

/**
 * A Transformer's step-through on a page: the step's weights, one row per head (layer by layer)
 * and a last row for their average, as a heatmap with the source tokens across. A Transformer has
 * no raw scores and no single context vector to show: each head reads its own projection of the
 * encoder states.
 */
export function buildStepHeadsFigure(input: StepHeadsFigureInput): FigureOption {
  const f = input.frame
  const L = FIGURE_TEXT[f.lang]
  const layers = input.heads.length
  const heads = input.heads[0]?.length ?? 0
  const heading = L.stepN(input.step + 1, input.tgtTokens[input.step] ?? '')
  return headedHeatmap(f, heading, 'left', null, {
    srcTokens: input.srcTokens,
    tgtTokens: headRowNames(layers, heads, L.heads.mean),
    attention: stepHeadRows(input.heads, input.average),
    colormap: input.colormap,
    colorScale: input.colorScale,
    labels: 'auto',
    outputTitle: L.heads.rows,
  }).option
}
