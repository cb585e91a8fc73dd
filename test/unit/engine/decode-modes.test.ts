import { afterAll, describe, expect, it } from 'vitest'
import { overrideWeights } from '../../../src/engine/decode'
import { differing } from '../../../src/shared/differing'
import { comparableTokens, END_MARK } from '../../../src/shared/end-token'
import { InferenceService } from '../../../src/engine/service'
import { tiny } from '../../helpers'

const service = new InferenceService()
afterAll(() => service.closeAll())
const SENTENCE = 'A man in a blue shirt is standing on a ladder.'

describe('beam search', () => {
  it('beam 1 is greedy; a wider beam finds a hypothesis at least as probable after length normalisation', async () => {
    const greedy = await service.translate(tiny('bahdanau'), SENTENCE)
    const b1 = await service.translate(tiny('bahdanau'), SENTENCE, { beam: 1 })
    expect(b1.tgtTokens).toEqual(greedy.tgtTokens)
    for (const alpha of [0, 1]) {
      const g = await service.translate(tiny('bahdanau'), SENTENCE, { beam: 1, lengthPenalty: alpha })
      const b = await service.translate(tiny('bahdanau'), SENTENCE, { beam: 8, lengthPenalty: alpha })
      expect(b.mode).toBe('beam')
      const norm = (t: { logProb: number; tgtTokens: string[] }) => t.logProb / Math.pow(t.tgtTokens.length, alpha)
      expect(norm(b)).toBeGreaterThanOrEqual(norm(g) - 1e-5)
      expect(b.attention).toHaveLength(b.tgtTokens.length)
      expect(b.tokenLogProbs.reduce((x, y) => x + y, 0)).toBeCloseTo(b.logProb, 4)
    }
  })

  it('captures local-attention outputs for the chosen hypothesis and refuses beam sizes outside 1–16', async () => {
    const b = await service.translate(tiny('local-p'), SENTENCE, { beam: 4 })
    expect(b.positions).toHaveLength(b.tgtTokens.length)
    expect(b.windows).toHaveLength(b.tgtTokens.length)
    await expect(service.translate(tiny('local-p'), SENTENCE, { beam: 17 })).rejects.toThrow('The beam size must be between 1 and 16.')
  })

  it('top-k alternatives: the chosen greedy token is the most probable one at every step', async () => {
    const t = await service.translate(tiny('bahdanau'), SENTENCE, { topK: 3 })
    t.alternatives.forEach((alts, i) => {
      expect(alts).toHaveLength(3)
      expect(alts[0].token).toBe(t.tgtTokens[i])
      expect(alts[0].p).toBeCloseTo(Math.exp(t.tokenLogProbs[i]), 5)
      expect(alts[0].p).toBeGreaterThanOrEqual(alts[1].p)
    })
  })
})

describe('forced decoding', () => {
  it('forcing the greedy output reproduces its attention and log-probabilities', async () => {
    // A sentence whose greedy output has no <unk>, so its text tokenizes back to the same tokens.
    const candidates = ['Two men are sitting.', 'A man is standing.', 'A dog.', 'A woman.', 'Two dogs play.', 'A man.', 'People are walking.']
    let source = ''
    let g = await service.translate(tiny('bahdanau'), candidates[0])
    for (const c of candidates) {
      g = await service.translate(tiny('bahdanau'), c)
      source = c
      if (!g.tgtTokens.includes('<unk>')) break
    }
    expect(g.tgtTokens).not.toContain('<unk>')
    const f = await service.forced(tiny('bahdanau'), source, g.text)
    expect(f.tgtTokens).toEqual(g.tgtTokens)
    f.tokenLogProbs.forEach((lp, i) => expect(lp).toBeCloseTo(g.tokenLogProbs[i], 4))
    f.attention.forEach((r, i) => r.forEach((w, s) => expect(w).toBeCloseTo(g.attention[i][s], 5)))
  })

  it('aligns a reference the model would not produce, marking unknown target words', async () => {
    const f = await service.forced(tiny('bahdanau'), SENTENCE, 'Un homme en chemise bleue est debout sur une échelle zzzz.')
    expect(f.mode).toBe('forced')
    expect(f.tgtTokens.at(-1)).toBe('</s>')
    expect(f.attention).toHaveLength(f.tgtTokens.length)
    expect(f.tgtUnknown!.at(-2)).toBe(false) // "."
    expect(f.tgtUnknown!.some(Boolean)).toBe(true) // "zzzz"
    for (const lp of f.tokenLogProbs) expect(lp).toBeLessThanOrEqual(0)
  })
})

