/**
 * Side by side on a page: two attention maps of one sentence on one fixed 0–1 colour scale, and
 * the difference A − B in red and blue, each a heatmap figure of its own in a panel of the page,
 * merged into one option (one grid per panel).
 */
import type { Translation } from '../api'
import type { ColormapName } from './colormaps'
import { attentionDifference, DIFFERENCE_COLORS } from './difference'
import { FIGURE_TEXT } from './figure-text'
import { linePitch, textElement, textHeight, widest, wrapText, type Frame } from './frame'
import { buildHeatmapOption, heatmapLayout, heatmapNeeds, type HeatmapInput } from './heatmap'
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
  /** A part of a figure split into slides (some output steps): it may leave the difference out, saying so, rather than its text shrink. */
  partial?: boolean
  /** Each map's source title (a part of some source positions names them); default the language's "source". */
  sourceTitles?: [string, string]
  /** The difference's colour range ± this (a part: the whole sentence's, so the parts read alike); default the largest |A − B| drawn. */
  range?: number
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

type Arrangement = 'row' | 'grid' | 'stacked' | 'compact'

/**
 * The first arrangement whose maps have room for every label: in one column on a page taller
 * than wide, else in a row on a very wide page, else A and B above the difference, else in a row,
 * else (a slide) A and B as large as the page allows with one colour bar, and the difference
 * beside or below them, labelled where it has room, else small on A's axes.
 */
export function buildSideBySideFigure(input: SideBySideFigureInput): FigureOption {
  const f = input.frame
  // Stacked is the fitter's other arrangement (frame.alternative), and a portrait page's own.
  const order: Arrangement[] =
    f.alternative || (!f.grows && f.height >= 1.2 * f.width) ? ['stacked'] : f.width >= 2.2 * f.height ? ['row', 'grid', 'compact'] : ['grid', 'row', 'compact']
  let option: FigureOption = { series: [] }
  for (const how of order) {
    // On a page that grows, three labelled maps on a taller page come before the compact one.
    option = how === 'compact' ? { ...compact(input), ...(f.grows ? { fallback: true } : {}) } : how === 'stacked' ? stacked(input) : arranged(input, how)
    if (!option.cramped) break
  }
  return option
}

/**
 * A over B, the columns of both one source read on A's labels, B carrying the one colour bar; the
 * difference small and unlabelled (read on A's axes) beside them where the page is wider than the
 * maps, else under them. Two sources: each map with its own column labels.
 */
