/**
 * The step-through view's figures as plain ECharts options: for one output step t, the raw scores
 * e_tj, the softmax weights α_tj, the local-p Gaussian and the context vector c_t = Σ_j α_tj h_j.
 *
 * The bar charts share their horizontal layout (fixed pixel margins, one category per source
 * token), so when they are stacked the same source token sits in the same column in every stage.
 */
import type { STEP_STAGES } from '../figure'
import { FIGURE_TEXT } from './figure-text'
import {
  columnLabelElements,
  columnLabels,
  keyElements,
  linePitch,
  niceTicks,
  textElement,
  textHeight,
  tickText,
  widest,
  wrapText,
  type Frame,
  type KeyItem,
} from './frame'
import { windowCells } from './heatmap'
import { escapeHtml } from './html'
import type { XAXisComponentOption, YAXisComponentOption } from 'echarts'
import type { LineSeriesOption } from 'echarts/charts'
import type { GridComponentOption, MarkAreaComponentOption } from 'echarts/components'
import { firstItem, valueAt } from './data-values'
import type { ChartOption, ChartSeries, FigureOption, GraphicElement, HeatmapDatum } from './echarts-parts'

/** A diverging map (ColorBrewer RdBu, reversed): negative blue, zero white, positive red. */
export const DIVERGING = ['#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7', '#fddbc7', '#f4a582', '#d6604d', '#b2182b'] as const

export const COLORS = {
  score: '#64748b',
  outside: '#cbd5e1',
  weight: '#2563eb',
  align: '#93c5fd',
  final: '#c2410c',
  gaussian: '#f97316',
  window: 'rgba(249, 115, 22, 0.08)',
  position: '#111827',
} as const

/** Where the stacked bar charts put their plot area, in pixels, so their columns line up. */
export const BAR_GRID = { left: 64, right: 24 } as const

/** Softmax of raw scores (numerically stable); an empty row gives an empty row. */
export function softmax(scores: number[]): number[] {
  if (scores.length === 0) return []
  const max = Math.max(...scores)
  const ex = scores.map((e) => Math.exp(e - max))
  const sum = ex.reduce((a, b) => a + b, 0)
  return ex.map((x) => x / sum)
}

/**
 * The source positions a step masks (issue 40 #5): the model computed a score for them but set it
 * to −∞ before the softmax (a Bahdanau model masks its source's </s>), so their weight is exactly 0
 * although their score would have given them weight. A position outside a local window is not
 * masked (it is outside), nor is one whose score is so low that the softmax gives it nothing anyway.
 * `weights` are the softmax's (for a local model, the in-window softmax).
 */
export function maskedPositions(scores: readonly number[], weights: readonly number[], window: [number, number] | null = null): boolean[] {
  const S = weights.length
  const [lo, hi] = usedRange(S, window)
  const inside = scores.filter((e, j) => j >= lo && j <= hi && Number.isFinite(e))
  if (scores.length < S || inside.length === 0) return weights.map(() => false)
  const top = Math.max(...inside)
  // exp(−30) ≈ 1e-13: a weight float32 still holds, so a 0 there is the mask's, not the softmax's.
  return weights.map((w, j) => j >= lo && j <= hi && w === 0 && Number.isFinite(scores[j]) && scores[j] - top > -30)
}

/**
 * The context vector over the first `dims` dimensions: c[d] = Σ_j weights[j] · states[j][d].
 * Rows missing from `states` (or short rows) count as zeros; `dims` is capped at the widest row.
 */
export function contextVector(weights: number[], states: number[][], dims: number): number[] {
  const width = Math.min(
    dims,
    states.reduce((w, row) => Math.max(w, row.length), 0),
  )
  const c = new Array<number>(Math.max(0, width)).fill(0)
  for (let j = 0; j < weights.length; j++) {
    const row = states[j]
    if (!row) continue
    const a = weights[j] ?? 0
    for (let d = 0; d < width; d++) c[d] += a * (row[d] ?? 0)
  }
  return c
}

/** The source positions a step actually used: its window for local models, all of them otherwise. */
export function usedRange(S: number, window: [number, number] | null | undefined): [number, number] {
  return window ? windowCells(window, S) : [0, S - 1]
}

const indices = (n: number) => Array.from({ length: n }, (_, i) => String(i))
const rich = { sel: { fontWeight: 'bold' as const, color: '#c2410c' } }
const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(3))

/** A category axis of source tokens (index strings, so repeated tokens stay distinct). */
function tokenAxis(srcTokens: string[], selectedCol: number | null): XAXisComponentOption {
  const S = srcTokens.length
  return {
    type: 'category',
    data: indices(S),
    triggerEvent: true,
    axisTick: { show: false },
    axisLabel: {
      interval: S > 48 ? 'auto' : 0,
      rotate: S > 16 ? 45 : 0,
      fontSize: 12,
      rich,
      formatter: (value: string) => {
        const i = Number(value)
        return i === selectedCol ? `{sel|${srcTokens[i]}}` : srcTokens[i]
      },
    },
  }
}

/** Bottom margin that leaves room for the (possibly rotated) token labels. */
function barBottom(S: number): number {
  return S > 16 ? 64 : 28
}

