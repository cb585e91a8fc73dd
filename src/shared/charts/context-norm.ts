/**
 * The Contributions tab for an RNN (issue 41): the context-norm share (src/shared/context-norm.ts)
 * as a bar under each output word, beside the attention weights of the same pass. Pure functions
 * of the engine's answer; the app draws them and the tests read them back.
 */
import { CONTEXT_NORM, type ContextNorm } from '../context-norm'
import { meanPerSpan, meanRows, sumColumns, wordLabels, wordSpans } from '../attention/words'
import type { Units } from '../attention/word-translation'
import { contributionFigure, SHARE_COLOURS } from './contributions'
import { graphicElements, type FigureOption, type GraphicElement } from './echarts-parts'
import { textElement, textHeight, widest, type Frame } from './frame'
import { buildHeatmapOption, heatmapLayout, type HeatmapInput, type HeatmapStyle } from './heatmap'

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

/** A share as the bars' values read on screen: ".42", "1.00". */
export const shareText = (s: number) => s.toFixed(2).replace(/^0\./, '.')

/**
 * The figure of an RNN's Contributions tab on a page: the attention weights' map (the heatmap's
 * figure) and, in a column right of it, the context share of each output row as a bar on the
 * row's line with its value, the column's name above it. Rows split into parts carry their bars
 * with them. Cramped where the rows are lower than the values or the map has no room left.
 */
export function buildShareColumnFigure(input: { map: Omit<HeatmapInput, 'frame'>; share: readonly number[]; name: string; frame: Frame }): FigureOption {
  const f = input.frame
  const fs = f.fontSize
  const gap = fs * 0.5
  const pad = fs * 0.3
  const lh = textHeight(fs)
  // The values as small as the map's cell values (¾ of the text), never under the slide's floor.
  const valueSize = Math.max(fs * 0.75, f.least ?? 0)
  const texts = input.share.map(shareText)
  const valueW = widest(texts, valueSize, f.measure)
  // The column as narrow as its bars read (the map keeps the width), its name in lines no wider.
  const name = input.name.split(' ')
  const nameW = widest(name, fs, f.measure)
  const barMax = Math.max(fs * 2, nameW - valueW - pad)
  const colW = barMax + pad + valueW
  const mapFrame: Frame = { ...f, width: f.width - colW - gap }
  const map: HeatmapInput = { ...input.map, frame: mapFrame }
  const lay = heatmapLayout(map, mapFrame)
  const option = buildHeatmapOption(map)
  const x0 = f.x + f.width - colW
  const T = Math.max(1, input.share.length)
  const ch = lay.height / T
  const bar = Math.min(ch * 0.7, fs)
  const elements: GraphicElement[] = [
    ...name.map((line, k) => textElement(line, x0, f.y + (k + 0.5) * lh, f, { align: 'left', color: f.ink.muted })),
    {
      type: 'line',
      silent: true,
      shape: { x1: x0, y1: lay.top, x2: x0, y2: lay.top + lay.height },
      style: { stroke: f.ink.axis, lineWidth: Math.max(1, fs / 12) },
    },
  ]
  input.share.forEach((s, t) => {
    const cy = lay.top + (t + 0.5) * ch
    const w = Math.max(0, Math.min(1, s)) * barMax
    elements.push(
      { type: 'rect', silent: true, shape: { x: x0, y: cy - bar / 2, width: Math.max(0.5, w), height: bar }, style: { fill: SHARE_COLOURS.source } },
      textElement(texts[t], x0 + w + pad, cy, f, { size: valueSize }),
    )
  })
  return {
    ...option,
    graphic: { elements: [...graphicElements(option), ...elements] },
    cramped: !!option.cramped || mapFrame.width < 4 * fs || ch < textHeight(valueSize) - 0.01,
  }
}

/** The figure data of an RNN's tab (the schema's `contributions`, method `context-norm`): its weights and each row's share. */
export const contextNormFigure = (v: ContextNormView, base: { modelId: string; source: string; text: string }) =>
  contributionFigure({ ...v, matrix: v.weights, method: CONTEXT_NORM }, base)
