import * as ort from '../../../src/engine/onnxruntime'
import { afterAll, describe, expect, it } from 'vitest'
import { TOPK_IDS, TOPK_LOGP } from '../../../src/engine/graph-surgery'
import type { LoadedModel } from '../../../src/engine/model'
import { releaseRankers, withTopK } from '../../../src/engine/ranker'
import { rowTop } from '../../../src/engine/steps'

// A model as the ranker and rowTop see it: a vocabulary whose <pad>, <unk> and <s> are never generated.
const V = 5000
const model = { spec: { special: { pad: 0, unk: 1, bos: 2, eos: 3 }, tgtVocab: Array.from({ length: V }, (_, i) => `p${i}`) } } as unknown as LoadedModel
afterAll(() => releaseRankers(model))

/** A seeded generator, so a failure can be run again. */
function seeded(seed: number): () => number {
  let s = seed
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 8 - 4
}

describe('ranking a step that returns only logits in onnxruntime (ranker.ts)', () => {
  it('gives the ids and log-probabilities the JavaScript ranking gives: ties to the lower id, masked tokens out, a forced row', async () => {
    const B = 4
    const rnd = seeded(7)
    const x = Float32Array.from({ length: B * V }, rnd)
    // Row 1: the best logit tied three ways, and the very best on <unk>, which is masked.
    x.fill(5, V + 10, V + 13)
    x[V + 1] = 9
    // Row 2: a forced first token, every other logit −∞ (parts.ts's forced_bos_token_id).
    x.fill(-Infinity, 2 * V, 3 * V)
    x[2 * V + 77] = 0
    // Row 3: a peaked row, most of its probability on one token.
    x[3 * V + 4242] = 40
    const k = 6
    const logits = () => new ort.Tensor('float32', x.slice(), [B, V])
    const ranked = await withTopK(model, { logits: logits() }, k)
    expect(ranked[TOPK_IDS].dims).toEqual([B, k])
    for (let b = 0; b < B; b++) {
      // The reference: rowTop over the logits alone (logitRow, logSumExp and topK in JavaScript).
      const js = rowTop(model, { logits: logits() }, b, k)
      const got = rowTop(model, ranked, b, k)
      expect(got.ids).toEqual(js.ids)
      got.logp.forEach((lp, i) => expect(Math.exp(lp)).toBeCloseTo(Math.exp(js.logp[i]), 6))
    }
    expect(rowTop(model, ranked, 1, 3).ids).toEqual([10, 11, 12])
    expect(rowTop(model, ranked, 2, 1).ids).toEqual([77])
    expect(Math.exp(rowTop(model, ranked, 2, 1).logp[0])).toBe(1)
    // The logits stay for the rules that read them (ruledTop, tokenLogProb).
    expect(ranked.logits.data).toEqual(x)
  })

  it('leaves outputs it cannot rank as they are, and a step already ranked in its graph', async () => {
    const three = { logits: new ort.Tensor('float32', new Float32Array(2 * V), [1, 2, V]) }
    expect(await withTopK(model, three, 3)).toBe(three)
    const own = { logits: new ort.Tensor('float32', new Float32Array(V), [1, V]), [TOPK_IDS]: new ort.Tensor('int64', BigInt64Array.of(9n), [1, 1]) }
    expect(await withTopK(model, own, 1)).toBe(own)
    expect((await withTopK(model, { logits: new ort.Tensor('float32', new Float32Array(V), [1, V]) }, 1))[TOPK_LOGP]).toBeDefined()
  })
})