function stacked(input: SideBySideFigureInput, withDifference = true): FigureOption {
  const { a, b, frame: f } = input
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  // B's bold head sets it apart from A: half the gap where the slide is a part short of room.
  const gap = withDifference ? fs * 1.2 : fs * 0.6
  const headH = linePitch(fs) + fs * 0.3
  const same = a.srcTokens.join('\u0001') === b.srcTokens.join('\u0001')
  const rowLabelWidth = widest([...a.tgtTokens, ...b.tgtTokens], fs, f.measure, f.highlightRow !== null)
  const maps: HeatmapInput[] = [
    { ...mapOf(a, input, false, 0), rowLabelWidth },
    { ...mapOf(b, input, input.colorScale, 1), rowLabelWidth, ...(same ? { columnLabels: false as const } : {}) },
  ]
  const need = maps.map((m) => heatmapNeeds(m, f))
  const heads = [`A · ${input.names[0]}`, `B · ${input.names[1]}`]
  const cramped: FigureOption = { series: [], cramped: true }
  let diff: { input: HeatmapInput; box: Box; head: string } | null = null
  let mapsW = f.width
  // Without the difference, a line under the maps says where it is shown.
  let mapsH = same && !withDifference ? f.height - linePitch(fs) : f.height
  if (same && withDifference) {
    const d = differenceOf(a, b, input.range)
    const r = d.range.toFixed(1)
    const small: HeatmapInput = {
      srcTokens: a.srcTokens,
      tgtTokens: d.rows,
      attention: d.d,
      labels: 'off',
      axisLabels: false,
      colorScale: input.colorScale,
      diverging: { range: d.range, colors: DIFFERENCE_COLORS, ends: [L.moreA(r), L.moreB(r)] },
    }
    const least = heatmapNeeds(small, f, fs * 0.5)
    const most = heatmapNeeds(small, f, textHeight(fs) * 0.75)
    const headW = (w: number) => [L.differenceKeyed, 'A − B'].find((h) => f.measure(h, fs, true) <= w)
    const room = f.width - Math.max(need[0].width, need[1].width) - gap
    const beside = room >= least.width ? headW(room) : undefined
    if (beside) {
      const w = Math.min(room, most.width)
      mapsW = f.width - w - gap
      diff = { input: small, head: beside, box: { x: f.x + mapsW + gap, y: f.y, width: w, height: Math.min(f.height, headH + most.height) } }
    } else {
      const head = headW(f.width)
      const h = headH + Math.max(least.height, Math.min(most.height, (f.height - need[0].height - need[1].height - 2 * headH - 2 * gap) / 2))
      if (!head || h > f.height) return cramped
      mapsH = f.height - h - gap
      diff = { input: small, head, box: { x: f.x, y: f.y + mapsH + gap, width: f.width, height: h } }
    }
  }
  // The maps' rows one height: each map's share of the height is its rows', and A's column labels on top.
  const T = [a.tgtTokens.length, b.tgtTokens.length]
  const fixedH = headH * 2 + gap + (need[0].height - T[0] * (textHeight(fs) + 0.01))
  const row = (mapsH - fixedH) / (T[0] + T[1])
  // A part of a split figure (a slide of some output steps) keeps A and B at the text size asked,
  // their rows a line high, and where the difference has no room beside them leaves it out, saying so.
  // Every slide of a split figure alike, the difference under the maps is left out of each (a paper figure grows taller for it).
  if (diff && diff.box.y > f.y && withDifference && input.partial && !f.grows) return stacked(input, false)
  if (row <= 0) return cramped
  const hA = mapsH - headH - gap - (headH + T[1] * row)
  const boxes: Box[] = [
    { x: f.x, y: f.y, width: mapsW, height: hA + headH },
    { x: f.x, y: f.y + hA + headH + gap, width: mapsW, height: mapsH - hA - headH - gap },
  ]
  const heading: GraphicElement[] = []
  const title = (text: string, box: Box) => {
    if (f.measure(text, fs, true) > box.width) return false
    heading.push(textElement(text, box.x + box.width / 2, box.y + linePitch(fs) / 2, f, { align: 'center', bold: true }))
    return true
  }
  if (!heads.every((h, i) => title(h, boxes[i]))) return same && withDifference && input.partial ? stacked(input, false) : cramped
  const body = (box: Box): Frame => ({ ...f, x: box.x, y: box.y + headH, width: box.width, height: box.height - headH })
  // A leaves room on the right for B's colour bar, so their plots are as wide.
  const bar = heatmapLayout(maps[1], body(boxes[1])).scaleW
  const frameA = { ...body(boxes[0]), width: boxes[0].width - bar }
  const lay = heatmapLayout(maps[0], frameA)
  const parts = [
    buildHeatmapOption({ ...maps[0], frame: frameA }),
    // B's columns under A's, so one set of source labels serves both.
    buildHeatmapOption({ ...maps[1], ...(same ? { columns: { left: lay.left, width: lay.width } } : {}), frame: body(boxes[1]) }),
  ]
  if (diff) {
    if (!title(diff.head, diff.box)) return cramped
    parts.push(buildHeatmapOption({ ...diff.input, frame: body(diff.box) }))
  }
  if (same && !withDifference) {
    const note = wrapText(L.differenceNoRoom, f.width, fs, f.measure)
    if (note.length > 1) return cramped
    heading.push(textElement(note[0], f.x + f.width / 2, f.y + f.height - linePitch(fs) / 2, f, { align: 'center', color: f.ink.muted }))
    return { ...mergePanels(parts, heading), fallback: true }
  }
  return mergePanels(parts, heading)
}

/** One side's map: on one scale for both, weights from 0 to 1 whatever the app's range setting. */
function mapOf(t: Translation, input: SideBySideFigureInput, colorScale: boolean, side: 0 | 1): HeatmapInput {
  return {
    ...(input.sourceTitles ? { sourceTitle: input.sourceTitles[side] } : {}),
    srcTokens: t.srcTokens,
    tgtTokens: t.tgtTokens,
    attention: t.attention,
    norm: 'fixed',
    scale: 'linear',
    colormap: input.colormap,
    colorScale,
    labels: 'auto',
  }
}