/** The window [lo, hi] of whole source positions, shaded behind the bars. */
function windowArea(window: [number, number] | null | undefined, S: number): MarkAreaComponentOption | undefined {
  if (!window) return undefined
  const [lo, hi] = windowCells(window, S)
  if (hi < lo) return undefined
  return {
    silent: true,
    itemStyle: { color: COLORS.window, borderColor: COLORS.gaussian, borderWidth: 1, borderType: 'dashed' },
    data: [[{ xAxis: String(lo) }, { xAxis: String(hi) }]],
  }
}

/**
 * A hidden value axis over the same plot area as the token axis (token j at x = j), so fractional
 * positions such as p_t and a smooth Gaussian curve land exactly between the bars.
 */
function positionAxis(S: number): XAXisComponentOption {
  return { type: 'value', min: -0.5, max: S - 0.5, show: false }
}

function positionMarker(position: number, label: string): LineSeriesOption {
  return {
    id: 'position',
    type: 'line',
    xAxisIndex: 1,
    data: [],
    silent: true,
    markLine: {
      symbol: 'none',
      silent: true,
      lineStyle: { color: COLORS.position, type: 'dashed', width: 1.5 },
      label: { formatter: label, position: 'end', fontSize: 11 },
      data: [{ xAxis: position }],
    },
  }
}

export interface StepBarsInput {
  srcTokens: string[]
  selectedCol?: number | null
  /** Local attention: the window [p_t − D, p_t + D] and p_t of this step. */
  window?: [number, number] | null
  position?: number | null
}

function barBase(
  input: StepBarsInput,
  yAxis: YAXisComponentOption,
  series: ChartSeries[],
  tooltip: (j: number, v: number) => string,
  legend?: string[],
): ChartOption {
  const S = input.srcTokens.length
  const hasPosition = input.position !== null && input.position !== undefined
  return {
    animation: false,
    grid: { left: BAR_GRID.left, right: BAR_GRID.right, top: legend ? 30 : 16, bottom: barBottom(S), containLabel: false },
    legend: legend ? { data: legend, top: 0, right: BAR_GRID.right, itemWidth: 14, itemHeight: 10, textStyle: { fontSize: 12 } } : undefined,
    tooltip: {
      trigger: 'item',
      formatter: (ps) => {
        const p = firstItem(ps)
        if (Array.isArray(p.value)) return `${escapeHtml(p.seriesName ?? '')}: <b>${fmt(valueAt(p, 1))}</b>`
        return tooltip(p.dataIndex, Number(p.value))
      },
    },
    xAxis: [tokenAxis(input.srcTokens, input.selectedCol ?? null), ...(hasPosition ? [positionAxis(S)] : [])],
    yAxis,
    series: [...series, ...(hasPosition ? [positionMarker(input.position!, `p = ${input.position!.toFixed(2)}`)] : [])],
  }
}

const barItem = (v: number, color: string, j: number, selectedCol: number | null | undefined) =>
  j === selectedCol ? { value: v, itemStyle: { color, borderColor: '#111827', borderWidth: 1.5 } } : { value: v, itemStyle: { color } }

export interface ScoresInput extends StepBarsInput {
  /** e_tj, one per source token. */
  scores: number[]
  /** The positions masked before the softmax (maskedPositions): greyed and labelled −∞. */
  masked?: boolean[]
}

/** Stage 1: the raw scores e_tj (any sign, any size); for local models, bars outside the window are greyed. */
export function buildScoresOption(input: ScoresInput): ChartOption {
  const S = input.srcTokens.length
  const [lo, hi] = usedRange(S, input.window)
  const data = input.srcTokens.map((_, j) =>
    input.masked?.[j]
      ? {
          ...barItem(input.scores[j] ?? 0, COLORS.outside, j, input.selectedCol),
          label: {
            show: true,
            position: (input.scores[j] ?? 0) >= 0 ? ('top' as const) : ('bottom' as const),
            formatter: '−∞',
            fontSize: 12,
            color: '#111827',
          },
        }
      : barItem(input.scores[j] ?? 0, j >= lo && j <= hi ? COLORS.score : COLORS.outside, j, input.selectedCol),
  )
  return barBase(
    input,
    { type: 'value', scale: false, splitNumber: 4, axisLabel: { fontSize: 11 } },
    [
      {
        id: 'scores',
        type: 'bar',
        name: 'e',
        data,
        barMaxWidth: 36,
        markArea: windowArea(input.window, S),
        markLine: { symbol: 'none', silent: true, lineStyle: { color: '#94a3b8', width: 1 }, label: { show: false }, data: [{ yAxis: 0 }] },
      },
    ],
    (j, v) => `${escapeHtml(input.srcTokens[j])}<br/>e = <b>${fmt(v)}</b>${input.masked?.[j] ? ' → −∞ (masked)' : ''}`,
  )
}

export interface WeightsInput extends StepBarsInput {
  /** α_tj: the softmax of the scores (for local models: over the window, zero outside). */
  weights: number[]
}

/** Stage 2: the softmax weights, on a 0‥max axis with each bar labelled when there is room. */
export function buildWeightsOption(input: WeightsInput): ChartOption {
  const S = input.srcTokens.length
  const data = input.srcTokens.map((_, j) => barItem(input.weights[j] ?? 0, COLORS.weight, j, input.selectedCol))
  return barBase(
    input,
    { type: 'value', min: 0, splitNumber: 4, axisLabel: { fontSize: 11 } },
    [
      {
        id: 'weights',
        type: 'bar',
        name: 'α',
        data,
        barMaxWidth: 36,
        markArea: windowArea(input.window, S),
        label: {
          show: S <= 24,
          position: 'top',
          fontSize: 10,
          color: '#334155',
          formatter: (p) => (Number(p.value) >= 0.005 ? Number(p.value).toFixed(2) : ''),
        },
      },
    ],
    (j, v) => `${escapeHtml(input.srcTokens[j])}<br/>α = <b>${v.toFixed(4)}</b>`,
  )
}

