import type { CorpusResult } from '../api'

const PALETTE = ['#6b7280', '#2563eb', '#c2410c', '#059669', '#7c3aed', '#db2777', '#0891b2']

/** BLEU against source length, one line per model: Bahdanau et al.'s figure, measured. */
export function buildCorpusOption(corpus: CorpusResult, title?: string): Record<string, unknown> {
  const buckets = [...new Set(corpus.results.flatMap((r) => r.byLength.map((b) => b.bucket)))]
  const counts = new Map(corpus.results[0]?.byLength.map((b) => [b.bucket, b.sentences]) ?? [])
  return {
    animation: false,
    color: PALETTE,
    title: title ? { text: title, left: 'center' } : undefined,
    legend: { top: title ? 28 : 0 },
    grid: { left: 56, right: 24, top: title ? 72 : 44, bottom: 48 },
    tooltip: { trigger: 'axis', valueFormatter: (v: number) => v.toFixed(2) },
    xAxis: {
      type: 'category',
      name: 'source length (tokens)',
      nameLocation: 'middle',
      nameGap: 32,
      data: buckets,
      axisLabel: { formatter: (b: string) => `${b}\n(${counts.get(b) ?? 0})` },
    },
    yAxis: { type: 'value', name: 'BLEU', min: 0 },
    series: corpus.results.map((r) => ({
      type: 'line',
      name: `${r.model} (${r.bleu.toFixed(1)})`,
      symbolSize: 8,
      lineStyle: { width: r.attention === 'none' ? 3 : 2, type: r.attention === 'none' ? 'dashed' : 'solid' },
      data: buckets.map((b) => r.byLength.find((x) => x.bucket === b)?.bleu ?? null),
    })),
  }
}
