/**
 * The Contributions tab (issue 41): one method's matrix beside the raw cross-attention weights,
 * the source share of each output word as a bar, and each cross-attention layer's residual share.
 * Pure functions of the engine's plain data (src/shared/contributions.ts); the app draws them and
 * the tests read them back.
 */
import type { BarSeriesOption } from 'echarts/charts'
import { methodResult, type ContributionMethod, type ShownContributions } from '../contributions'
import type { CONTEXT_NORM } from '../context-norm'
import { meanPerSpan, meanRows, sumColumns, wordLabels, wordSpans, type Span } from '../attention/words'
import type { Units } from '../attention/word-translation'
import { buildHeatmapOption, type HeatmapInput, type HeatmapStyle } from './heatmap'
import type { FigureOption } from './echarts-parts'

/**
 * Which decoder position a row is read at:
 * - `usual`: the position that writes the output piece (its input is the piece before it), as
 *   ALTI+ and the app's heatmap read it;
 * - `shifted`: the position whose input is the piece (Shift-Att, Chen et al. 2020), one later; the
 *   last piece (`</s>`) is never an input and has no shifted row.
 */
export type ReadStep = 'usual' | 'shifted'
export const READ_STEPS: readonly ReadStep[] = ['usual', 'shifted']

/** The default source-share threshold under which an output word counts as written from the prefix. */
export const DEFAULT_SHARE_THRESHOLD = 0.4

/** What the tab draws for one method, in the units chosen. */
export interface ContributionView {
  method: ContributionMethod
  step: ReadStep
  units: Units
  /** Column labels (source words or pieces) and row labels (output words or pieces). */
  src: string[]
  tgt: string[]
  /** [T][S]: the method's matrix. */
  matrix: number[][]
  /** [T][S]: the raw cross-attention weights of the same forward pass (mean over layers and heads). */
  raw: number[][]
  /** [T]: the source share of each output word (the method's row sum over the source). */
  sourceShare: number[]
  /** Each output row's [first, last] piece in the engine's rows (after the shift). */
  rows: Span[]
}

/** The engine's rows read at a step: `shifted` takes row t + 1 for output piece t and drops the last piece. */
function atStep<T>(rows: readonly T[], step: ReadStep): T[] {
  return step === 'usual' ? [...rows] : rows.slice(1)
}

/**
 * One method of the engine's result as the tab draws it. Words: a source word's contribution is
 * the sum over its pieces (so a row keeps its sum), an output word's row and share the mean of its
 * pieces' (as the heatmap's words are, src/shared/attention/word-translation.ts).
 */
export function contributionView(
  c: ShownContributions & { raw: number[][] },
  method: ContributionMethod,
  opts: { units: Units; step: ReadStep; srcTokens?: string[] },
): ContributionView {
  const r = methodResult(c, method)
  const step = opts.step
  // Shifted: output piece t is read where it is the decoder's input, row t + 1.
  const tgtPieces = step === 'usual' ? c.tgtTokens : c.tgtTokens.slice(0, -1)
  const matrix = atStep(r.matrix, step)
  const raw = atStep(c.raw, step)
  const share = atStep(r.sourceShare, step)
  const srcPieces = opts.srcTokens && opts.srcTokens.length === c.srcTokens.length ? opts.srcTokens : c.srcTokens
  if (opts.units === 'pieces')
    return {
      method,
      step,
      units: 'pieces',
      src: srcPieces,
      tgt: tgtPieces,
      matrix,
      raw,
      sourceShare: share,
      rows: tgtPieces.map((_, i) => [i, i] as Span),
    }
  const srcSpans = wordSpans(srcPieces)
  const tgtSpans = wordSpans(tgtPieces)
  const words = (m: number[][]) => meanRows(sumColumns(m, srcSpans), tgtSpans)
  return {
    method,
    step,
    units: 'words',
    src: wordLabels(srcPieces, srcSpans),
    tgt: wordLabels(tgtPieces, tgtSpans),
    matrix: words(matrix),
    raw: words(raw),
    sourceShare: meanPerSpan(share, tgtSpans),
    rows: tgtSpans,
  }
}