type Box = { x: number; y: number; width: number; height: number }

/**
 * A slide's side by side: A and B in a row at one-line cells (the floor's labels all drawn), each
 * with an equal share of the width left over, sharing B's colour bar (one fixed 0–1 scale). The
 * difference goes where it has room: beside them with cells half a line to ¾ of one, without
 * token labels (read on A's axes); else below both, labelled where that room has its labels; else
 * below the shorter of A and B, unlabelled. Where it has no room at all, A and B carry the slide
 * and a line under them says where the difference is shown (a lecturer's slide is about the two
 * maps; the difference is their reading aid). Cramped when A and B alone do not fit.
 */
function compact(input: SideBySideFigureInput): FigureOption {
  const { a, b, frame: f } = input
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const gap = fs * 1.2
  const pitch = linePitch(fs)
  const maps = [mapOf(a, input, false, 0), mapOf(b, input, input.colorScale, 1)]
  const need = maps.map((m) => heatmapNeeds(m, f))
  const spare = f.width - need[0].width - need[1].width - gap
  // Lines of a head in a width, or null when it needs more than two.
  const wrapped = (text: string, width: number) => {
    const lines = wrapText(text, width, fs, f.measure, true)
    return lines.length <= 2 ? lines : null
  }
  const headH = (lines: number) => lines * pitch + fs * 0.3
  const heads = [`A · ${input.names[0]}`, `B · ${input.names[1]}`]
  const headsAt = (widths: number[]) => heads.map((h, i) => wrapped(h, widths[i]))
  if (spare < 0 || headsAt(need.map((n) => n.width)).some((l) => !l)) return { series: [], cramped: true }

  let widths = [need[0].width + spare / 2, need[1].width + spare / 2]
  const boxes: Box[] = [
    { x: f.x, y: f.y, width: widths[0], height: f.height },
    { x: f.x + widths[0] + gap, y: f.y, width: widths[1], height: f.height },
  ]
  let diff: { box: Box; input: HeatmapInput; head: string[] } | null = null
  let note: string | null = null
  if (a.srcTokens.join('\u0001') === b.srcTokens.join('\u0001')) {
    const d = differenceOf(a, b, input.range)
    const r = d.range.toFixed(1)
    const labelled: HeatmapInput = {
      srcTokens: a.srcTokens,
      tgtTokens: d.rows,
      attention: d.d,
      labels: 'off',
      colorScale: input.colorScale,
      diverging: { range: d.range, colors: DIFFERENCE_COLORS, ends: [L.moreA(r), L.moreB(r)] },
    }
    const small: HeatmapInput = { ...labelled, axisLabels: false }
    const least = heatmapNeeds(small, f, fs * 0.5)
    const most = heatmapNeeds(small, f, textHeight(fs) * 0.75)
    const room = spare - gap
    const beside = room >= least.width ? (wrapped(L.differenceKeyed, room) ?? wrapped('A − B', room)) : null
    if (beside) {
      const w = Math.min(room, most.width)
      widths = need.map((n) => n.width + (room - w) / 2)
      boxes[1].x = f.x + widths[0] + gap
      boxes.forEach((box, i) => (box.width = widths[i]))
      diff = { box: { x: f.x + widths[0] + widths[1] + 2 * gap, y: f.y, width: w, height: f.height }, input: small, head: beside }
    } else {
      const top = headH(Math.max(...headsAt(widths).map((l) => l!.length)))
      const under = (i: number[]): Box => {
        const y = f.y + top + Math.max(...i.map((k) => need[k].height)) + gap
        return { x: boxes[i[0]].x, y, width: i.length > 1 ? f.width : widths[i[0]], height: f.y + f.height - y }
      }
      const full = heatmapNeeds(labelled, f)
      const shorter = need[0].height <= need[1].height ? [0, 1] : [1, 0]
      // Below both, labelled; below both, small; below the shorter map; below the other.
      const tries: [number[], HeatmapInput][] = [
        [[0, 1], labelled],
        [[0, 1], small],
        [[shorter[0]], small],
        [[shorter[1]], small],
      ]
      for (const [under_, what] of tries) {
        const box = under(under_)
        const isSmall = what === small
        const head = isSmall ? (wrapped(L.differenceKeyed, box.width) ?? wrapped('A − B', box.width)) : ['A − B']
        const size = isSmall ? least : full
        if (!head || size.width > box.width || headH(head.length) + size.height > box.height) continue
        // The maps above keep the height the difference does not need, up to half of what is left.
        const want = headH(head.length) + (isSmall ? Math.min(most.height, box.height - headH(head.length)) : size.height)
        const h = want + (isSmall ? 0 : (box.height - want) / 2)
        box.y += box.height - h
        box.height = h
        for (const k of under_) boxes[k].height = box.y - gap - f.y
        diff = { box, input: what, head }
        break
      }
      if (!diff) note = L.differenceNoRoom
    }
  }
  const headLines = headsAt(widths)
  if (headLines.some((l) => !l)) return { series: [], cramped: true }
  const top = headH(Math.max(...headLines.map((l) => l!.length)))
  const heading: GraphicElement[] = []
  const title = (lines: string[], box: Box) =>
    lines.forEach((line, k) => heading.push(textElement(line, box.x + box.width / 2, box.y + (k + 0.5) * pitch, f, { align: 'center', bold: true })))
  boxes.forEach((box, i) => title(headLines[i]!, box))
  if (note) {
    // Under both maps where the page has a line for it; else the slide goes without.
    const lowest = f.y + top + Math.max(need[0].height, need[1].height) + fs * 0.4
    if (f.y + f.height - lowest >= pitch) {
      boxes.forEach((box) => (box.height = f.height - pitch))
      heading.push(textElement(note, f.x + f.width / 2, f.y + f.height - pitch / 2, f, { align: 'center', color: f.ink.muted }))
    }
  }
  const parts = maps.map((m, i) => buildHeatmapOption({ ...m, frame: { ...f, ...boxes[i], y: boxes[i].y + top, height: boxes[i].height - top } }))
  if (diff) {
    title(diff.head, diff.box)
    const h = headH(diff.head.length)
    parts.push(buildHeatmapOption({ ...diff.input, frame: { ...f, ...diff.box, y: diff.box.y + h, height: diff.box.height - h } }))
  }
  return { ...mergePanels(parts, heading), fallback: !!note }
}

