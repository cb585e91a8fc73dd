import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContributionModel, type Tapped } from '../../../../src/engine/contributions'
import { CONTRIBUTION_METHODS, methodResult, type Contributions } from '../../../../src/shared/contributions'
import { ROOT } from '../../../helpers'

/**
 * The contribution methods (issue 41) against training/contributions_reference.py, an
 * independent PyTorch implementation (forward hooks on the training code's modules, the
 * papers' equations), on the bundled Transformers and the first 20 sentences of their test sets
 * (test/fixtures/contributions/<model>.json.gz; zh→en's source ids come from the app's jieba
 * tokenizer, <model>.src-ids.jsonl, as the Python here has no jieba).
 */
interface Combined {
  source: number[][]
  target: number[][]
  sourceShare: number[]
}
interface Case {
  source: string
  src_tokens: string[]
  src_ids: number[]
  tgt_ids: number[]
  tgt_tokens: string[]
  encoder: { alti: number[][][] }
  decoder: { self_alti: number[][][]; cross_alti: number[][][]; cross_norms: number[][][][]; cross_norm_total: number[][][] }
  alti_plus: Combined
  rollout: Combined
  norm_source_share: number[]
  no_residual: { encoder_alti: number[][][]; cross_alti: number[][][]; alti_plus_source: number[][]; alti_plus_target: number[][] }
}

const fixture = (name: string) =>
  JSON.parse(gunzipSync(readFileSync(join(ROOT, `test/fixtures/contributions/${name}.json.gz`))).toString('utf8')) as { cases: Case[] }
const TOL = 1e-4

/** The largest absolute difference between two nested arrays of the same shape (Infinity where the shapes differ). */
function maxDiff(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b)
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return Infinity
  return a.reduce((m: number, x, i) => Math.max(m, maxDiff(x, b[i])), 0)
}

describe.each(['en-fr-transformer', 'en-fr-transformer-guided', 'zh-en-transformer'])('contributions on %s against the PyTorch reference', (name) => {
  const FIXTURE = fixture(name)
  let model: ContributionModel
  const ran: { c: Case; tapped: Tapped; got: Contributions }[] = []

  beforeAll(async () => {
    model = await ContributionModel.open(join(ROOT, `resources/models/${name}.onnx`))
    for (const c of FIXTURE.cases) {
      const tapped = await model.run(c.src_ids, [...c.tgt_ids, model.spec.special.eos])
      ran.push({ c, tapped, got: model.contributions(tapped) })
    }
  }, 120_000)
  afterAll(async () => {
    await model?.release()
  })

  it('has 20 sentences, and the app tokenizes them to the reference ids and decodes them greedily to its output', async () => {
    expect(FIXTURE.cases).toHaveLength(20)
    for (const c of FIXTURE.cases.slice(0, 5)) {
      expect(model.encodeSource(c.source).ids).toEqual(c.src_ids)
      const greedy = await model.run(c.src_ids, null)
      expect(greedy.tgtIds).toEqual([...c.tgt_ids, model.spec.special.eos])
    }
  })

  it('ALTI of every encoder, decoder self- and cross-attention layer equals the reference within 1e-4', () => {
    for (const { c, got } of ran) {
      expect(maxDiff(got.encoderAlti, c.encoder.alti)).toBeLessThan(TOL)
      expect(maxDiff(got.selfAlti, c.decoder.self_alti)).toBeLessThan(TOL)
      expect(maxDiff(got.crossAlti, c.decoder.cross_alti)).toBeLessThan(TOL)
    }
  })

  it('value-weighted norms, per head and per layer, equal the reference within 1e-4', () => {
    for (const { c, got } of ran) {
      expect(maxDiff(got.crossNorms, c.decoder.cross_norms)).toBeLessThan(TOL)
      expect(maxDiff(got.crossNormTotal, c.decoder.cross_norm_total)).toBeLessThan(TOL)
      expect(maxDiff(got.normSourceShare, c.norm_source_share)).toBeLessThan(TOL)
    }
  })

  it('ALTI+ and rollout equal the reference within 1e-4', () => {
    for (const { c, got } of ran) {
      for (const [mine, theirs] of [
        [got.altiPlus, c.alti_plus],
        [got.rollout, c.rollout],
      ] as const) {
        expect(maxDiff(mine.source, theirs.source)).toBeLessThan(TOL)
        expect(maxDiff(mine.target, theirs.target)).toBeLessThan(TOL)
        expect(maxDiff(mine.sourceShare, theirs.sourceShare)).toBeLessThan(TOL)
      }
    }
  })

  it('every ALTI+ row sums to 1, its source share lies in [0, 1], and it reads no future target piece', () => {
    for (const { got } of ran) {
      const T = got.tgtTokens.length
      for (let t = 0; t < T; t++) {
        const sum = got.altiPlus.source[t].reduce((a, b) => a + b, 0) + got.altiPlus.target[t].reduce((a, b) => a + b, 0)
        expect(Math.abs(sum - 1)).toBeLessThan(1e-9)
        expect(got.altiPlus.sourceShare[t]).toBeGreaterThanOrEqual(0)
        expect(got.altiPlus.sourceShare[t]).toBeLessThanOrEqual(1)
        for (let s = t + 1; s < T; s++) expect(got.altiPlus.target[t][s]).toBe(0)
      }
    }
  })

  it('fails without the residual or without the layer norm: each omission moves the results far past 1e-4', () => {
    let noResidual = 0
    let noNorm = 0
    for (const { c, tapped } of ran) {
      const nr = model.contributions(tapped, { residual: false, layerNorm: true })
      // the omission the reference computed too: the app agrees with it...
      expect(maxDiff(nr.encoderAlti, c.no_residual.encoder_alti)).toBeLessThan(TOL)
      expect(maxDiff(nr.crossAlti, c.no_residual.cross_alti)).toBeLessThan(TOL)
      expect(maxDiff(nr.altiPlus.source, c.no_residual.alti_plus_source)).toBeLessThan(TOL)
      // ...and it is not the method
      noResidual = Math.max(noResidual, maxDiff(nr.altiPlus.source, c.alti_plus.source), maxDiff(nr.encoderAlti, c.encoder.alti))
      const nn = model.contributions(tapped, { residual: true, layerNorm: false })
      noNorm = Math.max(noNorm, maxDiff(nn.encoderAlti, c.encoder.alti), maxDiff(nn.altiPlus.source, c.alti_plus.source))
    }
    expect(noResidual).toBeGreaterThan(0.05)
    expect(noNorm).toBeGreaterThan(0.01)
  })

  it('methodResult gives every method a [target][source] matrix and a source share per output piece', () => {
    const { got } = ran[0]
    for (const m of CONTRIBUTION_METHODS) {
      const r = methodResult(got, m)
      expect(r.matrix).toHaveLength(got.tgtTokens.length)
      expect(r.matrix[0]).toHaveLength(got.srcTokens.length)
      expect(r.sourceShare).toHaveLength(got.tgtTokens.length)
      for (const s of r.sourceShare) expect(s >= 0 && s <= 1).toBe(true)
    }
  })
})