/** The output words whose source share is under the threshold: written from the prefix, not the sentence. */
export function fromPrefix(sourceShare: readonly number[], threshold: number): boolean[] {
  return sourceShare.map((s) => s < threshold)
}

/** Each cross-attention layer's output split by ALTI: the residual's share and the source's (what the attention brings). */
export interface LayerShare {
  layer: number
  residual: number
  attention: number
}

/**
 * Per cross-attention layer, the mean over the output rows given (all by default) of ALTI's
 * residual column (the last) and of its source columns summed.
 */
export function residualShares(crossAlti: readonly (readonly (readonly number[])[])[], rows?: readonly number[]): LayerShare[] {
  return crossAlti.map((layer, l) => {
    const picked = rows ?? layer.map((_, t) => t)
    let residual = 0
    let attention = 0
    for (const t of picked) {
      const row = layer[t]
      const S = row.length - 1
      residual += row[S]
      for (let j = 0; j < S; j++) attention += row[j]
    }
    const n = Math.max(1, picked.length)
    return { layer: l + 1, residual: residual / n, attention: attention / n }
  })
}

export const METHOD_NAMES: Record<ContributionMethod, { en: string; zh: string }> = {
  norm: { en: 'value-weighted norms', zh: '值加权范数' },
  alti: { en: 'ALTI (cross-attention, mean over layers)', zh: 'ALTI（交叉注意力，各层平均）' },
  'alti+': { en: 'ALTI+', zh: 'ALTI+' },
  rollout: { en: 'attention rollout', zh: '注意力展开' },
}

/**
 * One of the two heatmaps: the method's matrix (each row scaled to its largest: ALTI+ rows sum to
 * the source share, not to 1) or the raw weights (on the heatmap's own style).
 */
export function buildContributionHeatmapOption(
  v: ContributionView,
  which: 'method' | 'raw',
  opts: { title: string; style?: HeatmapStyle; size?: HeatmapInput['size']; selectedRow?: number | null },
): FigureOption {
  return buildHeatmapOption({
    ...(opts.style ?? {}),
    ...(which === 'method' ? { norm: 'row' as const, scale: 'linear' as const } : {}),
    srcTokens: v.src,
    tgtTokens: v.tgt,
    attention: which === 'method' ? v.matrix : v.raw,
    title: opts.title,
    size: opts.size ?? null,
    selectedRow: opts.selectedRow ?? null,
  })
}

/** The bars' colours: the source share in blue, under the threshold in orange (the app's mark for "look here"). */
export const SHARE_COLOURS = { source: '#2563eb', prefix: '#ea580c', threshold: '#111827' } as const

/**
 * The source share as a bar under each output word (0–1), the words under the threshold in orange,
 * the threshold as a dashed line.
 */
