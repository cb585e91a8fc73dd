import type { CorpusResult } from '../api'
import { KINDS } from '../attention-kinds'
import { FIGURE_TEXT } from './figure-text'
import { cartesianAxes, cartesianLayout, type Frame } from './frame'
import { modelLooks, type ModelLook } from './model-colours'
import type { FigureOption } from './echarts-parts'

/** Each model's line: its colour in every view (model-colours.ts); past fourteen models the marker changes too, so no two lines look alike. */
export function corpusStyles(corpus: CorpusResult): ModelLook[] {
  return modelLooks(corpus.results.map((r) => ({ name: r.model, attention: r.attention })))
}

/** The legend's text width (px): the longest bundled name, "en-fr-luong-general (47.0)", fits. */
const LEGEND_TEXT = 190

/** BLEU against source length, one line per model: Bahdanau et al.'s figure, measured. */
export function buildCorpusOption(corpus: CorpusResult, title?: string, frame?: Frame): FigureOption {
  const buckets = [...new Set(corpus.results.flatMap((r) => r.byLength.map((b) => b.bucket)))]
  const counts = new Map(corpus.results[0]?.byLength.map((b) => [b.bucket, b.sentences]) ?? [])
  if (frame) return corpusFigure(corpus, buckets, counts, frame)
  const looks = corpusStyles(corpus)
  return {
    animation: false,
    title: title ? { text: title, left: 'center' } : undefined,
    // One model a row on the right: a key that wraps over the plot would cover the axis name.
    legend: {
      type: 'scroll',
      orient: 'vertical',
      right: 0,
      top: 'middle',
      textStyle: { width: LEGEND_TEXT, overflow: 'truncate' },
      tooltip: { show: true },
    },
    grid: { left: 56, right: LEGEND_TEXT + 56, top: title ? 60 : 32, bottom: 48 },
    tooltip: { trigger: 'axis', valueFormatter: (v) => Number(v).toFixed(2) },
    xAxis: {
      type: 'category',
      name: 'source length (tokens)',
      nameLocation: 'middle',
      nameGap: 32,
      data: buckets,
      axisLabel: { formatter: (b: string) => `${b}\n(${counts.get(b) ?? 0})` },
    },
    yAxis: { type: 'value', name: 'BLEU', min: 0 },
    series: corpus.results.map((r, k) => ({
      type: 'line',
      name: `${r.model} (${r.bleu.toFixed(1)})`,
      ...looks[k],
      symbolSize: 8,
      lineStyle: { width: KINDS[r.attention].attends ? 2 : 3, type: KINDS[r.attention].attends ? 'solid' : 'dashed' },
      data: buckets.map((b) => r.byLength.find((x) => x.bucket === b)?.bleu ?? null),
    })),
  }
}

/** BLEU by length on a page: the models' key on top, the buckets (and their sentence counts) along the bottom. */
function corpusFigure(corpus: CorpusResult, buckets: string[], counts: Map<string, number>, f: Frame): FigureOption {
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const none = (k: number) => !KINDS[corpus.results[k].attention].attends
  const looks = corpusStyles(corpus)
  const key = corpus.results.map((r, k) => ({
    label: `${r.model} (${r.bleu.toFixed(1)})`,
    symbol: none(k) ? ('dashed' as const) : ('line' as const),
    color: looks[k].color,
  }))
  const max = Math.max(1, ...corpus.results.flatMap((r) => r.byLength.map((b) => b.bleu)))
  const xLabels = buckets.map((b) => ({ text: `${b} (${counts.get(b) ?? 0})` }))
  const lay = cartesianLayout(f, { xLabels, xTitle: L.sourceLength, y: { min: 0, max }, yTitle: L.bleu, key })
  const axes = cartesianAxes(f, lay, { n: buckets.length })
  return {
    animation: false,
    grid: { ...lay.grid, containLabel: false },
    cramped: lay.cramped,
    graphic: { elements: lay.elements },
    xAxis: axes.xAxis,
    yAxis: axes.yAxis,
    series: corpus.results.map((r, k) => ({
      type: 'line',
      name: r.model,
      ...looks[k],
      symbolSize: Math.max(4, fs * 0.45),
      lineStyle: { width: Math.max(1.5, fs / 10) * (none(k) ? 1.3 : 1), type: none(k) ? 'dashed' : 'solid' },
      data: buckets.map((b) => r.byLength.find((x) => x.bucket === b)?.bleu ?? null),
    })),
  }
}
