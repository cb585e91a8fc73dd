/**
 * The contribution methods as aligners (issue 41: "every method is an entry in the Alignment score
 * tab and in `align --method`"): `--method` reads a method and an extraction; the gold pairs go
 * through the tapped forward pass of src/engine/align/contributions.ts (bench/contributions-aer.ts's
 * path), each method's matrix read as the weights are; the scoreboard's rows for a bundled
 * Transformer carry each method's links and AER at both steps.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAlignMethod } from '../../../../src/cli/align'
import { pairAttentions, wordMatrix, type PairAttention } from '../../../../src/engine/align/attention'
import { boardContributions, goldSet, scored } from '../../../../src/engine/align/board'
import { ALIGN_CONTRIBUTIONS, methodAttentions, visitPairContributions } from '../../../../src/engine/align/contributions'
import { extractLinks } from '../../../../src/engine/align/extract'
import { ContributionModel, openAttributor } from '../../../../src/engine/contributions'
import { LoadedModel } from '../../../../src/engine/model'
import type { ContributionMethod } from '../../../../src/shared/contributions'
import { methodResult } from '../../../../src/shared/contributions'
import { BUNDLED_MODELS, ROOT } from '../../../helpers'

const MODEL = join(BUNDLED_MODELS, 'en-fr-transformer.onnx')
// The first 20 pairs of the Hansards gold the Alignment score tab and the bench use (the tiny fixture where the datasets are absent).
const GOLD = join(ROOT, '..', 'shared', 'datasets', 'alignment-gold')
const FIX = join(ROOT, 'test', 'fixtures', 'align')
const [pairsText, goldText] = existsSync(join(GOLD, 'enfr.gold'))
  ? [join(GOLD, 'enfr.src-tgt'), join(GOLD, 'enfr.gold')].map((f) => readFileSync(f, 'utf8').split('\n').slice(0, 20).join('\n') + '\n')
  : [join(FIX, 'tiny.src-tgt'), join(FIX, 'tiny.gold')].map((f) => readFileSync(f, 'utf8'))
const { pairs, gold } = goldSet(pairsText, goldText, { pairs: 'enfr.src-tgt', gold: 'enfr.gold' })

describe('align --method', () => {
  it('reads a contribution method, an extraction, or both with a comma', () => {
    expect(parseAlignMethod('argmax')).toEqual({ extract: { kind: 'argmax' }, contribution: null })
    expect(parseAlignMethod('threshold=0.3')).toEqual({ extract: { kind: 'threshold', value: 0.3 }, contribution: null })
    expect(parseAlignMethod('alti+')).toEqual({ extract: { kind: 'argmax' }, contribution: 'alti+' })
    expect(parseAlignMethod('rollout,threshold=0.2')).toEqual({ extract: { kind: 'threshold', value: 0.2 }, contribution: 'rollout' })
    expect(parseAlignMethod('weights,argmax')).toEqual({ extract: { kind: 'argmax' }, contribution: null })
    for (const bad of ['alti++', 'norm,alti', 'argmax,argmax', 'threshold=2', 'weights,norm', '']) expect(parseAlignMethod(bad), bad).toBeNull()
  })
})

describe('the contribution methods on gold pairs (bundled en→fr Transformer)', () => {
  let model: ContributionModel
  let by: Map<ContributionMethod, PairAttention[]>
  beforeAll(async () => {
    model = await ContributionModel.open(MODEL)
    by = await methodAttentions(model, pairs, ALIGN_CONTRIBUTIONS)
  }, 300_000)
  afterAll(() => model?.release())

  it("each method's matrix is the tapped pass's, over the gold's own pieces, one row per forced step", async () => {
    const seen: { rows: number[][]; norm: number[][] }[] = []
    await visitPairContributions(model, pairs.slice(0, 2), (p) =>
      seen.push({ rows: p.pass.dec[0].cross[0].map((r) => Array.from(r)), norm: methodResult(p.contributions, 'norm').matrix }),
    )
    for (const [n, s] of seen.entries()) {
      const pa = by.get('norm')![n]
      expect(pa.rows).toEqual(s.norm)
      expect(pa.rows).toHaveLength(s.rows.length)
      // Every gold word has its pieces among the rows (the target fits the model's step limit).
      expect(pa.tgtSpans.at(-1)![1]).toBeLessThan(pa.rows.length)
    }
  })

  it('the scoreboard rows: every method, its links at the usual step scored against the gold, its AER at the shifted step', async () => {
    const rows = (await boardContributions(MODEL, 'transformer', pairs, gold))!
    expect(rows.map((r) => r.method)).toEqual([...ALIGN_CONTRIBUTIONS])
    const report: string[] = []
    for (const r of rows) {
      const ps = by.get(r.method)!
      const usual = scored(
        gold,
        ps.map((p) => extractLinks(wordMatrix(p))),
      )
      expect(r.score.aer).toBeCloseTo(usual.score.aer, 10)
      expect(r.links).toEqual(usual.links)
      expect(r.sentenceAer).toHaveLength(pairs.length)
      const shifted = scored(
        gold,
        ps.map((p) => extractLinks(wordMatrix(p, { shifted: true }))),
      ).score
      expect(r.shifted.aer).toBeCloseTo(shifted.aer, 10)
      for (const a of [r.score.aer, r.shifted.aer]) expect(a).toBeGreaterThanOrEqual(0)
      report.push(`${r.method}: AER ${r.score.aer.toFixed(2)} (shifted ${r.shifted.aer.toFixed(2)})`)
    }
    console.log(`${pairs.length} en-fr gold pairs: ${report.join('; ')}`)
    // An RNN has no contribution rows.
    expect(await boardContributions(join(BUNDLED_MODELS, 'en-fr-bahdanau.onnx'), 'bahdanau', pairs, gold)).toBeNull()
  }, 300_000)
})

describe('the contribution methods on gold pairs: Hugging Face folders, their own tokens left out', () => {
  // Marian: `</s>` alone after the source; M2M100: a language code before the source and a forced first target token.
  const HF = join(ROOT, 'test', 'fixtures', 'hf')
  const hfPairs = [
    { src: ['the', 'cat', 'sat', 'on', 'the', 'mat'], tgt: ['le', 'chat', 'est', 'assis'] },
    { src: ['a', 'dog', 'runs'], tgt: ['un', 'chien', 'court'] },
  ]
  it.each(['marian', 'm2m100'])(
    '%s: every layer and head of the tapped pass, cut to the gold pieces, is the weights path’s cross-attention for the same pair',
    async (name) => {
      const folder = join(HF, name)
      const cm = await openAttributor(folder)
      const lm = await LoadedModel.open(folder)
      try {
        const weights = await pairAttentions(lm, hfPairs)
        const seen: number[][][][][] = []
        await visitPairContributions(cm, hfPairs, (p) => seen.push(p.pass.dec.map((l) => l.cross.map((h) => p.gold(h.map((r) => Array.from(r)))))))
        for (const [n, w] of weights.entries()) {
          // [step][layer][head][source] against [layer][head][step][source], over the gold's pieces and `</s>`.
          const mine = seen[n]
          expect(mine[0][0]).toHaveLength(w.rows.length)
          expect(mine[0][0][0]).toHaveLength(w.rows[0].length)
          for (let t = 0; t < w.rows.length; t++)
            for (let l = 0; l < mine.length; l++)
              for (let h = 0; h < mine[l].length; h++) for (let j = 0; j < w.rows[t].length; j++) expect(mine[l][h][t][j]).toBeCloseTo(w.cross![t][l][h][j], 4)
        }
        const by = await methodAttentions(cm, hfPairs, ['alti+'])
        for (const pa of by.get('alti+')!) expect(pa.rows.length).toBeGreaterThan(pa.tgtSpans.at(-1)![1])
      } finally {
        await cm.release()
        await lm.release()
      }
    },
    120_000,
  )
})