export function buildSourceShareOption(input: {
  labels: string[]
  sourceShare: number[]
  threshold: number
  names: { axis: string; threshold: string }
  fontSize?: number
  /** The least size of the bars' values and the threshold's label (a slide's floor); by default 2 and 1 px under the text. */
  smallest?: number
  /**
   * Name the dashed line in the axis's name rather than over the plot, where it would cover a bar's
   * value on a slide whose text is large.
   */
  thresholdOnAxis?: boolean
}): FigureOption {
  const low = fromPrefix(input.sourceShare, input.threshold)
  const fontSize = input.fontSize ?? 12
  const small = (d: number) => Math.max(input.smallest ?? 0, fontSize - d)
  // The room around the plot is set for 12 px text and grows with it.
  const room = (px: number) => Math.round((px * fontSize) / 12)
  const bars: BarSeriesOption = {
    type: 'bar',
    id: 'source-share',
    name: input.names.axis,
    barMaxWidth: 28,
    data: input.sourceShare.map((s, i) => ({ value: s, itemStyle: { color: low[i] ? SHARE_COLOURS.prefix : SHARE_COLOURS.source } })),
    label: { show: input.labels.length <= 30, position: 'top', fontSize: small(2), formatter: (p) => Number(p.value).toFixed(2).replace(/^0\./, '.') },
    markLine: {
      silent: true,
      symbol: 'none',
      lineStyle: { color: SHARE_COLOURS.threshold, type: 'dashed' },
      label: { show: !input.thresholdOnAxis, formatter: input.names.threshold, position: 'insideEndTop', fontSize: small(1) },
      data: [{ yAxis: input.threshold }],
    },
  }
  return {
    animation: false,
    grid: { left: room(40), right: room(16), top: room(24), bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: {
      type: 'category',
      data: input.labels,
      axisTick: { show: false },
      axisLabel: { interval: 0, rotate: input.labels.length > 12 ? 45 : 0, fontSize, color: '#111827' },
    },
    yAxis: {
      type: 'value',
      min: 0,
      max: 1,
      name: input.thresholdOnAxis ? `${input.names.axis} (- - - ${input.names.threshold})` : input.names.axis,
      nameLocation: 'middle',
      nameRotate: 90,
      nameGap: room(34),
      nameTextStyle: { fontSize, color: '#111827' },
      axisLabel: { fontSize, color: '#374151' },
    },
    series: [bars],
  }
}

/** Per cross-attention layer, the residual's share against the attention's, as stacked horizontal bars (0–1). */
export function buildResidualShareOption(input: {
  layers: LayerShare[]
  names: { residual: string; attention: string; layer: (l: number) => string }
  fontSize?: number
}): FigureOption {
  const fontSize = input.fontSize ?? 12
  const pct = (x: number) => `${Math.round(100 * x)} %`
  const series = (key: 'residual' | 'attention', color: string): BarSeriesOption => ({
    type: 'bar',
    id: key,
    name: input.names[key],
    stack: 'share',
    barMaxWidth: 22,
    itemStyle: { color },
    label: { show: true, fontSize: fontSize - 2, color: '#ffffff', formatter: (p) => pct(Number(p.value)) },
    data: input.layers.map((l) => l[key]),
  })
  return {
    animation: false,
    grid: { left: 8, right: 16, top: 30, bottom: 8, containLabel: true },
    legend: { top: 0, textStyle: { fontSize, color: '#111827' } },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: { type: 'value', min: 0, max: 1, axisLabel: { fontSize, color: '#374151', formatter: (x: number) => pct(x) } },
    yAxis: { type: 'category', inverse: true, data: input.layers.map((l) => input.names.layer(l.layer)), axisLabel: { fontSize, color: '#111827' } },
    series: [series('residual', '#475569'), series('attention', '#2563eb')],
  }
}

/**
 * The figure of what the tab shows (the method's matrix as a heatmap; an RNN's weights with its
 * share bars), as the figure schema's `contributions` data: a plain translation of the view's rows
 * and columns, nothing per step.
 */
export function contributionFigure(
  v: Pick<ContributionView, 'src' | 'tgt' | 'matrix' | 'sourceShare'> & { method: ContributionMethod | typeof CONTEXT_NORM },
  base: { modelId: string; source: string; text: string },
) {
  return {
    view: 'contributions' as const,
    method: v.method,
    sourceShare: v.sourceShare,
    translation: {
      ...base,
      srcTokens: v.src,
      srcUnknown: v.src.map(() => false),
      tgtTokens: v.tgt,
      attention: v.matrix,
      scores: [],
      encoderStates: [],
      align: null,
      positions: null,
      windows: null,
      gaussian: null,
      tokenLogProbs: [],
      alternatives: [],
      tgtUnknown: null,
      mode: 'forced' as const,
      beam: 1,
      logProb: 0,
      truncated: false,
      decodeMs: 0,
      provider: 'cpu',
    },
  }
}
