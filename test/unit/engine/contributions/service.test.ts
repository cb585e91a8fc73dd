import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../../../src/engine/service'
import { CONTRIBUTIONS_NOT_OFFERED, methodResult, transformerResult } from '../../../../src/shared/contributions'
import { LensError } from '../../../../src/shared/errors'
import { BUNDLED_MODELS, ROOT } from '../../../helpers'

/** The app's route into the contribution methods (InferenceService.contributions), on the bundled models. */
const TRANSFORMER = join(BUNDLED_MODELS, 'en-fr-transformer.onnx')
const SENTENCE = 'A man in an orange hat is looking at a dog.'

const service = new InferenceService()
afterAll(() => service.closeAll())

describe('InferenceService.contributions', () => {
  it("greedy: the raw weights are the translation's cross-attention; the pieces forced through give the same numbers", async () => {
    const t = await service.translate(TRANSFORMER, SENTENCE, { noRepeatNgram: 0, maxRepeat: 0, encoderStates: false })
    const g = transformerResult(await service.contributions(TRANSFORMER, { text: SENTENCE }))
    expect(g.forced).toBe(false)
    expect(g.tgtTokens).toEqual(t.tgtTokens)
    expect(g.srcTokens).toHaveLength(t.srcTokens.length)
    // The mean over layers and heads of the tapped pass is what the heatmap shows for the same output.
    g.raw.forEach((row, r) => row.forEach((w, s) => expect(Math.abs(w - t.attention[r][s])).toBeLessThan(1e-4)))
    const f = transformerResult(await service.contributions(TRANSFORMER, { text: SENTENCE, pieces: t.tgtTokens }))
    expect(f.forced).toBe(true)
    expect(f.tgtTokens).toEqual(g.tgtTokens)
    const [a, b] = [methodResult(g, 'alti+'), methodResult(f, 'alti+')]
    a.sourceShare.forEach((s, r) => expect(Math.abs(s - b.sourceShare[r])).toBeLessThan(1e-5))
    // ALTI+ rows, source and prefix together, sum to 1; the share lies in [0, 1].
    g.altiPlus.source.forEach((row, r) => {
      const sum = row.reduce((x, y) => x + y, 0) + g.altiPlus.target[r].reduce((x, y) => x + y, 0)
      expect(Math.abs(sum - 1)).toBeLessThan(1e-4)
    })
    expect(g.seconds.run).toBeGreaterThan(0)
  }, 120_000)

  it('forced pieces without </s> get it added; another output than the greedy one is attributed as given', async () => {
    const pieces = ['un', 'chien', '.']
    const f = await service.contributions(TRANSFORMER, { text: SENTENCE, pieces })
    expect(f.tgtTokens).toEqual([...pieces, '</s>'])
    expect(f.prefixTokens).toEqual(['<s>', ...pieces])
  }, 120_000)

  it("an RNN with attention answers the context-norm analogue: the translation's weights as the raw map, the Transformer methods not applicable", async () => {
    const BAHDANAU = join(BUNDLED_MODELS, 'en-fr-bahdanau.onnx')
    const t = await service.translate(BAHDANAU, SENTENCE, { noRepeatNgram: 0, maxRepeat: 0, encoderStates: false })
    const g = await service.contributions(BAHDANAU, { text: SENTENCE, pieces: t.tgtTokens })
    if (g.method !== 'context-norm') throw new Error(`answered ${g.method}`)
    expect(g.forced).toBe(true)
    expect(g.tgtTokens).toEqual([...t.tgtTokens.filter((p) => p !== '</s>'), '</s>'])
    expect(g.layer.parts.map((p) => p.role)).toEqual(['state', 'context', 'embedding'])
    g.raw.forEach((row, r) => row.forEach((w, s) => expect(Math.abs(w - t.attention[r][s])).toBeLessThan(1e-4)))
    g.sourceShare.forEach((s, r) => expect(s).toBeCloseTo(g.norms[r][1] / (g.norms[r][0] + g.norms[r][1] + g.norms[r][2]), 9))
    expect(Object.keys(g.notApplicable).sort()).toEqual(['alti', 'alti+', 'norm', 'rollout'])
  }, 120_000)

  it('an RNN without attention is refused with ContributionsNotOfferedError, saying what its graph lacks', async () => {
    const e = await service.contributions(join(BUNDLED_MODELS, 'en-fr-none.onnx'), { text: SENTENCE }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(LensError)
    expect((e as LensError).code).toBe(CONTRIBUTIONS_NOT_OFFERED)
    expect((e as LensError).message).toMatch(/is an RNN \(no attention\).*no "attention" output.*need a Transformer/)
  }, 120_000)

  it('a Hugging Face folder (post-norm Marian, merged decoder) is attributed: greedy, every method, raw weights its cross-attention', async () => {
    const g = transformerResult(await service.contributions(join(ROOT, 'test/fixtures/hf/marian'), { text: SENTENCE }))
    expect(g.forced).toBe(false)
    expect(g.tgtTokens[g.tgtTokens.length - 1]).toBe('</s>')
    expect(g.layers).toEqual({ encoder: 3, decoder: 3, heads: 4 })
    g.altiPlus.source.forEach((row, r) => {
      const sum = row.reduce((x, y) => x + y, 0) + g.altiPlus.target[r].reduce((x, y) => x + y, 0)
      expect(Math.abs(sum - 1)).toBeLessThan(1e-4)
    })
    g.raw.forEach((row) => expect(Math.abs(row.reduce((x, y) => x + y, 0) - 1)).toBeLessThan(1e-4))
    const f = transformerResult(await service.contributions(join(ROOT, 'test/fixtures/hf/marian'), { text: SENTENCE, pieces: g.tgtTokens }))
    expect(f.forced).toBe(true)
    methodResult(f, 'alti+').sourceShare.forEach((s, r) => expect(Math.abs(s - g.altiPlus.sourceShare[r])).toBeLessThan(1e-5))
  }, 120_000)
})
