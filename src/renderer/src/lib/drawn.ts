// What a view handed ECharts, summarised for the data-* attributes the end-to-end tests read.
// Read from the option the view built: the live chart's getOption() deep-clones the whole figure.
import type { ChartOption } from './echarts'

type Part = Record<string, unknown>

/** An option part that may be one object or a list of them, as a list. */
function many(x: unknown): Part[] {
  if (x === undefined || x === null) return []
  return (Array.isArray(x) ? x : [x]) as Part[]
}

/** The index-th component of a type (xAxis, yAxis, visualMap, …). */
export function component(option: ChartOption, type: keyof ChartOption, index = 0): Part | undefined {
  return many(option[type])[index]
}

/** The first series with this id, or else of this type. */
export function series(option: ChartOption, match: { id?: string; type?: string }): Part | undefined {
  return many(option.series).find((s) => (match.id === undefined || s.id === match.id) && (match.type === undefined || s.type === match.type))
}

export function seriesOfType(option: ChartOption, type: string): Part[] {
  return many(option.series).filter((s) => s.type === type)
}

/** The `data` list of a component, series or marker; empty when there is none. */
export function dataOf(part: unknown): unknown[] {
  const data = (part as Part | undefined)?.data
  return Array.isArray(data) ? data : []
}

/** A sub-part (a series' markLine, an axis' axisLabel). */
export function partOf(part: unknown, key: string): Part | undefined {
  const p = (part as Part | undefined)?.[key]
  return p && typeof p === 'object' ? (p as Part) : undefined
}

/** The number a data item stands for: 3, [x, 3] or { value: 3 }. */
export function valueOf(item: unknown): number {
  if (typeof item === 'number') return item
  if (Array.isArray(item)) return Number(item[item.length - 1])
  return Number((item as { value?: unknown } | null)?.value)
}

/** A heatmap option's cells as the matrix [row][column] it drew (rows × cols, 0 where none). */
export function drawnCells(option: ChartOption, rows: number, cols: number): number[][] {
  const matrix = Array.from({ length: rows }, () => new Array<number>(cols).fill(0))
  for (const c of dataOf(series(option, { type: 'heatmap' })) as { value: number[] }[]) matrix[c.value[1]][c.value[0]] = c.value[3]
  return matrix
}