export interface GaussianInput extends StepBarsInput {
  /** The in-window softmax (before the Gaussian). */
  align: number[]
  /** The Gaussian factor at each source position. */
  gaussian: number[]
  /** align × gaussian: the weights the model uses. */
  final: number[]
  window: [number, number]
  position: number
  /** Legend names: [softmax, Gaussian, final]. */
  names?: [string, string, string]
}

/** The Gaussian exp(−(x − p)² / 2σ²) sampled finely on [−0.5, S − 0.5], σ = D/2 with D read from the window. */
export function gaussianCurve(position: number, window: [number, number], S: number, samplesPerToken = 8): [number, number][] {
  const D = (window[1] - window[0]) / 2
  const sigma = D / 2
  const n = Math.max(2, S * samplesPerToken)
  const out: [number, number][] = []
  for (let i = 0; i <= n; i++) {
    const x = -0.5 + (i * S) / n
    out.push([x, sigma > 0 ? Math.exp(-((x - position) ** 2) / (2 * sigma * sigma)) : x === position ? 1 : 0])
  }
  return out
}

/**
 * Stage 3 (local-p): the in-window softmax (light bars), the Gaussian centred on p_t (curve, and
 * the engine's value at each token as dots) and their product, the final weights (dark bars).
 */
export function buildGaussianOption(input: GaussianInput): ChartOption {
  const S = input.srcTokens.length
  const [alignName, gaussName, finalName] = input.names ?? ['softmax', 'Gaussian', 'final']
  const series: ChartSeries[] = [
    {
      id: 'align',
      type: 'bar',
      name: alignName,
      data: input.srcTokens.map((_, j) => input.align[j] ?? 0),
      itemStyle: { color: COLORS.align },
      // Same width, drawn one over the other: the final bar (≤ the softmax bar, as the
      // Gaussian is ≤ 1) covers the part of the softmax bar the Gaussian keeps.
      barMaxWidth: 36,
      barGap: '-100%',
      markArea: windowArea(input.window, S),
    },
    {
      id: 'final',
      type: 'bar',
      name: finalName,
      data: input.srcTokens.map((_, j) => barItem(input.final[j] ?? 0, COLORS.final, j, input.selectedCol)),
      itemStyle: { color: COLORS.final },
      barMaxWidth: 36,
      barGap: '-100%',
      z: 3,
    },
    {
      id: 'gaussian-curve',
      type: 'line',
      name: gaussName,
      xAxisIndex: 1,
      data: gaussianCurve(input.position, input.window, S),
      showSymbol: false,
      silent: true,
      lineStyle: { color: COLORS.gaussian, width: 2 },
      itemStyle: { color: COLORS.gaussian },
      z: 4,
    },
    {
      id: 'gaussian',
      type: 'scatter',
      name: gaussName,
      xAxisIndex: 1,
      data: input.srcTokens.map((_, j) => [j, input.gaussian[j] ?? 0]),
      symbolSize: 7,
      itemStyle: { color: '#ffffff', borderColor: COLORS.gaussian, borderWidth: 2 },
      z: 5,
    },
  ]
  return barBase(
    input,
    { type: 'value', min: 0, max: 1, splitNumber: 4, axisLabel: { fontSize: 11 } },
    series,
    (j) =>
      `${escapeHtml(input.srcTokens[j])}<br/>${escapeHtml(alignName)} ${(input.align[j] ?? 0).toFixed(4)} × ${escapeHtml(gaussName)} ${(input.gaussian[j] ?? 0).toFixed(4)}<br/>= ${escapeHtml(finalName)} <b>${(input.final[j] ?? 0).toFixed(4)}</b>`,
    [alignName, gaussName, finalName],
  )
}

export interface ContextInput {
  srcTokens: string[]
  /** The weights the model used, α_tj (after the Gaussian for local-p). */
  weights: number[]
  /** Encoder states h_j, one row per source token. */
  states: number[][]
  /** How many leading dimensions to draw. */
  dims: number
  selectedCol?: number | null
  /** Axis captions: [weights, context vector]. */
  names?: [string, string]
}

/** The pixel layout of the context figure, so the view can size its panel to fit. */
export function contextLayout(S: number): {
  row: number
  top: number
  statesHeight: number
  gap: number
  contextTop: number
  contextHeight: number
  height: number
} {
  const row = S > 60 ? 9 : S > 36 ? 12 : S > 22 ? 16 : 20
  const top = 26
  const statesHeight = S * row
  const gap = 18
  const contextHeight = 26
  const contextTop = top + statesHeight + gap
  return { row, top, statesHeight, gap, contextTop, contextHeight, height: contextTop + contextHeight + 34 }
}

const CTX = { labels: 96, alphaWidth: 110, gutter: 14, right: 86 } as const