describe('what-if attention', () => {
  it('uniform attention at every step: the weights used are uniform and both runs come back', async () => {
    const r = await service.whatIf(tiny('bahdanau'), { modelId: '', text: SENTENCE, steps: 'all', mode: 'uniform' })
    const S = r.modified.srcTokens.length
    for (const row of r.modified.attention) for (const w of row) expect(w).toBeCloseTo(1 / S, 6)
    expect(r.original.attention.some((row) => row.some((w) => Math.abs(w - 1 / S) > 1e-3))).toBe(true)
    expect(r.changed).toEqual(differing(comparableTokens(r.modified), comparableTokens(r.original)))
  })

  it('one-hot at one step changes only that step and later ones', async () => {
    const r = await service.whatIf(tiny('local-p'), { modelId: '', text: SENTENCE, steps: [2], mode: 'onehot', sourceIndex: 5 })
    expect(r.modified.attention[2][5]).toBe(1)
    expect(r.modified.tgtTokens.slice(0, 2)).toEqual(r.original.tgtTokens.slice(0, 2))
    expect(r.changed.slice(0, 2)).toEqual([false, false])
    expect(r.modified.attention[1]).toEqual(r.original.attention[1])
  })

  it('counts changes by the LCS rule: a token shifted by an inserted word is not changed', () => {
    expect(differing(['a', 'new', 'b', '.', END_MARK], ['a', 'b', '.', END_MARK])).toEqual([false, true, false, false, false])
  })

  it('builds diagonal and hand-edited weights, and rejects bad ones in one sentence', () => {
    expect(Array.from(overrideWeights({ mode: 'diagonal' }, 0, 5, 5))).toEqual([1, 0, 0, 0, 0])
    expect(Array.from(overrideWeights({ mode: 'diagonal' }, 4, 5, 5))).toEqual([0, 0, 0, 0, 1])
    expect(Array.from(overrideWeights({ mode: 'custom', weights: [1, 3] }, 0, 2, 3))).toEqual([0.25, 0.75])
    expect(() => overrideWeights({ mode: 'custom', weights: [1] }, 0, 2, 3)).toThrow('Hand-edited weights need 2 non-negative numbers, one per source token.')
    expect(() => overrideWeights({ mode: 'onehot', sourceIndex: 9 }, 0, 2, 3)).toThrow('The one-hot source position must be between 0 and 1.')
  })

  it('the no-attention model has nothing to override', async () => {
    await expect(service.whatIf(tiny('none'), { modelId: '', text: SENTENCE, steps: 'all', mode: 'uniform' })).rejects.toThrow(
      'This model has no attention to override.',
    )
  })
})

describe('several models at once, and batches', () => {
  it('runs the same source through the models with and without attention', async () => {
    const [none, att] = await service.compare([tiny('none'), tiny('bahdanau')], SENTENCE)
    expect(none.attention).toEqual([])
    expect(att.attention.length).toBe(att.tgtTokens.length)
  })

  it('a batch gives the same translations as one sentence at a time', async () => {
    const texts = ['A dog.', SENTENCE, 'Two women are walking down a busy street at night.']
    const batch = await service.translateBatch(tiny('local-p'), texts)
    for (let i = 0; i < texts.length; i++) {
      const one = await service.translate(tiny('local-p'), texts[i])
      expect(batch[i].tgtTokens).toEqual(one.tgtTokens)
      batch[i].attention.forEach((r, t) => r.forEach((w, s) => expect(w).toBeCloseTo(one.attention[t][s], 4)))
    }
  })
})
