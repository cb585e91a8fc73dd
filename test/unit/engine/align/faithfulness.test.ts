import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ablatedDecode, ablationScore, ablationSet, canAblate } from '../../../../src/engine/align/ablation'
import { kendallTau } from '../../../../src/engine/align/kendall'
import { forcedLogProbs, occluded, occlusion } from '../../../../src/engine/align/occlusion'
import { encodeSource, greedyBatch, targetIds } from '../../../../src/engine/decode'
import { LoadedModel } from '../../../../src/engine/model'
import { wordSpans } from '../../../../src/shared/attention/words'
import { NO_REPEAT_GUARD } from '../../../../src/shared/repeat-guard'
import { ROOT, tiny } from '../../../helpers'

describe("Kendall's τ-b", () => {
  it('is 1 for the same order, −1 reversed, corrected for ties, null without an order', () => {
    expect(kendallTau([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1)
    expect(kendallTau([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1)
    // Pairs: (1,2) tie in a; (1,3) +; (2,3) +: τ-b = 2 / √(3 · 2).
    expect(kendallTau([1, 1, 2], [1, 2, 3])).toBeCloseTo(2 / Math.sqrt(6), 12)
    expect(kendallTau([5, 5, 5], [1, 2, 3])).toBeNull()
  })
})

const models: Record<string, LoadedModel> = {}
beforeAll(async () => {
  for (const k of ['bahdanau', 'transformer', 'none']) models[k] = await LoadedModel.open(tiny(k))
})
afterAll(async () => {
  for (const m of Object.values(models)) await m.release()
})

describe('occlusion', () => {
  it.each(['bahdanau', 'transformer'])('%s: a word the model cannot see (already <unk>) has importance 0; the others do not', async (kind) => {
    const model = models[kind]
    // "☃" is no piece of the fixture's vocabulary: the model reads it as <unk> already.
    const o = await occlusion(model, 'a man ☃ is sitting on a bench .')
    const w = o.srcWords.indexOf('☃')
    expect(w).toBe(2)
    expect(o.srcWords).toEqual(['a', 'man', '☃', 'is', 'sitting', 'on', 'a', 'bench', '.'])
    for (const row of o.importance) expect(Math.abs(row[w])).toBeLessThan(1e-6)
    const others = o.importance.flatMap((row) => row.filter((_, i) => i !== w).map(Math.abs))
    expect(Math.max(...others)).toBeGreaterThan(0.01)
    expect(o.importance).toHaveLength(o.tgtTokens.length)
    for (const row of o.attention) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5)
    expect(o.tau).toHaveLength(o.tgtTokens.length)
  })

  it.each(['bahdanau', 'transformer'])('%s: the batch equals one-by-one forced decoding, and the unchanged row equals greedy', async (kind) => {
    const model = models[kind]
    const text = 'two young men are playing soccer in a park .'
    const [own] = await greedyBatch(model, [text], { topK: 1 })
    const ids = targetIds(model, own.tgtTokens)
    const src = encodeSource(model, text)
    const spans = wordSpans(src.tokens.slice(0, -1))
    const srcs = [src, ...spans.map((_, w) => occluded(model, src, spans, w))]
    const batch = await forcedLogProbs(model, srcs, ids)
    for (let k = 0; k < srcs.length; k++) {
      const [alone] = await forcedLogProbs(model, [srcs[k]], ids)
      alone.forEach((x, t) => expect(batch[k][t]).toBeCloseTo(x, 5))
    }
    batch[0].forEach((x, t) => expect(x).toBeCloseTo(own.tokenLogProbs[t], 4))
    // Each occluded copy has one <unk> where its word was.
    expect(srcs[2].tokens.filter((t) => t === '<unk>')).toHaveLength(1)
  })

  it('refuses a model without attention', async () => {
    await expect(occlusion(models.none, 'a dog .')).rejects.toThrow(/has no attention/)
  })
})

describe('corpus attention ablation', () => {
  const lines = (f: string) =>
    readFileSync(join(ROOT, 'test', 'fixtures', f), 'utf8')
      .trim()
      .split('\n')
      .slice(0, 12)
  const srcs = lines('multi30k-test-50.en')
  const refs = lines('multi30k-test-50.fr')

  it.each(['bahdanau', 'transformer'])('%s: without ablation it decodes exactly as greedy decoding', async (kind) => {
    const model = models[kind]
    const own = await ablationScore(model, srcs, refs, 'none', { batchSize: 5 })
    // The ablation measures the model's own decoding: greedy without the repeat guards.
    const greedy = await greedyBatch(model, srcs, { topK: 1, guard: NO_REPEAT_GUARD })
    expect(own.hypotheses).toEqual(greedy.map((t) => t.text))
  })

  it.each(['bahdanau', 'transformer'])('%s: uniform attention covers only the real source positions (a padded row scores as alone)', async (kind) => {
    const model = models[kind]
    const short = encodeSource(model, 'a dog .')
    const long = encodeSource(model, 'a man in a blue shirt is standing on a ladder .')
    const forced = [targetIds(model, ['un', 'chien', '.']).concat(model.spec.special.eos)]
    const rnd = () => 0.5
    const alone = await ablatedDecode(model, [short], 'uniform', forced, rnd)
    const padded = await ablatedDecode(model, [short, long], 'uniform', [forced[0], forced[0]], rnd)
    alone.logProbs[0].forEach((x, t) => expect(padded.logProbs[0][t]).toBeCloseTo(x, 5))
    const own = await ablatedDecode(model, [short], 'none', forced, rnd)
    expect(Math.max(...own.logProbs[0].map((x, t) => Math.abs(x - alone.logProbs[0][t])))).toBeGreaterThan(1e-3)
  })

  it('permutes reproducibly with a seed and changes the output', async () => {
    const model = models.bahdanau
    const a = await ablationScore(model, srcs, refs, 'permuted', { seed: 3 })
    const b = await ablationScore(model, srcs, refs, 'permuted', { seed: 3 })
    const own = await ablationScore(model, srcs, refs, 'none')
    expect(a.hypotheses).toEqual(b.hypotheses)
    expect(a.refLogProb).toBe(b.refLogProb)
    expect(a.refLogProb).toBeLessThan(own.refLogProb)
  })

  it("runs a model's three ways with progress over all of them, or only its own attention when it cannot be ablated", async () => {
    const few = srcs.slice(0, 6)
    const fewRefs = refs.slice(0, 6)
    const seen: [number, number][] = []
    const set = await ablationSet(models.bahdanau, few, fewRefs, { batchSize: 4, onProgress: (d, t) => seen.push([d, t]) })
    expect(seen).toEqual([4, 6, 10, 12, 16, 18].map((d) => [d, 18]))
    expect(set.why).toBeNull()
    expect(set.own).toEqual(await ablationScore(models.bahdanau, few, fewRefs, 'none', { batchSize: 4 }))
    expect(set.permuted).toEqual(await ablationScore(models.bahdanau, few, fewRefs, 'permuted', { batchSize: 4, seed: 1 }))
    const none: [number, number][] = []
    const plain = await ablationSet(models.none, few, fewRefs, { onProgress: (d, t) => none.push([d, t]) })
    expect(plain.why).toMatch(/no attention to ablate/)
    expect([plain.uniform, plain.permuted]).toEqual([null, null])
    expect(none.at(-1)).toEqual([6, 6])
  })

  it('says why a model cannot be ablated', () => {
    expect(canAblate(models.none)).toMatch(/no attention to ablate/)
    expect(canAblate(models.bahdanau)).toBeNull()
  })
})
