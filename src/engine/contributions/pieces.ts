import type { ModelSpec } from '../contract'
import { maxTargetLength, MAX_SOURCE_TOKENS, vocabIndex } from '../decode'
import { tokenize } from '../tokenizer'

/**
 * Text and pieces to ids as the contribution passes of a bundled model read them (a Transformer's,
 * index.ts; an RNN's, rnn.ts): the app's tokenizer, cut as the app cuts it, `</s>` last.
 */
type Spec = Pick<ModelSpec, 'srcVocab' | 'tgtVocab' | 'special' | 'srcTokenizer' | 'tgtTokenizer' | 'maxTarget'>

/** Source text to pieces and ids, `</s>` last. */
export function encodeSource(spec: Spec, text: string): { tokens: string[]; ids: number[] } {
  const { srcVocab, special, srcTokenizer } = spec
  const index = vocabIndex(srcVocab)
  const pieces = tokenize(text, srcTokenizer).slice(0, MAX_SOURCE_TOKENS)
  return { tokens: [...pieces, srcVocab[special.eos]], ids: [...pieces.map((p) => index.get(p) ?? special.unk), special.eos] }
}

/** Target text to ids with `</s>` last, cut to the step limit. */
export function encodeTarget(spec: Spec, text: string, srcLen: number): number[] {
  const { tgtVocab, special, tgtTokenizer } = spec
  const index = vocabIndex(tgtVocab)
  const pieces = tokenize(text, tgtTokenizer).slice(0, maxTargetLength(srcLen, spec.maxTarget) - 1)
  return [...pieces.map((p) => index.get(p) ?? special.unk), special.eos]
}

/** The output pieces asked (the translation on show, its `</s>` or not) as ids with `</s>` last, an unknown piece as `<unk>`; none asked: null (greedy). */
export function forcedIds(spec: Pick<Spec, 'tgtVocab' | 'special'>, pieces: string[] | undefined): number[] | null {
  if (!pieces) return null
  const { tgtVocab, special } = spec
  const index = vocabIndex(tgtVocab)
  const ids = pieces.map((p) => index.get(p) ?? special.unk)
  if (ids[ids.length - 1] === special.eos) ids.pop()
  return [...ids, special.eos]
}

/** The greedy next token: the largest logit among those the model may generate. */
export function greedyNext(logits: Float32Array, never: ReadonlySet<number>): number {
  let next = -1
  let best = -Infinity
  for (let v = 0; v < logits.length; v++)
    if (!never.has(v) && logits[v] > best) {
      best = logits[v]
      next = v
    }
  return next
}
