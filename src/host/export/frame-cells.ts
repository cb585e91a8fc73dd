/**
 * An animation's frames drawn with their repeated heatmap cells drawn once (issue 40 #8). The
 * step-through's encoder states are a 27 × 48 heatmap whose cells keep their place and colour in
 * every frame; only their opacity (each row faded by its step's weight) changes, and ECharts spends
 * more than half of a frame's drawing on those 1,296 cells. So a large heatmap series whose cells,
 * grid, axes and colour scale are those of one drawn before is drawn by ECharts with one cell, and
 * that cell's SVG replaced by the cells as ECharts drew them before, each with this frame's
 * opacity: the SVG ECharts draws for the frame, cell for cell.
 *
 * What it relies on is checked on the cells ECharts drew, not assumed: a cell's SVG is
 * `<path d fill …></path>`, one after another in data order, with `fill-opacity` the item's
 * opacity as JavaScript writes the number, absent at 1, and no stroke. Cells that do not read so
 * are never reused: that series is drawn by ECharts in every frame.
 */
import type { ChartOption } from '../../shared/charts/echarts-parts'
import type { RenderSvg } from '../../shared/charts/fit'
import { optionSvg } from './figure'

/** Fewer cells than this are drawn by ECharts every time: not worth a template. */
const MIN_CELLS = 256
/** Templates kept at once (an animation's frames share one; the fitter's other sizes add a few). */
const MOST_KEPT = 8

/** A series' cells as ECharts drew them: each data index's SVG around its fill-opacity, or null where none was drawn. */
interface Template {
  cells: ({ head: string; tail: string } | null)[]
  /** What ECharts writes between two cells (a line break). */
  between: string
  /** A data index that was drawn: the one cell the frame is drawn with. */
  first: number
}

type Item = { value?: unknown; itemStyle?: { opacity?: unknown } } | unknown[]

const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x])

type Series = Record<string, unknown> & { type?: string; data?: Item[]; xAxisIndex?: number; yAxisIndex?: number; itemStyle?: { opacity?: unknown } }
const seriesOf = (option: ChartOption) => list(option.series as Series | Series[])

/** An item's opacity, or null where it carries anything else than a value and an opacity (its SVG may differ in more than fill-opacity). */
function opacityOf(item: Item): number | null {
  if (Array.isArray(item)) return 1
  if (typeof item !== 'object' || item === null) return null
  const keys = Object.keys(item)
  if (keys.some((k) => k !== 'value' && k !== 'itemStyle')) return null
  const style = item.itemStyle
  if (style === undefined) return 1
  if (Object.keys(style).some((k) => k !== 'opacity')) return null
  return style.opacity === undefined ? 1 : typeof style.opacity === 'number' ? style.opacity : null
}

/** Where a cell's template names its series. */
const SERIES_SLOT = ' ecmeta_series_index="#"'

const fillOpacity = (o: number) => (o < 1 ? ` fill-opacity="${o}"` : '')

/**
 * What places and colours a heatmap series' cells: the page, the series (but its items'
 * opacities and its place among the series), its grid and axes, the visual maps that colour it. Functions (label formatters) are
 * left out by JSON, and draw no cell.
 */
function cellsKey(option: ChartOption, index: number, width: number, height: number): string {
  const s = seriesOf(option)[index]
  const x = list(option.xAxis as Record<string, unknown>[] | undefined)[s.xAxisIndex ?? 0]
  const y = list(option.yAxis as Record<string, unknown>[] | undefined)[s.yAxisIndex ?? 0]
  const grid = list(option.grid as object[] | undefined)[(x?.gridIndex as number | undefined) ?? 0]
  // The maps that colour it, named without the series' place (a frame with one series fewer before it is the same cells).
  const maps = list(option.visualMap as Record<string, unknown>[] | undefined)
    .filter((v) => {
      const which = v.seriesIndex as number | number[] | undefined
      return which === undefined || list(which).includes(index)
    })
    .map((v) => ({ ...v, seriesIndex: null }))
  const values = (s.data ?? []).map((d) => (Array.isArray(d) ? d : d.value))
  return JSON.stringify([width, height, { ...s, data: null }, values, grid, x, y, maps])
}

/** The heatmap series worth a template: many cells, each a value with at most an opacity. */
function cellSeries(option: ChartOption): number[] {
  const out: number[] = []
  seriesOf(option).forEach((s, i) => {
    const data = s.data
    if (s.type !== 'heatmap' || !Array.isArray(data) || data.length < MIN_CELLS) return
    if (s.itemStyle?.opacity !== undefined || s.label !== undefined) return
    if (data.every((d) => opacityOf(d) !== null)) out.push(i)
  })
  return out
}