/** A − B, on ± `range` where given (a part's: the whole sentence's). */
export function differenceOf(a: Translation, b: Translation, range?: number) {
  const d = attentionDifference({ srcTokens: a.srcTokens, aTokens: a.tgtTokens, bTokens: b.tgtTokens, a: a.attention, b: b.attention })
  return range === undefined ? d : { ...d, range }
}

function arranged(input: SideBySideFigureInput, how: 'row' | 'grid'): FigureOption {
  const { a, b, frame: f } = input
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const gap = fs * 1.2
  const sameSource = a.srcTokens.join('\u0001') === b.srcTokens.join('\u0001')
  // A row: A, B and the difference side by side; a grid: A and B above the difference.
  const panels = sameSource ? 3 : 2
  const row = !sameSource || how === 'row'
  const cols = row ? panels : 2
  const w = (f.width - (cols - 1) * gap) / cols
  const heads = [`A · ${input.names[0]}`, `B · ${input.names[1]}`, 'A − B'].slice(0, panels)
  // Heads wrap to two lines at most, the same height over every panel of a row.
  const lines = heads.map((h, i) => wrapText(h, !row && i === 2 ? f.width : w, fs, f.measure, true).slice(0, 2))
  const headH = Math.max(...lines.map((l) => l.length)) * linePitch(fs) + fs * 0.3
  const rowH = row ? f.height : (f.height - gap) / 2
  const boxes = heads.map((_, i) => {
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
  const side = (t: Translation, box: (typeof boxes)[number], k: 0 | 1) => buildHeatmapOption({ ...mapOf(t, input, input.colorScale, k), frame: body(box) })
  const parts = [side(a, boxes[0], 0), side(b, boxes[1], 1)]
  if (sameSource) {
    const diff = differenceOf(a, b, input.range)
    const r = diff.range.toFixed(1)
    parts.push(
      buildHeatmapOption({
        srcTokens: a.srcTokens,
        tgtTokens: diff.rows,
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