/**
 * Stage 4: the encoder states h_j as a heatmap (rows = source tokens, columns = the first `dims`
 * dimensions), each row annotated by a bar of its weight α_tj and faded by it, and below them the
 * context vector c_t = Σ_j α_tj h_j over the same dimensions. h and c_t each get a symmetric
 * diverging scale of their own: c_t is an average, so on h's scale it would look washed out.
 */
export function buildContextOption(input: ContextInput): ChartOption {
  const { srcTokens, weights, states } = input
  const S = srcTokens.length
  const N = Math.max(
    0,
    Math.min(
      input.dims,
      states.reduce((w, r) => Math.max(w, r.length), 0),
    ),
  )
  const [alphaName, ctxName] = input.names ?? ['α', 'c']
  const c = contextVector(weights, states, N)
  const maxAlpha = Math.max(1e-9, ...srcTokens.map((_, j) => weights[j] ?? 0))
  const absMax = (xs: number[]) => xs.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1
  let hMax = 0
  const cells: HeatmapDatum[] = []
  for (let j = 0; j < S; j++) {
    const row = states[j] ?? []
    const opacity = 0.18 + 0.82 * Math.min(1, (weights[j] ?? 0) / maxAlpha)
    for (let d = 0; d < N; d++) {
      const v = row[d] ?? 0
      hMax = Math.max(hMax, Math.abs(v))
      cells.push({ value: [d, j, v], itemStyle: { opacity } })
    }
  }
  hMax = hMax || 1
  const cMax = absMax(c)
  const L = contextLayout(S)
  const left = CTX.labels + CTX.alphaWidth + CTX.gutter
  const sel = input.selectedCol ?? null
  const dimAxis = (gridIndex: number, show: boolean): XAXisComponentOption => ({
    type: 'category',
    gridIndex,
    data: indices(N),
    position: gridIndex === 1 ? 'top' : 'bottom',
    axisTick: { show: false },
    axisLine: { show: false },
    splitArea: { show: false },
    axisLabel: { show, fontSize: 10, color: '#64748b', interval: (i: number) => i % 8 === 0 || i === N - 1 },
  })
  const rowAxis = (gridIndex: number, show: boolean): YAXisComponentOption => ({
    type: 'category',
    gridIndex,
    inverse: true,
    data: indices(S),
    triggerEvent: show,
    axisTick: { show: false },
    axisLine: { show: false },
    axisLabel: {
      show,
      interval: 0,
      fontSize: L.row >= 16 ? 12 : 9,
      width: CTX.labels - 10,
      overflow: 'truncate',
      rich,
      formatter: (value: string) => {
        const i = Number(value)
        return i === sel ? `{sel|${srcTokens[i]}}` : srcTokens[i]
      },
    },
  })
  return {
    animation: false,
    grid: [
      { left: CTX.labels, width: CTX.alphaWidth, top: L.top, height: L.statesHeight, containLabel: false },
      { left, right: CTX.right, top: L.top, height: L.statesHeight, containLabel: false },
      { left, right: CTX.right, top: L.contextTop, height: L.contextHeight, containLabel: false },
    ],
    tooltip: {
      trigger: 'item',
      formatter: (ps) => {
        const p = firstItem(ps)
        if (p.seriesId === 'alpha')
          return `${escapeHtml(srcTokens[p.dataIndex])}<br/>${escapeHtml(alphaName)} = <b>${(weights[p.dataIndex] ?? 0).toFixed(4)}</b>`
        const [d, j, v] = [valueAt(p, 0), valueAt(p, 1), valueAt(p, 2)]
        if (p.seriesId === 'context') return `${escapeHtml(ctxName)}[${d}] = <b>${v.toFixed(4)}</b>`
        return `${escapeHtml(srcTokens[j])} · h[${d}] = <b>${v.toFixed(4)}</b><br/>${escapeHtml(alphaName)} = ${(weights[j] ?? 0).toFixed(4)}`
      },
    },
    xAxis: [{ type: 'value', gridIndex: 0, min: 0, max: maxAlpha * (L.row >= 16 ? 1.6 : 1.05), show: false }, dimAxis(1, true), dimAxis(2, true)],
    yAxis: [
      rowAxis(0, true),
      rowAxis(1, false),
      {
        type: 'category',
        gridIndex: 2,
        data: ['c'],
        axisTick: { show: false },
        axisLine: { show: false },
        axisLabel: { fontSize: 12, fontWeight: 'bold', formatter: () => ctxName },
      },
    ],
    visualMap: [
      {
        seriesIndex: 1,
        min: -hMax,
        max: hMax,
        calculable: false,
        orient: 'vertical',
        right: 8,
        top: L.top,
        itemWidth: 12,
        itemHeight: Math.max(40, Math.min(140, L.statesHeight - 40)),
        text: [`h +${hMax.toFixed(2)}`, `−${hMax.toFixed(2)}`],
        textStyle: { fontSize: 10 },
        inRange: { color: [...DIVERGING] },
      },
      {
        seriesIndex: 2,
        min: -cMax,
        max: cMax,
        show: false,
        inRange: { color: [...DIVERGING] },
      },
    ],
    series: [
      {
        id: 'alpha',
        type: 'bar',
        name: alphaName,
        xAxisIndex: 0,
        yAxisIndex: 0,
        barWidth: '70%',
        data: srcTokens.map((_, j) => ({ value: weights[j] ?? 0, itemStyle: { color: j === sel ? COLORS.final : COLORS.weight } })),
        label: {
          show: L.row >= 16,
          position: 'right',
          fontSize: 10,
          color: '#334155',
          formatter: (p) => Number(p.value).toFixed(3),
        },
      },
      {
        id: 'states',
        type: 'heatmap',
        name: 'h',
        xAxisIndex: 1,
        yAxisIndex: 1,
        data: cells,
        progressive: 4000,
        itemStyle: { borderColor: 'rgba(255,255,255,0.7)', borderWidth: 0.5 },
        emphasis: { itemStyle: { borderColor: '#111827', borderWidth: 1 } },
      },
      {
        id: 'context',
        type: 'heatmap',
        name: ctxName,
        xAxisIndex: 2,
        yAxisIndex: 2,
        data: c.map((v, d) => [d, 0, v]),
        itemStyle: { borderColor: '#111827', borderWidth: 0.5 },
        emphasis: { itemStyle: { borderColor: '#111827', borderWidth: 1.5 } },
      },
    ],
  }
}

