import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { forcedDecode, greedyBatch, translate, whatIf } from '../../../src/engine/decode'
import { evaluateCorpus } from '../../../src/engine/evaluate'
import { LoadedModel } from '../../../src/engine/model'
import type { Translation } from '../../../src/shared/api'
import { bannedTokens, DEFAULT_REPEAT_GUARD, firstBanned, NO_REPEAT_GUARD, type RepeatGuard } from '../../../src/shared/repeat-guard'
import { inUnits } from '../../../src/shared/attention/word-translation'
import { ROOT, tempDir, tiny } from '../../helpers'

/**
 * The repeat guards (issue 35) on a model that loops: tiny-transformer writes "s@@ -@@ shirt shirt
 * shirt …" to the step limit (53 copies of one piece, the "dé dé dé …" of a runaway decoder) and
 * "b@@ a@@ c@@ a@@ c@@ a@@ …" inside one word; its PyTorch outputs are the parity fixture's.
 */
const PARITY = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/parity/tiny-transformer.json'), 'utf8')) as {
  cases: { source: string; tgt_ids: number[]; beam5_ids: number[] }[]
}
const SHIRT = "A man wearing a t-shirt isn't looking at the 2 dogs' toys."
const CACA = 'A man in an orange hat starring at something.'
const LOOPING = [SHIRT, CACA]
const SOURCES = PARITY.cases.map((c) => c.source)

const opened: LoadedModel[] = []
async function open(plain = false): Promise<LoadedModel> {
  const m = await LoadedModel.open(tiny('transformer'), 'cpu', { plain })
  opened.push(m)
  return m
}
afterAll(async () => {
  for (const m of opened) await m.release()
})

const ids = (m: LoadedModel, t: Translation) => t.tgtTokens.map((x) => m.spec.tgtVocab.indexOf(x))
const withoutEos = (m: LoadedModel, xs: number[]) => xs.filter((i) => i !== m.spec.special.eos)
/** The longest run of one piece. */
const longestRun = (xs: readonly unknown[]) =>
  xs.reduce<[number, number]>(([best, run], x, i) => ((run = i > 0 && x === xs[i - 1] ? run + 1 : 1), [Math.max(best, run), run]), [0, 0])[0]
/** How many 3-grams occur more than once. */
const repeatedTrigrams = (xs: readonly unknown[]) => {
  const seen = new Set<string>()
  let n = 0
  for (let i = 0; i + 3 <= xs.length; i++) {
    const k = JSON.stringify(xs.slice(i, i + 3))
    if (seen.has(k)) n++
    seen.add(k)
  }
  return n
}

