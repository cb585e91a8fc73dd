/**
 * The contribution methods (issue 41: value-weighted norms, ALTI, ALTI+, rollout) as aligners, as
 * attention weights are: each gold pair's target forced through the model's tapped forward pass
 * with every gold word tokenized on its own (pieces.ts), each method's [target piece][source piece]
 * matrix read like the weights (wordMatrix: source pieces summed, target pieces averaged, `</s>`
 * left out, renormalised) and each target word linked to its argmax source word. One code path for
 * `align --method alti+`, the Alignment score tab and bench/contributions-aer.ts; a Hugging Face
 * folder's own tokens around the pieces (a language code, `<s>`, the forced first step) left out.
 */
import { CONTRIBUTION_METHODS, methodResult, type ContributionMethod, type Contributions } from '../../shared/contributions'
import { CancelledError } from '../../shared/errors'
import { openAttributor, HfContributionModel, type Attributor } from '../contributions'
import type { Pass } from '../contributions/pass'
import { maxTargetLength, vocabIndex } from '../decode'
import type { WordPair } from './gold'
import type { PairAttention } from './attention'
import { wordPieces } from './pieces'

/** The methods `align --method` and the Alignment score tab read besides the weights. */
export const ALIGN_CONTRIBUTIONS: readonly ContributionMethod[] = CONTRIBUTION_METHODS

/** `alti+` → the method, or null for a name that is none of them. */
export function contributionMethodOf(name: string): ContributionMethod | null {
  return (CONTRIBUTION_METHODS as readonly string[]).includes(name) ? (name as ContributionMethod) : null
}

/** One gold pair's tapped forward pass and every method's numbers for it, with the gold words' piece spans. */
export interface PairContributions {
  srcSpans: PairAttention['srcSpans']
  tgtSpans: PairAttention['tgtSpans']
  pass: Pass
  contributions: Contributions
  /**
   * A matrix of the pass ([target id][source id]) as the gold's pieces: a Hugging Face folder's own
   * tokens (a language code or `<s>` before the source, the forced first token's step) left out.
   */
  gold: (m: readonly (readonly number[])[]) => number[][]
}

/**
 * Every pair's forward pass with the taps, the target forced through (at most the steps the model
 * allows, `</s>` last), handed to `visit` one at a time (a pass holds every layer's tensors: they
 * are not kept).
 */
export async function visitPairContributions(
  model: Attributor,
  pairs: readonly WordPair[],
  visit: (p: PairContributions, n: number) => void,
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<void> {
  const { spec } = model
  const srcIndex = vocabIndex(spec.srcVocab)
  const tgtIndex = vocabIndex(spec.tgtVocab)
  /** The bundled Transformers' ids: the pieces and `</s>`, nothing of their own around them. */
  const bundled = (src: string[], tgt: string[]) => {
    const srcIds = [...src.map((p) => srcIndex.get(p) ?? spec.special.unk), spec.special.eos]
    const room = maxTargetLength(srcIds.length, spec.maxTarget) - 1
    return { srcIds, tgtIds: [...tgt.slice(0, room).map((p) => tgtIndex.get(p) ?? spec.special.unk), spec.special.eos], head: 0, forced: 0 }
  }
  for (const [n, pair] of pairs.entries()) {
    if (opts.signal?.aborted) throw new CancelledError('The alignment was cancelled.')
    const src = wordPieces(pair.src, spec.srcTokenizer, spec.srcVocab[spec.special.unk])
    const tgt = wordPieces(pair.tgt, spec.tgtTokenizer, spec.tgtVocab[spec.special.unk])
    const { srcIds, tgtIds, head, forced } =
      model instanceof HfContributionModel ? model.encodeGoldPieces(src.pieces, tgt.pieces) : bundled(src.pieces, tgt.pieces)
    const pass = await model.run(srcIds, tgtIds)
    const gold = (m: readonly (readonly number[])[]) => m.slice(forced).map((r) => Array.from(r.slice(head)))
    visit({ srcSpans: src.spans, tgtSpans: tgt.spans, pass, contributions: model.contributions(pass), gold }, n)
    opts.onProgress?.(n + 1, pairs.length)
  }
}

/** Each pair's matrix by each of `methods`, as the weights' reader takes it ([method][pair]). */
export async function methodAttentions(
  model: Attributor,
  pairs: readonly WordPair[],
  methods: readonly ContributionMethod[],
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<Map<ContributionMethod, PairAttention[]>> {
  const out = new Map(methods.map((m) => [m, [] as PairAttention[]]))
  await visitPairContributions(model, pairs, (p) => methods.forEach((m) => out.get(m)!.push(methodAttention(p, m))), opts)
  return out
}

/** One method's matrix of a pair as the weights' reader takes it (PairAttention's rows: [target piece][source piece]). */
export function methodAttention(p: PairContributions, method: ContributionMethod): PairAttention {
  return { srcSpans: p.srcSpans, tgtSpans: p.tgtSpans, rows: p.gold(methodResult(p.contributions, method).matrix), cross: null }
}

/** A model file's methods over the gold pairs, its reader opened and released here. */
export async function methodAttentionsOf(
  path: string,
  pairs: readonly WordPair[],
  methods: readonly ContributionMethod[],
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<Map<ContributionMethod, PairAttention[]>> {
  const model = await openAttributor(path)
  try {
    return await methodAttentions(model, pairs, methods, opts)
  } finally {
    await model.release()
  }
}
