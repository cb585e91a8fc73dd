import type { Translation } from '../api'

/** Positions of `a` that are not part of a longest common subsequence with `b`. */
export function differing(a: string[], b: string[]): boolean[] {
  const n = a.length
  const m = b.length
  const L = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1])
  }
  const out = new Array<boolean>(n).fill(true)
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out[i] = false
      i++
      j++
    } else if (L[i + 1][j] >= L[i][j + 1]) i++
    else j++
  }
  return out
}

export interface ComparisonInput {
  translations: Translation[]
  names: string[]
  title?: string
}

const PALETTE = ['#6b7280', '#2563eb', '#c2410c', '#059669', '#7c3aed', '#db2777', '#0891b2']

/**
 * Per-token probability of each model's output, one line per model over output positions: the
 * no-attention model's confidence falls as the sentence goes on, the attention models' holds.
 */
export function buildComparisonOption(input: ComparisonInput): Record<string, unknown> {
  const T = Math.max(0, ...input.translations.map((t) => t.tgtTokens.length))
  return {
    animation: false,
    color: PALETTE,
    title: input.title ? { text: input.title, left: 'center' } : undefined,
    legend: { top: input.title ? 28 : 0, data: input.names },
    grid: { left: 48, right: 16, top: input.title ? 64 : 36, bottom: 36 },
    tooltip: {
      trigger: 'axis',
      formatter: (ps: { seriesIndex: number; dataIndex: number; value: number }[]) =>
        ps
          .map((p) => {
            const tok = input.translations[p.seriesIndex].tgtTokens[p.dataIndex] ?? ''
            return `${input.names[p.seriesIndex]}: ${tok.replace(/</g, '&lt;')} ${(p.value * 100).toFixed(1)}%`
          })
          .join('<br/>'),
    },
    xAxis: { type: 'category', name: 'output position', nameLocation: 'middle', nameGap: 24, data: Array.from({ length: T }, (_, i) => String(i + 1)) },
    yAxis: { type: 'value', name: 'P(token)', min: 0, max: 1 },
    series: input.translations.map((t, k) => ({
      type: 'line',
      name: input.names[k],
      symbolSize: 7,
      data: t.tokenLogProbs.map((lp) => Math.exp(lp)),
      label: { show: false },
    })),
  }
}

/** One row of numbers as a strip: the no-attention model's fixed context vector. */
export function buildVectorStripOption(values: number[], title?: string): Record<string, unknown> {
  const max = Math.max(1e-6, ...values.map(Math.abs))
  return {
    animation: false,
    title: title ? { text: title, left: 0, textStyle: { fontSize: 12, fontWeight: 'normal' } } : undefined,
    grid: { left: 4, right: 4, top: title ? 24 : 4, bottom: 4 },
    tooltip: { formatter: (p: { value: [number, number, number] }) => `dim ${p.value[0]}: ${p.value[2].toFixed(3)}` },
    xAxis: { type: 'category', data: values.map((_, i) => String(i)), show: false },
    yAxis: { type: 'category', data: ['c'], show: false },
    visualMap: { min: -max, max, show: false, inRange: { color: ['#2563eb', '#f8fafc', '#c2410c'] } },
    series: [{ type: 'heatmap', data: values.map((v, i) => [i, 0, v]) }],
  }
}