describe('a fixture model that loops, greedy', () => {
  it('without the guards its output is unchanged: PyTorch greedy, token for token, loop and all', async () => {
    const m = await open()
    const out = await greedyBatch(m, SOURCES, { guard: NO_REPEAT_GUARD })
    out.forEach((t, i) => {
      expect(withoutEos(m, ids(m, t))).toEqual(PARITY.cases[i].tgt_ids)
      expect(t.blocked).toBeUndefined()
    })
    const shirt = out[SOURCES.indexOf(SHIRT)]
    expect(longestRun(shirt.tgtTokens)).toBeGreaterThan(50)
    expect(repeatedTrigrams(out[SOURCES.indexOf(CACA)].tgtTokens)).toBeGreaterThan(3)
  })

  it('with the guards (the default) it stops looping: no 3-gram twice, no piece more than 3 times in a row, and it ends', async () => {
    const m = await open()
    const [shirt, caca] = await greedyBatch(m, LOOPING)
    for (const t of [shirt, caca]) {
      expect(repeatedTrigrams(t.tgtTokens)).toBe(0)
      expect(longestRun(t.tgtTokens)).toBeLessThanOrEqual(3)
      expect(t.tgtTokens.at(-1)).toBe('</s>')
      expect(firstBanned(ids(m, t), DEFAULT_REPEAT_GUARD)).toBe(-1)
    }
    expect(shirt.tgtTokens.filter((x) => x === 'shirt').length).toBeLessThan(8)
    // Up to the first blocked step the output is the model's own.
    const raw = (await greedyBatch(m, [SHIRT], { guard: NO_REPEAT_GUARD }))[0]
    const first = shirt.blocked!.findIndex((b) => b !== null)
    expect(first).toBeGreaterThan(0)
    expect(shirt.tgtTokens.slice(0, first)).toEqual(raw.tgtTokens.slice(0, first))
    expect(raw.tgtTokens[first]).toBe(shirt.blocked![first])
  })

  it('a sentence that does not loop decodes as it did, nothing marked blocked', async () => {
    const m = await open()
    const i = SOURCES.indexOf('Two dogs are playing in the snow near a red fence.')
    const [t] = await greedyBatch(m, [SOURCES[i]])
    expect(withoutEos(m, ids(m, t))).toEqual(PARITY.cases[i].tgt_ids)
    expect(t.blocked).toBeUndefined()
  })

  it("each blocked step records the model's own first choice: the one the guard banned, still first among the alternatives", async () => {
    const m = await open()
    for (const t of await greedyBatch(m, LOOPING)) {
      const own = ids(m, t)
      const marked = t.blocked!.flatMap((b, s) => (b === null ? [] : [s]))
      expect(marked.length).toBeGreaterThan(0)
      t.blocked!.forEach((b, s) => {
        const banned = bannedTokens(own.slice(0, s), DEFAULT_REPEAT_GUARD)
        const top = t.alternatives[s][0].token
        if (b === null) expect(top).toBe(t.tgtTokens[s])
        else {
          expect(b).toBe(top)
          expect(banned.has(m.spec.tgtVocab.indexOf(b))).toBe(true)
          expect(t.tgtTokens[s]).not.toBe(b)
          // The token taken is the best one the guard let through, with the model's own probability.
          const taken = t.alternatives[s].find((a) => !banned.has(m.spec.tgtVocab.indexOf(a.token)))
          if (taken) {
            expect(t.tgtTokens[s]).toBe(taken.token)
            expect(Math.exp(t.tokenLogProbs[s])).toBeCloseTo(taken.p, 6)
          }
        }
      })
      // In words, a word is marked where one of its pieces is.
      const words = inUnits(t, 'words')
      expect(words.blocked).toHaveLength(words.tgtTokens.length)
      expect(words.blocked!.some((b) => b !== null)).toBe(true)
    }
  })

  it('the ONNX Loop path (rewritten graph) and the step-by-step path agree under the guard, in a padded batch too', async () => {
    const [loop, plain] = [await open(), await open(true)]
    expect(loop.greedy).not.toBeNull()
    expect(plain.greedy).toBeNull()
    for (const guard of [DEFAULT_REPEAT_GUARD, { noRepeatNgram: 0, maxRepeat: 3 }, { noRepeatNgram: 2, maxRepeat: 0 }] as RepeatGuard[]) {
      const got = await greedyBatch(loop, SOURCES, { guard })
      const ref = await greedyBatch(plain, SOURCES, { guard })
      got.forEach((g, i) => {
        expect(g.tgtTokens).toEqual(ref[i].tgtTokens)
        expect(g.blocked).toEqual(ref[i].blocked)
        for (const [s, lp] of g.tokenLogProbs.entries()) expect(Math.abs(lp - ref[i].tokenLogProbs[s])).toBeLessThan(1e-5)
      })
    }
  })

  it('each guard on its own: the cap alone lets 3-grams recur but no 4th copy in a row; n-grams alone cap runs at n', async () => {
    const m = await open()
    const [capped] = await greedyBatch(m, [SHIRT], { guard: { noRepeatNgram: 0, maxRepeat: 3 } })
    expect(longestRun(capped.tgtTokens)).toBe(3)
    // "en train de" twice: only the 3-gram guard forbids that.
    expect(repeatedTrigrams(capped.tgtTokens)).toBeGreaterThan(0)
    const [bigrams] = await greedyBatch(m, [SHIRT], { guard: { noRepeatNgram: 2, maxRepeat: 0 } })
    expect(longestRun(bigrams.tgtTokens)).toBeLessThanOrEqual(2)
  })
})