export interface StepFigureInput {
  srcTokens: string[]
  tgtTokens: string[]
  step: number
  /** e_tj, α_tj (in-window softmax for local models) and the final weights a_tj. */
  scores: number[]
  alpha: number[]
  final: number[]
  /** local-p only: the Gaussian factor per source token. */
  gaussian: number[] | null
  window: [number, number] | null
  position: number | null
  states: number[][]
  dims: number
  /**
   * Source positions [first, end) drawn (a slide in parts at its text floor): their bars and rows of
   * h_j, with the whole sentence's scales, its context vector and p_t where it falls among them.
   */
  cols?: [number, number]
  frame: Frame
  /**
   * One part of a figure split into slides (issue 40): the bar stages alone across the page, or the
   * context alone with the source across (its columns the bars' columns), so a long sentence keeps
   * its text at the asked size. Absent: the whole step on one page.
   */
  stages?: StepStages
}

export type StepStages = (typeof STEP_STAGES)[number]

/** The step's bar stages: scores, softmax and, for local-p, the Gaussian (2 or 3). */
export const barStages = (input: Pick<StepFigureInput, 'gaussian' | 'window' | 'position'>) =>
  input.gaussian && input.window && input.position !== null ? 3 : 2

/** The context stage's numbers: the states faded by their weights, their weighted sum c_t, and the two scales. */
function contextOf(input: StepFigureInput) {
  const S = input.srcTokens.length
  const N = Math.max(
    1,
    Math.min(
      input.dims,
      input.states.reduce((w, r) => Math.max(w, r.length), 0),
    ),
  )
  const c = contextVector(input.final, input.states, N)
  const maxAlpha = Math.max(1e-9, ...input.final)
  let hMax = 0
  const opacity = (j: number) => 0.15 + 0.85 * Math.min(1, (input.final[j] ?? 0) / maxAlpha)
  for (let j = 0; j < S; j++) for (let d = 0; d < N; d++) hMax = Math.max(hMax, Math.abs(input.states[j]?.[d] ?? 0))
  hMax = hMax || 1
  const cMax = c.reduce((a, v) => Math.max(a, Math.abs(v)), 0) || 1
  // A real subscript: c₁₂, not c_12.
  const cName = `c${[...String(input.step + 1)].map((d) => '₀₁₂₃₄₅₆₇₈₉'[Number(d)]).join('')}`
  return { N, c, hMax, cMax, cName, opacity, scaleText: `h: ±${hMax.toFixed(2)}   ${cName}: ±${cMax.toFixed(2)}` }
}

/**
 * The context stage alone on a page (a part of a split step-through): the encoder states with the
 * source across, a column per source token as in the bar stages (its labels under it), a row per
 * dimension, each column faded by its weight; and beside them their weighted sum c_t, a column of
 * the same dimensions. A slide holds a long sentence's tokens across where it cannot hold them down.
 */
