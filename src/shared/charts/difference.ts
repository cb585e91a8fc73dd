import { escapeHtml } from './html'
import { firstItem, valueAt } from './data-values'
import type { ChartOption } from './echarts-parts'

/**
 * The difference of two attention maps of one source sentence, A − B, step by step: red where A
 * weighs a source token more, blue where B does, white where they agree. Rows are output steps
 * both have; a row is labelled with A's token, or "A / B" where the two outputs differ there.
 */
export interface DifferenceInput {
  srcTokens: string[]
  aTokens: string[]
  bTokens: string[]
  a: number[][]
  b: number[][]
  fontSize?: number
  /** Legend ends: what a red and a blue cell mean. */
  labels?: { a: string; b: string }
}

/** Blue (B more) through white (no difference) to red (A more): ColorBrewer's RdBu. */
export const DIFFERENCE_COLORS = ['#2166ac', '#67a9cf', '#d1e5f0', '#f7f7f7', '#fddbc7', '#ef8a62', '#b2182b']

export interface Difference {
  rows: string[]
  /** d[t][s] = a[t][s] − b[t][s] */
  d: number[][]
  /** The colour range is ± this: the largest |d|, rounded up to a tenth (at least 0.1). */
  range: number
}

export function attentionDifference(input: Pick<DifferenceInput, 'srcTokens' | 'aTokens' | 'bTokens' | 'a' | 'b'>): Difference {
  const T = Math.min(input.aTokens.length, input.bTokens.length, input.a.length, input.b.length)
  const S = input.srcTokens.length
  const rows: string[] = []
  const d: number[][] = []
  let max = 0
  for (let t = 0; t < T; t++) {
    const ta = input.aTokens[t]
    const tb = input.bTokens[t]
    rows.push(ta === tb ? ta : `${ta} / ${tb}`)
    const row = Array.from({ length: S }, (_, s) => (input.a[t][s] ?? 0) - (input.b[t][s] ?? 0))
    for (const x of row) max = Math.max(max, Math.abs(x))
    d.push(row)
  }
  return { rows, d, range: Math.max(0.1, Math.ceil(max * 10 - 1e-9) / 10) }
}

export function buildDifferenceOption(input: DifferenceInput): ChartOption {
  const { rows, d, range } = attentionDifference(input)
  const S = input.srcTokens.length
  const fontSize = input.fontSize ?? 13
  const data: [number, number, number][] = []
  d.forEach((row, t) => row.forEach((v, s) => data.push([s, t, v])))
  const labels = input.labels ?? { a: 'A', b: 'B' }
  return {
    animation: false,
    grid: { left: 8, right: 90, top: 64, bottom: 8, containLabel: true },
    tooltip: {
      position: 'top',
      formatter: (ps) => {
        const p = firstItem(ps)
        const [s, t, v] = [valueAt(p, 0), valueAt(p, 1), valueAt(p, 2)]
        return `${escapeHtml(rows[t])} ← ${escapeHtml(input.srcTokens[s])}<br/><b>${v >= 0 ? '+' : ''}${v.toFixed(4)}</b>`
      },
    },
    xAxis: {
      type: 'category',
      position: 'top',
      data: input.srcTokens.map((_, i) => String(i)),
      axisTick: { show: false },
      axisLabel: { rotate: S > 10 ? 45 : 0, interval: 0, formatter: (v: string) => input.srcTokens[Number(v)], fontSize },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: rows.map((_, i) => String(i)),
      axisTick: { show: false },
      axisLabel: { interval: 0, formatter: (v: string) => rows[Number(v)], fontSize },
    },
    visualMap: {
      min: -range,
      max: range,
      dimension: 2,
      calculable: false,
      orient: 'vertical',
      right: 8,
      top: 'middle',
      itemHeight: Math.min(200, Math.max(80, rows.length * 20)),
      precision: 2,
      text: [`+${range.toFixed(1)} ${labels.a}`, `−${range.toFixed(1)} ${labels.b}`],
      textStyle: { fontSize: fontSize - 1 },
      inRange: { color: [...DIFFERENCE_COLORS] },
    },
    series: [
      {
        type: 'heatmap',
        data,
        itemStyle: { borderColor: 'rgba(255,255,255,0.6)', borderWidth: 0.5 },
        emphasis: { itemStyle: { borderColor: '#111827', borderWidth: 1 } },
      },
    ],
  }
}