describe('the guards elsewhere: beam search, what-if, forced decoding, corpus evaluation', () => {
  it('beam search: raw is PyTorch beam 5; guarded, no hypothesis it keeps repeats a 3-gram', async () => {
    const m = await open()
    for (const [i, c] of PARITY.cases.entries()) {
      const raw = await translate(m, c.source, { beam: 5, noRepeatNgram: 0, maxRepeat: 0 })
      expect(withoutEos(m, ids(m, raw)), SOURCES[i]).toEqual(c.beam5_ids)
      const b = await translate(m, c.source, { beam: 5 })
      expect(repeatedTrigrams(b.tgtTokens)).toBe(0)
      expect(longestRun(b.tgtTokens)).toBeLessThanOrEqual(3)
      // The tree holds no candidate that completes a repeated 3-gram.
      for (const [n, node] of b.beamTree!.nodes.entries()) {
        const path: string[] = []
        for (let x = n; x >= 0; x = b.beamTree!.nodes[x].parent) path.unshift(b.beamTree!.nodes[x].token)
        if (node.status !== 'chosen') expect(repeatedTrigrams(path)).toBe(0)
      }
    }
    // The raw beam repeats "en train de" (139 217 133) here; the guarded one does not.
    expect(repeatedTrigrams(PARITY.cases[0].beam5_ids)).toBeGreaterThan(0)
  })

  it('forced decoding is not guarded: the looping output forced through the model keeps every token', async () => {
    const m = await open()
    const [raw] = await greedyBatch(m, [SHIRT], { guard: NO_REPEAT_GUARD })
    const f = await forcedDecode(m, SHIRT, raw.text)
    expect(longestRun(f.tgtTokens)).toBeGreaterThan(40)
    expect(f.blocked).toBeUndefined()
  })

  it("what-if: the original is the app's guarded greedy output, and the guard can be turned off", async () => {
    const m = await open()
    const [guarded] = await greedyBatch(m, [CACA])
    const r = await whatIf(m, { modelId: '', text: CACA, steps: [0], mode: 'uniform' })
    expect(r.original.tgtTokens).toEqual(guarded.tgtTokens)
    expect(r.original.blocked).toEqual(guarded.blocked)
    expect(repeatedTrigrams(r.modified.tgtTokens)).toBe(0)
    const off = await whatIf(m, { modelId: '', text: CACA, steps: [0], mode: 'uniform', noRepeatNgram: 0, maxRepeat: 0 })
    expect(withoutEos(m, ids(m, off.original))).toEqual(PARITY.cases[SOURCES.indexOf(CACA)].tgt_ids)
  })

  it('settings outside 0–20 are refused', async () => {
    const m = await open()
    await expect(translate(m, CACA, { noRepeatNgram: 1.5 })).rejects.toThrow('The no-repeat n-gram size must be a whole number from 0 (off) to 20.')
    await expect(translate(m, CACA, { maxRepeat: -1 })).rejects.toThrow('The most repeats of a piece in a row must be a whole number from 0 (off) to 20.')
  })

  it('corpus evaluation is guarded by default; raw and guarded results are cached apart', async () => {
    const m = await open()
    const cacheDir = tempDir()
    const refs = SOURCES.map(() => 'un homme')
    const guarded = await evaluateCorpus(m, SOURCES, refs, { cacheDir })
    const raw = await evaluateCorpus(m, SOURCES, refs, { cacheDir, guard: NO_REPEAT_GUARD })
    expect(raw.cached).toBe(false)
    expect(raw.hypotheses).not.toEqual(guarded.hypotheses)
    expect(guarded.hypotheses[SOURCES.indexOf(SHIRT)]).toBe((await greedyBatch(m, [SHIRT]))[0].text)
    expect((await evaluateCorpus(m, SOURCES, refs, { cacheDir })).cached).toBe(true)
  })
})