function contextAcross(input: StepFigureInput): FigureOption {
  const f = input.frame
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const pitch = linePitch(fs)
  const S = input.srcTokens.length
  const { N, c, hMax, cMax, cName, opacity, scaleText } = contextOf(input)
  const title = wrapText(`${barStages(input) + 1}  ${L.context}`, f.width, fs, m, true)
  const scale = wrapText(scaleText, f.width, fs, m)
  const hName = 'h'
  const left = f.x + m(hName, fs, true) + gap
  const cW = Math.max(fs * 1.5, m(cName, fs, true))
  const plotW = Math.max(fs, f.x + f.width - left - gap * 2 - cW)
  const labels = input.srcTokens.map((text) => ({ text }))
  const cols = columnLabels(labels, plotW / S, f)
  const top = f.y + title.length * pitch + lh
  const bottom = f.y + f.height - scale.length * pitch - gap - cols.extent - gap
  const plotH = bottom - top
  const elements: GraphicElement[] = [
    ...title.map((line, i) => textElement(line, f.x, f.y + (i + 0.5) * pitch, f, { bold: true })),
    textElement(hName, f.x, top + plotH / 2, f, { bold: true }),
    textElement(cName, left + plotW + gap * 2 + cW / 2, top - lh / 2, f, { bold: true, align: 'center' }),
    ...columnLabelElements(labels, left, plotW / S, bottom, 'below', f),
    ...scale.map((line, i) => textElement(line, f.x, f.y + f.height - (scale.length - i - 0.5) * pitch, f, { color: f.ink.muted })),
  ]
  const cells: HeatmapDatum[] = []
  for (let j = 0; j < S; j++) for (let d = 0; d < N; d++) cells.push({ value: [j, d, input.states[j]?.[d] ?? 0], itemStyle: { opacity: opacity(j) } })
  const axis = (n: number, grid: number) => ({ type: 'category' as const, gridIndex: grid, data: Array.from({ length: n }, (_, i) => String(i)), show: false })
  return {
    animation: false,
    // Too little room: a dimension row under a tenth of the text, or a column under a line (its label turned).
    cramped: plotH < Math.max(2 * lh, (N * fs) / 10) || plotW / S < lh,
    grid: [
      { left, top, width: plotW, height: plotH, containLabel: false },
      { left: left + plotW + gap * 2, top, width: cW, height: plotH, containLabel: false },
    ],
    xAxis: [axis(S, 0), axis(1, 1)],
    yAxis: [
      { ...axis(N, 0), inverse: true },
      { ...axis(N, 1), inverse: true },
    ],
    visualMap: [
      { show: false, seriesIndex: 0, min: -hMax, max: hMax, inRange: { color: [...DIVERGING] } },
      { show: false, seriesIndex: 1, min: -cMax, max: cMax, inRange: { color: [...DIVERGING] } },
    ],
    graphic: { elements },
    series: [
      { type: 'heatmap', xAxisIndex: 0, yAxisIndex: 0, data: cells, progressive: 0, itemStyle: { borderWidth: 0 } },
      {
        type: 'heatmap',
        xAxisIndex: 1,
        yAxisIndex: 1,
        data: c.map((v, d) => [0, d, v]),
        progressive: 0,
        itemStyle: { borderColor: f.ink.text, borderWidth: 0.5 },
      },
    ],
  }
}

/** The step's data for source positions [a, b): arrays cut, the window and p_t counted from a. */
function someCols(input: StepFigureInput, [a, b]: [number, number]): StepFigureInput {
  const cut = <T>(xs: T[]) => xs.slice(a, b)
  return {
    ...input,
    srcTokens: cut(input.srcTokens),
    scores: cut(input.scores),
    alpha: cut(input.alpha),
    final: cut(input.final),
    gaussian: input.gaussian && cut(input.gaussian),
    window: input.window && [input.window[0] - a, input.window[1] - a],
    position: input.position === null ? null : input.position - a,
    states: cut(input.states),
  }
}

/**
 * The step-through stages of one output step on a page: the bar stages (scores, softmax and for
 * local-p the Gaussian) stacked over shared token columns, and the context vector beside them (or
 * under them on a narrow page): the encoder states faded by their weights and their weighted sum.
 */
