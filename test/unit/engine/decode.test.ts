import { afterAll, describe, expect, it } from 'vitest'
import { maxTargetLength } from '../../../src/engine/decode'
import { InferenceService } from '../../../src/engine/service'
import { editedModel, tiny } from '../../helpers'

const service = new InferenceService()
afterAll(() => service.closeAll())
const SENTENCE = 'Two dogs are playing in the snow near a red fence.'

describe('greedy decoding with attention capture', () => {
  it('returns one attention row per output token and one column per source token', async () => {
    const t = await service.translate(tiny('bahdanau'), SENTENCE)
    expect(t.srcTokens).toEqual(['two', 'dogs', 'are', 'playing', 'in', 'the', 'snow', 'near', 'a', 'red', 'fence', '.', '</s>'])
    expect(t.tgtTokens.length).toBeGreaterThan(0)
    expect(t.attention).toHaveLength(t.tgtTokens.length)
    expect(t.scores).toHaveLength(t.tgtTokens.length)
    expect(t.tokenLogProbs).toHaveLength(t.tgtTokens.length)
    for (const row of t.attention) {
      expect(row).toHaveLength(t.srcTokens.length)
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4)
    }
    for (const lp of t.tokenLogProbs) expect(lp).toBeLessThanOrEqual(0)
    expect(t.positions).toBeNull()
    expect(t.text.length).toBeGreaterThan(0)
  })

  it('local-p returns p_t inside the sentence, windows of width 2D and zero weight outside them', async () => {
    const t = await service.translate(tiny('local-p'), SENTENCE)
    const S = t.srcTokens.length
    expect(t.positions).toHaveLength(t.tgtTokens.length)
    t.positions!.forEach((p, i) => {
      expect(p).toBeGreaterThanOrEqual(0)
      expect(p).toBeLessThanOrEqual(S)
      const [lo, hi] = t.windows![i]
      expect(hi - lo).toBeCloseTo(8, 5)
      t.attention[i].forEach((w, s) => {
        if (s < lo - 1e-6 || s > hi + 1e-6) expect(w).toBe(0)
        // The final weight is the in-window softmax times the Gaussian, so it never exceeds the Gaussian.
        expect(w).toBeLessThanOrEqual(t.gaussian![i][s] + 1e-6)
      })
      const g = t.gaussian![i]
      const expected = Math.exp(-((Math.round(p) - p) ** 2) / (2 * 2 * 2))
      expect(g[Math.round(p)]).toBeCloseTo(expected, 5)
    })
  })

  it('the no-attention model decodes with no attention matrix', async () => {
    const t = await service.translate(tiny('none'), SENTENCE)
    expect(t.attention).toEqual([])
    expect(t.tgtTokens.at(-1)).toBe('</s>')
  })

  it('marks words the vocabulary lacks and handles empty input', async () => {
    const t = await service.translate(tiny('bahdanau'), 'The zyzzyva slept.')
    expect(t.srcUnknown).toEqual([false, true, expect.any(Boolean), false, false])
    const e = await service.translate(tiny('bahdanau'), '')
    expect(e.srcTokens).toEqual(['</s>'])
  })

  it('stops at the length limit when the decoder never emits end-of-sentence', async () => {
    // The output bias of </s> pushed to -1e9: this decoder can never end a sentence.
    const endless = editedModel(tiny('bahdanau'), (m) => {
      const b = m.graph!.initializer.find((t) => t.name === 'model.proj_bias')!
      const f = new Float32Array(Uint8Array.from(b.rawData).buffer)
      f[3] = -1e9
      b.rawData = new Uint8Array(f.buffer)
    })
    const t = await service.translate(endless, 'A dog runs.')
    expect(t.tgtTokens).toHaveLength(maxTargetLength(t.srcTokens.length))
    expect(t.tgtTokens).not.toContain('</s>')
  })
})