/** The cells of series `index` in an SVG ECharts drew; null where they do not read as the header says. */
function readCells(svg: string, index: number, data: Item[]): Template | null {
  const own = new RegExp(`<path [^>]*ecmeta_series_index="${index}"[^>]*></path>`, 'g')
  const cells: Template['cells'] = data.map(() => null)
  let end = -1
  let between: string | null = null
  for (const m of svg.matchAll(own)) {
    // One run of cells, the same white space between any two: nothing of another series drawn between them.
    if (end >= 0) {
      const gap = svg.slice(end, m.index)
      if (!/^\s*$/.test(gap) || (between !== null && gap !== between)) return null
      between = gap
    }
    end = m.index + m[0].length
    const parts = /^(<path d="[^"]*" fill="[^"]*")(?: fill-opacity="([^"]*)")?( [^>]*)><\/path>$/.exec(m[0])
    const k = Number(/ ecmeta_data_index="(\d+)"/.exec(m[0])?.[1] ?? NaN)
    if (!parts || !(k >= 0 && k < data.length) || cells[k] || / stroke/.test(parts[3])) return null
    const o = opacityOf(data[k])!
    if (fillOpacity(o) !== (parts[2] === undefined ? '' : ` fill-opacity="${parts[2]}"`)) return null
    // The series' place is written in at each frame.
    cells[k] = { head: parts[1], tail: `${parts[3].replace(` ecmeta_series_index="${index}"`, SERIES_SLOT)}></path>` }
  }
  // Every element of the series read: none drawn as anything else than such a path.
  const drawn = svg.split(`ecmeta_series_index="${index}"`).length - 1
  if (drawn !== cells.filter((c) => c !== null).length) return null
  const first = cells.findIndex((c) => c !== null)
  return first < 0 ? null : { cells, first, between: between ?? '' }
}

/** A frame as ECharts draws it: the still figure's SVG without the hover styles no frame shows. */
const plainFrame: RenderSvg = (option, width, height) => optionSvg(option, width, height, false)

/**
 * A RenderSvg for an animation's frames, one per animation: `draw`'s SVG, but the cells of a large
 * heatmap series drawn twice with the same key are read from the second drawing and drawn from it
 * after (a series whose cells change every frame is never read).
 */
export function frameRenderer(draw: RenderSvg = plainFrame): RenderSvg {
  const seen = new Map<string, Template | 'once' | 'unusable'>()
  /** The frame with each known series drawn as one cell, which its template's cells then replace; null where that cell is not found. */
  const fromTemplates = (option: ChartOption, width: number, height: number, known: { i: number; t: Template }[]): string | null => {
    const all = seriesOf(option)
    const series = all.slice()
    for (const { i, t } of known) series[i] = { ...all[i], data: [all[i].data![t.first]] }
    let svg = draw({ ...option, series: series as ChartOption['series'] }, width, height)
    for (const { i, t } of known) {
      const at = new RegExp(`<path [^>]*ecmeta_series_index="${i}" ecmeta_data_index="0"[^>]*></path>`).exec(svg)
      if (!at) return null
      const data = all[i].data!
      const cells: string[] = []
      t.cells.forEach((c, k) => {
        if (c) cells.push(c.head + fillOpacity(opacityOf(data[k])!) + c.tail.replace(SERIES_SLOT, ` ecmeta_series_index="${i}"`))
      })
      svg = svg.slice(0, at.index) + cells.join(t.between) + svg.slice(at.index + at[0].length)
    }
    return svg
  }
  return (option, width, height) => {
    const found = cellSeries(option).map((i) => ({ i, key: cellsKey(option, i, width, height) }))
    const known = found.flatMap(({ i, key }) => {
      const t = seen.get(key)
      return typeof t === 'object' ? [{ i, t }] : []
    })
    const svg = (known.length ? fromTemplates(option, width, height, known) : null) ?? draw(option, width, height)
    // The others, drawn whole by ECharts in this frame: a second drawing with the same key becomes its template.
    for (const { i, key } of found) {
      const was = seen.get(key)
      if (was === 'once') seen.set(key, readCells(svg, i, seriesOf(option)[i].data!) ?? 'unusable')
      else if (was === undefined) {
        if (seen.size >= MOST_KEPT) seen.clear()
        seen.set(key, 'once')
      }
    }
    return svg
  }
}
