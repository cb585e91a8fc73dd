import { afterAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { tiny } from '../../helpers'

// What-if under beam search: its "original" is the translation on show (the beam's), and the
// override goes to every hypothesis of the same beam.
const service = new InferenceService()
afterAll(() => service.closeAll())
const SENTENCES = [
  'A man in a blue shirt is standing on a ladder.',
  'Two young girls are playing in the sand near the water.',
  'A little girl in a pink dress is running on the beach.',
  'A group of people stand in front of an igloo.',
  'A dog runs through the grass with a ball in its mouth.',
]

describe('what-if with a beam', () => {
  for (const kind of ['bahdanau', 'transformer']) {
    it(`${kind}: "original" is the beam-3 translation, not the greedy one`, async () => {
      let differs = 0
      for (const text of SENTENCES) {
        const greedy = await service.translate(tiny(kind), text)
        const beam = await service.translate(tiny(kind), text, { beam: 3 })
        if (beam.text !== greedy.text) differs++
        const r = await service.whatIf(tiny(kind), { modelId: '', text, steps: [1], mode: 'uniform', beam: 3 })
        expect(r.original.text).toBe(beam.text)
        expect(r.original.tgtTokens).toEqual(beam.tgtTokens)
        expect(r.modified.beam).toBe(3)
      }
      // At least one sentence where the two decodings part, or the test would say nothing.
      expect(differs).toBeGreaterThan(0)
    })
  }

  it('refuses a beam outside 1–16', async () => {
    await expect(service.whatIf(tiny('bahdanau'), { modelId: '', text: SENTENCES[0], steps: 'all', mode: 'uniform', beam: 17 })).rejects.toThrow(/beam size/)
  })
})
