import type { OcclusionResult } from '../../shared/alignment'
import { KINDS } from '../../shared/attention-kinds'
import { sumColumns, wordLabels, wordSpans, type Span } from '../../shared/attention/words'
import { CancelledError } from '../../shared/errors'
import { decodeSteps, encodePieces, encodeSource, greedyBatch, targetIds, type EncodedSource } from '../decode'
import type { LoadedModel } from '../model'
import { argmax } from './extract'
import { kendallTau } from './kendall'

/**
 * Leave-one-out importance (occlusion): the model's own output is forced through the model once
 * per source word with that word's pieces replaced by one `<unk>`, all in one batch with the
 * unchanged source; a word's importance for an output token is how much the token's
 * log-probability drops without it. Set beside the attention (the same words, pieces summed), the
 * two rank the source words per output step: Kendall's τ and whether both put the same word first.
 */
export type Occlusion = OcclusionResult

/** Largest batch of occluded copies run at once. */
const MAX_BATCH = 64

/**
 * Forced decoding of the same target ids under several sources; the per-token log-probabilities of
 * each. Rows are independent (their padding is masked), so any batching gives the same numbers.
 */
export async function forcedLogProbs(model: LoadedModel, srcs: EncodedSource[], ids: number[], signal?: AbortSignal): Promise<number[][]> {
  const out: number[][] = []
  for (let k = 0; k < srcs.length; k += MAX_BATCH) {
    if (signal?.aborted) throw new CancelledError('The occlusion was cancelled.')
    const part = srcs.slice(k, k + MAX_BATCH)
    const { steps } = await decodeSteps(model, part, { topK: 1, forced: part.map(() => ids), signal, crossAttention: false }, false)
    out.push(...steps.map((s) => s.map((r) => r.logProb)))
  }
  return out
}

/** The text's own pieces: without the format's tokens around them (a language tag, `<s>`, `</s>`). */
const bodyOf = (src: EncodedSource): string[] => src.tokens.slice(src.head, src.tokens.length - src.tail)

/** The source with word w's pieces replaced by one `<unk>`. */
export function occluded(model: LoadedModel, src: EncodedSource, spans: readonly Span[], w: number): EncodedSource {
  const pieces = bodyOf(src)
  const [a, b] = spans[w]
  const unk = model.spec.srcVocab[model.spec.special.unk]
  return encodePieces(model, [...pieces.slice(0, a), unk, ...pieces.slice(b + 1)], src.text)
}

export async function occlusion(model: LoadedModel, text: string, signal?: AbortSignal): Promise<Occlusion> {
  if (!KINDS[model.spec.attention].attends) throw new Error(`${model.spec.name} has no attention to compare occlusion with.`)
  const [own] = await greedyBatch(model, [text], { topK: 1, encoderStates: false, crossAttention: false, signal })
  const src = encodeSource(model, text)
  const pieces = bodyOf(src)
  const spans = wordSpans(pieces)
  const ids = targetIds(model, own.tgtTokens)
  const lp = await forcedLogProbs(model, [src, ...spans.map((_, w) => occluded(model, src, spans, w))], ids, signal)
  const base = lp[0]
  const importance = base.map((l, t) => spans.map((_, w) => l - lp[w + 1][t]))
  const attention = sumColumns(
    own.attention.map((r) => r.slice(src.head, src.head + pieces.length)),
    spans,
  ).map((r) => {
    const s = r.reduce((a, b) => a + b, 0)
    return s > 0 ? r.map((x) => x / s) : r
  })
  // A forced first token (a target language tag) is no choice of the model's: its step counts in neither summary.
  const first = model.spec.generation?.forcedFirst ?? null
  const lead = first !== null && ids[0] === first ? 1 : 0
  const tau = importance.map((row, t) => (t < lead ? null : kendallTau(row, attention[t])))
  const top1 = importance.map((row, t) => t >= lead && argmax(row) === argmax(attention[t]))
  const taus = tau.filter((x): x is number => x !== null)
  const counted = top1.slice(lead)
  return {
    srcWords: wordLabels(pieces, spans),
    tgtTokens: own.tgtTokens,
    logProbs: base,
    importance,
    attention,
    tau,
    top1,
    meanTau: taus.length ? taus.reduce((a, b) => a + b, 0) / taus.length : null,
    top1Rate: counted.length ? counted.filter(Boolean).length / counted.length : 0,
  }
}

export interface OcclusionSummary {
  sentences: number
  steps: number
  /** Mean over every output step of every sentence (steps where τ is defined). */
  meanTau: number | null
  top1Rate: number
}

/** Occlusion over a test set: how often attention and importance agree, step by step. */
export async function occlusionSummary(
  model: LoadedModel,
  texts: readonly string[],
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<OcclusionSummary> {
  let tauSum = 0
  let tauN = 0
  let top = 0
  let steps = 0
  for (let n = 0; n < texts.length; n++) {
    const o = await occlusion(model, texts[n], opts.signal)
    for (const t of o.tau) if (t !== null) [tauSum, tauN] = [tauSum + t, tauN + 1]
    top += o.top1.filter(Boolean).length
    steps += o.top1.length
    opts.onProgress?.(n + 1, texts.length)
  }
  return { sentences: texts.length, steps, meanTau: tauN ? tauSum / tauN : null, top1Rate: steps ? top / steps : 0 }
}
