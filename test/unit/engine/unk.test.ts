import { afterAll, describe, expect, it } from 'vitest'
import { forcedDecode, greedyBatch, translate } from '../../../src/engine/decode'
import { LoadedModel } from '../../../src/engine/model'
import { InferenceService } from '../../../src/engine/service'
import { replaceUnknowns } from '../../../src/engine/unk-replace'
import { editedModel, tiny } from '../../helpers'

const SENTENCE = 'A man in a blue shirt is standing on a ladder.'
const UNK = 1

/** tiny-bahdanau with the <unk> logit raised by `boost`: unmasked, the argmax would be <unk> at every step. */
const boosted = (boost: number) =>
  editedModel(tiny('bahdanau'), (m) => {
    const b = m.graph!.initializer.find((t) => t.name === 'model.proj_bias')!
    const f = new Float32Array(Uint8Array.from(b.rawData).buffer)
    f[UNK] += boost
    b.rawData = new Uint8Array(f.buffer)
  })

const opened: LoadedModel[] = []
const service = new InferenceService()
afterAll(async () => {
  for (const m of opened) await m.release()
  await service.closeAll()
})
async function open(path: string, plain: boolean): Promise<LoadedModel> {
  const m = await LoadedModel.open(path, 'cpu', { plain })
  opened.push(m)
  return m
}

describe('decoding never emits <unk> (training/README.md, decoding rule 1)', () => {
  it.each([
    ['the greedy loop', false],
    ['the step-by-step decoder', true],
  ])('%s: raising the <unk> logit changes neither the tokens nor their renormalised log-probabilities', async (_, plain) => {
    const original = await open(tiny('bahdanau'), plain)
    const loud = await open(boosted(60), plain)
    expect(loud.greedy === null).toBe(plain)
    for (const opts of [{}, { beam: 4 }]) {
      const a = await translate(original, SENTENCE, opts)
      const b = await translate(loud, SENTENCE, opts)
      expect(b.tgtTokens).not.toContain('<unk>')
      expect(b.tgtTokens).toEqual(a.tgtTokens)
      b.tokenLogProbs.forEach((lp, t) => expect(Math.abs(lp - a.tokenLogProbs[t])).toBeLessThan(1e-4))
      // Alternatives never offer <unk>, and their probabilities are over the other tokens.
      for (const alts of b.alternatives) {
        expect(alts.map((x) => x.token)).not.toContain('<unk>')
        expect(alts.reduce((s, x) => s + x.p, 0)).toBeLessThanOrEqual(1 + 1e-5)
      }
    }
  })

  it('batches: no row of a greedy batch emits <unk> either', async () => {
    const loud = await open(boosted(60), false)
    const out = await greedyBatch(loud, ['A dog.', SENTENCE, 'Two women are walking down a busy street at night.'])
    for (const t of out) {
      expect(t.tgtTokens).not.toContain('<unk>')
      expect(t.replaced!.every((r) => r === null)).toBe(true)
    }
  })
})

describe('unknown-word replacement (rule 4)', () => {
  it('a forced target word the vocabulary lacks is replaced by the source word attended to most, and says so', async () => {
    const m = await open(tiny('bahdanau'), false)
    const f = await forcedDecode(m, SENTENCE, 'Un homme en chemise bleue est debout sur une zzzz.')
    const t = f.tgtUnknown!.indexOf(true)
    expect(t).toBeGreaterThan(0)
    const row = f.attention[t].slice(0, -1) // the final </s> is never copied
    const j = row.indexOf(Math.max(...row))
    expect(f.replaced![t]).toEqual({ source: f.srcTokens[j], sourceIndex: j, attention: f.attention[t][j] })
    expect(f.tgtTokens[t]).toBe(f.srcTokens[j])
    expect(f.text).not.toContain('<unk>')
    expect(f.text).toContain(f.srcTokens[j])
    expect(f.replaced!.filter(Boolean)).toHaveLength(1)
    expect(Number.isFinite(f.logProb)).toBe(true)
  })

  it('the no-attention model has nothing to copy: the word is left out of the text', async () => {
    const m = await open(tiny('none'), false)
    const f = await forcedDecode(m, SENTENCE, 'Un homme zzzz.')
    expect(f.tgtUnknown).toContain(true)
    expect(f.replaced!.every((r) => r === null)).toBe(true)
    expect(f.text).not.toContain('<unk>')
    expect(f.text).not.toContain('zzzz')
  })

  const word = { type: 'word', lowercase: true, joiner: '@@' } as const
  it('copies the whole source word: pieces joined, joiners dropped', () => {
    const src = ['a', 't@@', '-@@', 'shirt', '.', '</s>']
    const r = replaceUnknowns([false, true], [[], [0.1, 0.1, 0.6, 0.1, 0.1, 0]], src, word)
    expect(r).toEqual([null, { source: 't-shirt', sourceIndex: 2, attention: 0.6 }])
  })

  it('never copies the final </s>, and takes the first position on ties', () => {
    const src = ['un', 'deux', '</s>']
    expect(replaceUnknowns([true], [[0.2, 0.2, 0.6]], src, word)[0]).toEqual({ source: 'un', sourceIndex: 0, attention: 0.2 })
    expect(replaceUnknowns([true], [[0.1, 0.3, 0.6]], src, { type: 'char', lowercase: false })[0]!.source).toBe('deux')
    expect(replaceUnknowns([true], [], src, word)).toEqual([null])
  })
})
