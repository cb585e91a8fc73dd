/**
 * The Contributions tab for an RNN (issue 41): the context-norm share (src/shared/context-norm.ts)
 * as a bar under each output word, beside the attention weights of the same pass. Pure functions
 * of the engine's answer; the app draws them and the tests read them back.
 */
import type { ContextNorm } from '../context-norm'
import { meanPerSpan, meanRows, sumColumns, wordLabels, wordSpans } from '../attention/words'
import type { Units } from '../attention/word-translation'
import { buildHeatmapOption, type HeatmapInput, type HeatmapStyle } from './heatmap'
import type { FigureOption } from './echarts-parts'

export interface ContextNormView {
  units: Units
  src: string[]
  tgt: string[]
  /** [T][S]: the attention weights, a source word's the sum of its pieces', an output word's the mean of its pieces' rows. */
  weights: number[][]
  /** [T]: the context's share of each output word (the mean of its pieces'). */
  sourceShare: number[]
}

/** The engine's answer in the units chosen (pieces as they are; words as the Transformer's tab makes them). */
export function contextNormView(
  c: Pick<ContextNorm, 'srcTokens' | 'tgtTokens' | 'weights' | 'sourceShare'>,
  opts: { units: Units; srcTokens?: string[] },
): ContextNormView {
  const src = opts.srcTokens && opts.srcTokens.length === c.srcTokens.length ? opts.srcTokens : c.srcTokens
  if (opts.units === 'pieces') return { units: 'pieces', src, tgt: c.tgtTokens, weights: c.weights, sourceShare: c.sourceShare }
  const srcSpans = wordSpans(src)
  const tgtSpans = wordSpans(c.tgtTokens)
  return {
    units: 'words',
    src: wordLabels(src, srcSpans),
    tgt: wordLabels(c.tgtTokens, tgtSpans),
    weights: meanRows(sumColumns(c.weights, srcSpans), tgtSpans),
    sourceShare: meanPerSpan(c.sourceShare, tgtSpans),
  }
}

/** The attention weights as the tab's map (on the heatmap's own style). */
export function buildContextWeightsOption(v: ContextNormView, opts: { title: string; style?: HeatmapStyle; size?: HeatmapInput['size'] }): FigureOption {
  return buildHeatmapOption({ ...(opts.style ?? {}), srcTokens: v.src, tgtTokens: v.tgt, attention: v.weights, title: opts.title, size: opts.size ?? null })
}
