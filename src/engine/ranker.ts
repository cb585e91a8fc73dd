import * as ort from './onnxruntime'
import { neverGenerated, type ModelSpec } from './contract'
import { K_INPUT, rankerModel, TOPK_IDS, TOPK_LOGP } from './graph-surgery'
import { sessionOptions } from './formats/ort-sessions'

/**
 * The k best tokens of a step part that returns only logits (a Hugging Face folder; a file whose
 * step graph could not be rewritten), ranked by onnxruntime with the nodes stepGraph appends
 * elsewhere (graph-surgery.ts, rankerModel). NLLB's 256,206 logits a row cost 4–12 ms a step to
 * rank in JavaScript (one Math.exp each for the log-sum-exp): a third of a q8 step, more than
 * transformers.js spends beyond onnxruntime. onnxruntime's vectorised LogSoftmax and TopK take
 * about 0.5 ms. The logits stay in the output for the rules that read them (ruledTop, tokenLogProb).
 */

/**
 * What a ranker needs of a model (model.ts's LoadedModel, which imports this module to release its
 * rankers): its spec, for the tokens it never generates, and its identity, the cache's key.
 */
interface Ranked {
  spec: Pick<ModelSpec, 'special' | 'tgtVocab' | 'neverGenerate'>
}

/** One ranker per model and vocabulary size, made at the first step (a few milliseconds). */
const rankers = new WeakMap<Ranked, Map<number, Promise<ort.InferenceSession>>>()

function rankerFor(model: Ranked, V: number): Promise<ort.InferenceSession> {
  let byV = rankers.get(model)
  if (!byV) rankers.set(model, (byV = new Map()))
  let r = byV.get(V)
  if (!r) {
    r = ort.InferenceSession.create(rankerModel({ vocabSize: V, masked: neverGenerated(model.spec) }), sessionOptions('cpu'))
    byV.set(V, r)
  }
  return r
}

/**
 * A step's outputs with `al_topk_logp` and `al_topk_ids` [B, k] added, ranked over its [B, V]
 * float32 logits; outputs of another shape or type come back as they are (rowTop ranks them).
 */
export async function withTopK(model: Ranked, o: ort.InferenceSession.ReturnType, k: number): Promise<ort.InferenceSession.ReturnType> {
  const logits = o.logits as ort.Tensor | undefined
  if (!logits || logits.type !== 'float32' || logits.dims.length !== 2 || o[TOPK_IDS]) return o
  const V = logits.dims[1]
  const ranker = await rankerFor(model, V)
  const r = await ranker.run({ logits, [K_INPUT]: new ort.Tensor('int64', BigInt64Array.of(BigInt(Math.min(k, V))), [1]) })
  return { ...o, [TOPK_LOGP]: r[TOPK_LOGP], [TOPK_IDS]: r[TOPK_IDS] }
}

/** Releases a model's rankers (LoadedModel.release). */
export async function releaseRankers(model: Ranked): Promise<void> {
  const byV = rankers.get(model)
  rankers.delete(model)
  for (const r of byV?.values() ?? []) await (await r.catch(() => null))?.release()
}