export function buildStepFigure(whole: StepFigureInput): FigureOption {
  if (whole.stages === 'context') return contextAcross(whole)
  // Parts share the whole sentence's scales (a bar reads the same on every part) and its context vector.
  const input = whole.cols ? someCols(whole, whole.cols) : whole
  const f = input.frame
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const S = input.srcTokens.length
  // Side by side unless the page is portrait: stacked, the bar stages get too short.
  const side = f.width >= f.height
  // A part of a split step-through: the bar stages take the whole page.
  const barsOnly = input.stages === 'bars'
  // Stacked, the context's rows (one a source token, each a line of text) take what they need
  // — its title, strip, scales and gaps about eight lines more — up to 60 % of the page.
  const ctxShare = side ? 0.38 : Math.min(0.6, Math.max(0.3, ((S + 8) * lh) / f.height))
  const bars = barsOnly
    ? { x: f.x, y: f.y, width: f.width, height: f.height }
    : side
      ? { x: f.x, y: f.y, width: f.width * (1 - ctxShare) - fs, height: f.height }
      : { x: f.x, y: f.y, width: f.width, height: f.height * (1 - ctxShare) - fs * 0.5 }
  const ctx = side
    ? { x: f.x + f.width * (1 - ctxShare), y: f.y, width: f.width * ctxShare, height: f.height }
    : { x: f.x, y: f.y + f.height * (1 - ctxShare) + fs * 0.5, width: f.width, height: f.height * ctxShare - fs * 0.5 }
  const [lo, hi] = usedRange(S, input.window)
  const local = input.window !== null
  const masked = maskedPositions(input.scores, input.alpha, input.window)
  type Panel = { title: string; min: number; max: number; series: (grid: number) => ChartSeries[] }
  const pick = (a: number[], j: number) => a[j] ?? 0
  const panels: Panel[] = [
    {
      // A masked position's bar is its raw score, greyed, and labelled −∞: the score the softmax used.
      title: `1  ${L.scores}${masked.some(Boolean) ? `   (${L.masked})` : ''}`,
      min: Math.min(0, ...whole.scores),
      max: Math.max(0, ...whole.scores),
      series: (g) => [
        {
          type: 'bar',
          xAxisIndex: 2 * g,
          yAxisIndex: g,
          barMaxWidth: fs * 2,
          data: input.srcTokens.map((_, j) =>
            masked[j]
              ? {
                  value: pick(input.scores, j),
                  itemStyle: { color: COLORS.outside, borderColor: COLORS.score, borderType: 'dashed', borderWidth: 1 },
                  label: { show: true, position: pick(input.scores, j) >= 0 ? 'top' : 'bottom', formatter: '−∞', fontSize: fs, color: f.ink.text },
                }
              : { value: pick(input.scores, j), itemStyle: { color: j >= lo && j <= hi ? COLORS.score : COLORS.outside } },
          ),
          markArea: windowArea(input.window, S),
        },
      ],
    },
    {
      title: `2  ${L.softmax}`,
      min: 0,
      max: Math.max(1e-6, ...whole.alpha),
      series: (g) => [
        {
          type: 'bar',
          xAxisIndex: 2 * g,
          yAxisIndex: g,
          barMaxWidth: fs * 2,
          itemStyle: { color: COLORS.weight },
          data: input.srcTokens.map((_, j) => pick(input.alpha, j)),
          markArea: windowArea(input.window, S),
        },
      ],
    },
  ]
  if (input.gaussian && input.window && input.position !== null) {
    const curve = gaussianCurve(input.position, input.window, S)
    // p_t is counted from the part's first position: a part away from it draws the curve's tail.
    panels.push({
      title: `3  ${L.gaussianStage}`,
      min: 0,
      max: 1,
      series: (g) => [
        {
          type: 'bar',
          xAxisIndex: 2 * g,
          yAxisIndex: g,
          barMaxWidth: fs * 2,
          barGap: '-100%',
          itemStyle: { color: COLORS.align },
          data: input.srcTokens.map((_, j) => pick(input.alpha, j)),
          markArea: windowArea(input.window, S),
        },
        {
          type: 'bar',
          xAxisIndex: 2 * g,
          yAxisIndex: g,
          barMaxWidth: fs * 2,
          barGap: '-100%',
          itemStyle: { color: COLORS.final },
          data: input.srcTokens.map((_, j) => pick(input.final, j)),
          z: 3,
        },
        {
          type: 'line',
          xAxisIndex: 2 * g + 1,
          yAxisIndex: g,
          data: curve,
          showSymbol: false,
          silent: true,
          lineStyle: { color: COLORS.gaussian, width: Math.max(1.5, fs / 10) },
          z: 4,
        },
      ],
    })
  }
  // Key for the local stages: window and p_t.
  const key: KeyItem[] = local
    ? [
        { label: L.window, symbol: 'band', color: COLORS.gaussian, fill: COLORS.window },
        ...(whole.position !== null ? [{ label: `${L.pt} = ${whole.position.toFixed(2)}`, symbol: 'dashed' as const, color: f.ink.text }] : []),
      ]
    : []
  const keyBlock = keyElements(key, bars.x, bars.y, bars.width, f, 'left')
  const top0 = bars.y + keyBlock.height + (key.length ? gap : 0)
  const ticks = (p: Panel, h: number) => niceTicks(p.min, p.max, h, lh * 1.6)
  const tickTexts = (t: { min: number; max: number; interval: number }) => {
    const out: string[] = []
    for (let v = t.min; v <= t.max + t.interval / 2; v += t.interval) out.push(tickText(+v.toFixed(10)))
    return out
  }
  const n = panels.length
  const panelH0 = (bars.height - (top0 - bars.y)) / n
  let labelW = Math.max(...panels.map((p) => widest(tickTexts(ticks(p, panelH0 * 0.6)), fs, m)))
  const left = bars.x + labelW + gap
  const plotW = Math.max(fs, bars.x + bars.width - left)
  const labels = input.srcTokens.map((text) => ({ text }))
  const cols = columnLabels(labels, plotW / S, f)
  const titleH = linePitch(fs)
  // Each panel: its title, then its plot with half a line above and below for the end tick labels.
  // Panel titles wrap to the column; each panel is its title, half a line, its plot, half a line.
  const titles = panels.map((p) => wrapText(p.title, bars.width, fs, m, true))
  const titlesH = titles.reduce((a, t) => a + t.length * titleH, 0)
  const plotRoom = (bars.y + bars.height - top0 - cols.extent - gap - titlesH - n * lh) / n
  const plotH = Math.max(fs, plotRoom)
  const panelTop = (g: number) => top0 + titles.slice(0, g).reduce((a, t) => a + t.length * titleH, 0) + g * (lh + plotH)
  const grids: GridComponentOption[] = []
  const xAxes: XAXisComponentOption[] = []
  const yAxes: YAXisComponentOption[] = []
  const series: ChartSeries[] = []
  const elements: GraphicElement[] = [...keyBlock.elements]
  panels.forEach((p, g) => {
    const y = panelTop(g) + titles[g].length * titleH + lh / 2
    const t = ticks(p, plotH)
    labelW = Math.max(labelW, widest(tickTexts(t), fs, m))
    titles[g].forEach((line, i) => elements.push(textElement(line, bars.x, panelTop(g) + (i + 0.5) * titleH, f, { bold: true })))
    grids.push({ left, top: y, width: plotW, height: plotH, containLabel: false })
    xAxes.push({
      type: 'category',
      gridIndex: g,
      data: input.srcTokens.map((_, j) => String(j)),
      axisTick: { show: false },
      axisLabel: { show: false },
      axisLine: { lineStyle: { color: f.ink.axis } },
    })
    xAxes.push({ type: 'value', gridIndex: g, min: -0.5, max: S - 0.5, show: false })
    yAxes.push({
      type: 'value',
      gridIndex: g,
      min: t.min,
      max: t.max,
      interval: t.interval,
      axisLine: { show: true, onZero: false, lineStyle: { color: f.ink.axis } },
      splitLine: { lineStyle: { color: f.ink.grid } },
      axisLabel: { fontSize: fs, margin: gap, color: f.ink.text, formatter: (v: number) => tickText(+v.toFixed(10)), showMinLabel: plotH >= lh * 1.1 },
    })
    series.push(...p.series(g))
    // The p_t line where it falls on this part's positions.
    if (input.position !== null && input.position >= -0.5 && input.position <= S - 0.5)
      series.push({
        type: 'line',
        xAxisIndex: 2 * g + 1,
        yAxisIndex: g,
        data: [],
        silent: true,
        markLine: {
          symbol: 'none',
          silent: true,
          lineStyle: { color: f.ink.text, type: 'dashed', width: Math.max(1, fs / 14) },
          label: { show: false },
          data: [{ xAxis: input.position }],
        },
      })
  })
  const lastBottom = panelTop(n) - lh / 2
  elements.push(...columnLabelElements(labels, left, plotW / S, lastBottom, 'below', f))
  if (barsOnly) return { animation: false, grid: grids, cramped: plotRoom < lh || plotW < 4 * fs, xAxis: xAxes, yAxis: yAxes, graphic: { elements }, series }
  // The context: states (rows: source tokens) faded by weight, and their weighted sum.
  // The whole sentence's context vector and scales; this part's states, faded by their weights.
  const { N, c, hMax, cMax, cName, scaleText } = contextOf(whole)
  const maxAlpha = Math.max(1e-9, ...whole.final)
  const cells: HeatmapDatum[] = []
  for (let j = 0; j < S; j++) {
    const opacity = 0.15 + 0.85 * Math.min(1, pick(input.final, j) / maxAlpha)
    for (let d = 0; d < N; d++) cells.push({ value: [d, j, input.states[j]?.[d] ?? 0], itemStyle: { opacity } })
  }
  const ctxTitle = `${panels.length + 1}  ${L.context}`
  const titleLines = wrapText(ctxTitle, ctx.width, fs, m, true)
  titleLines.forEach((line, i) => elements.push(textElement(line, ctx.x, ctx.y + (i + 0.5) * titleH, f, { bold: true })))
  const rowLabelW = Math.max(widest(input.srcTokens, fs, m), m(cName, fs, true))
  const hx = ctx.x + rowLabelW + gap
  const hw = Math.max(fs, ctx.x + ctx.width - hx)
  // Half a line over the first row and under the last, for row labels taller than their rows.
  const hTop = ctx.y + titleLines.length * titleH + Math.max(gap, lh / 2)
  const stripH = Math.max(lh, fs * 1.4)
  const below = Math.max(gap, lh / 2)
  // The two scales, on one line or two.
  const scaleLines = wrapText(scaleText, ctx.width, fs, m)
  const scaleH = scaleLines.length * titleH
  const hh = Math.max(fs, ctx.y + ctx.height - hTop - below - stripH - gap - scaleH)
  const cramped = ctx.y + ctx.height - hTop - below - stripH - gap - scaleH < lh || plotRoom < lh || bars.x + bars.width - left < 4 * fs
  grids.push({ left: hx, top: hTop, width: hw, height: hh, containLabel: false })
  grids.push({ left: hx, top: hTop + hh + below, width: hw, height: stripH, containLabel: false })
  const gH = panels.length
  xAxes.push({ type: 'category', gridIndex: gH, data: Array.from({ length: N }, (_, d) => String(d)), show: false })
  xAxes.push({ type: 'category', gridIndex: gH + 1, data: Array.from({ length: N }, (_, d) => String(d)), show: false })
  yAxes.push({
    type: 'category',
    gridIndex: gH,
    inverse: true,
    data: input.srcTokens.map((_, j) => String(j)),
    axisTick: { show: false },
    axisLine: { show: false },
    // Every row labelled: rows lower than a line overlap, and the fitter gives them room.
    axisLabel: { interval: 0, fontSize: fs, margin: gap, color: f.ink.text, formatter: (v: string) => input.srcTokens[Number(v)] },
  })
  yAxes.push({
    type: 'category',
    gridIndex: gH + 1,
    data: ['c'],
    axisTick: { show: false },
    axisLine: { show: false },
    axisLabel: { fontSize: fs, fontWeight: 'bold', margin: gap, color: f.ink.text, formatter: () => cName },
  })
  series.push({ type: 'heatmap', xAxisIndex: 2 * gH, yAxisIndex: gH, data: cells, progressive: 0, itemStyle: { borderWidth: 0 } })
  series.push({
    type: 'heatmap',
    xAxisIndex: 2 * gH + 1,
    yAxisIndex: gH + 1,
    data: c.map((v, d) => [d, 0, v]),
    progressive: 0,
    itemStyle: { borderColor: f.ink.text, borderWidth: 0.5 },
  })
  scaleLines.forEach((line, i) => elements.push(textElement(line, ctx.x, hTop + hh + below + stripH + gap + (i + 0.5) * titleH, f, { color: f.ink.muted })))
  return {
    animation: false,
    grid: grids,
    cramped,
    xAxis: xAxes,
    yAxis: yAxes,
    visualMap: [
      { show: false, seriesIndex: series.length - 2, min: -hMax, max: hMax, inRange: { color: [...DIVERGING] } },
      { show: false, seriesIndex: series.length - 1, min: -cMax, max: cMax, inRange: { color: [...DIVERGING] } },
    ],
    graphic: { elements },
    series,
  }
}
