import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkFile } from '../../../src/engine/check'
import { boardModel, goldSet } from '../../../src/engine/align/board'
import { corpusBleu } from '../../../src/engine/bleu'
import { greedyBatch } from '../../../src/engine/decode'
import { nodesFor, parseOnnx } from '../../../src/engine/onnx-graph'
import { type TokenizerSpec } from '../../../src/engine/tokenizer'
import { NO_REPEAT_GUARD } from '../../../src/shared/repeat-guard'
import { BUNDLED_MODELS, ROOT } from '../../helpers'
import { AttentionStats } from './attention-stats'
import { ModelCache } from './model-cache'

// Issue 14's zoo: seven en→fr kinds and three zh→en ones, one architecture (GRU encoder-decoder);
// a Transformer for each pair beside them.
const RNN = [
  'en-fr-none',
  'en-fr-bahdanau',
  'en-fr-luong-dot',
  'en-fr-luong-general',
  'en-fr-luong-concat',
  'en-fr-local-m',
  'en-fr-local-p',
  'zh-en-none',
  'zh-en-bahdanau',
  'zh-en-local-p',
]
/**
 * Issue 35's guided-alignment models, beside the unguided ones they were fine-tuned from: the
 * RNN's attention, and one head of the Transformer (layer 2 head 1, counted from 1), supervised by
 * the statistical aligner's links.
 */
const GUIDED = ['en-fr-luong-general-guided', 'en-fr-transformer-guided']
const EXPECTED = [...RNN, 'en-fr-transformer', 'zh-en-transformer', ...GUIDED]
const kindOf = (name: string) => name.replace(/^..-..-/, '').replace(/-guided$/, '')
/**
 * The local models on their bundled test set (greedy): the median per-sentence correlation
 * between p_t and the attention's centre of mass and the mean |p_t − centre|, as
 * training/attention_stats.py measured them (the same to four places; zh-en-local-p, D = 3 on ~8.5
 * jieba words, before p_t was guided to the diagonal while training: −0.387, its p_t at the sentence's
 * end). Issue 26's targets for en-fr-local-p (D = 3),
 * asserted below: correlation ≥ 0.9, distance ≤ 1.5 pieces (the D = 8 model before it: 0.85, 2.25; the D = 3
 * model fine-tuned from it: 0.92, 1.35; issue 26's D = 3 model with the diagonal guide: 0.9602, 0.91).
 * en-fr-local-p is now issue 35's: p_t supervised by the statistical aligner's links through all
 * of training (beam 5: 42.10 before; 45.88 after 8 epochs; 48.69 after 4 more at lr 1e-3).
 */
const LOCAL: Record<string, { correlation: number; distance: number }> = {
  'en-fr-local-p': { correlation: 0.9844, distance: 0.536 },
  'en-fr-local-m': { correlation: 0.9847, distance: 1.012 },
  'zh-en-local-p': { correlation: 0.8539, distance: 1.119 },
}
const FORECASTERS = ['taylor-none', 'taylor-luong-general', 'taylor-local-p']
const files = readdirSync(BUNDLED_MODELS).filter((f) => f.endsWith('.onnx'))
// Each model opened once for the file: opened per test (49 opens of 17 files), opening cost about
// a quarter of this file's CPU.
const models = new ModelCache()
const model = (name: string) => models.open(join(BUNDLED_MODELS, `${name}.onnx`))
afterAll(() => models.releaseAll())

describe('the bundled model zoo', () => {
  it('has seven English→French kinds, Chinese→English none, bahdanau and local-p, a Transformer for each pair, two guided models and three forecasters', () => {
    expect(files.map((f) => f.replace(/\.onnx$/, '')).sort()).toEqual([...EXPECTED, ...FORECASTERS].sort())
  })

  const size = (names: string[]) =>
    names.reduce((a, n) => a + statSync(join(BUNDLED_MODELS, `${n}.onnx`)).size + statSync(join(BUNDLED_MODELS, `${n}.md`)).size, 0)
  it("keeps issue 14's zoo (the RNN translators and the forecasters) under 90 MB, and everything bundled within issue 35's 110 MB", () => {
    expect(size([...RNN, ...FORECASTERS])).toBeLessThan(90 * 1024 * 1024)
    const total = readdirSync(BUNDLED_MODELS).reduce((a, f) => a + statSync(join(BUNDLED_MODELS, f)).size, 0)
    expect(total).toBeLessThanOrEqual(110e6)
  })

  it.each(EXPECTED)('%s: opens under the contract, carries its data, licence and test BLEU, and has a model card', async (name) => {
    const m = await model(name)
    expect(m.spec.name).toBe(name)
    expect(m.spec.attention).toBe(kindOf(name))
    expect(m.spec.trainingData).toMatch(name.startsWith('en-fr') ? /Multi30K/ : /Tatoeba/)
    expect(m.spec.licence.length).toBeGreaterThan(10)
    expect(m.spec.testScore!.bleu).toBeGreaterThan(0)
    expect(m.spec.testScore!.by_length.length).toBeGreaterThan(2)
    const card = join(BUNDLED_MODELS, `${name}.md`)
    expect(existsSync(card)).toBe(true)
    expect(readFileSync(card, 'utf8')).toContain(String(m.spec.testScore!.bleu))
  })

  // The check a user's file gets (attention-lens check): a bundled model must have every feature
  // (a local model that never reads </s> once zeroed its Gaussian there and lost the Local tab).
  it.each([...EXPECTED, ...FORECASTERS])('%s: passes the contract check with every feature', async (name) => {
    const r = await checkFile(join(BUNDLED_MODELS, `${name}.onnx`))
    expect(r.fatal).toEqual([])
    expect(r.findings.map((f) => `${f.level}: ${f.message}`)).toEqual([])
  })

  it.each([...RNN, 'en-fr-luong-general-guided'])(
    '%s: the decoder cell is one ONNX GRU node in the step part (training/attention_lens/export.py), not a dozen element-wise nodes',
    (name) => {
      const graph = parseOnnx(readFileSync(join(BUNDLED_MODELS, `${name}.onnx`))).model.graph!
      const step = nodesFor(graph, ['next_state']).nodes
      const encoder = nodesFor(graph, ['encoder_out', 'decoder_init']).nodes
      const stepGru = [...step].filter((i) => graph.node[i].opType === 'GRU' && !encoder.has(i))
      expect(stepGru).toHaveLength(1)
      // The Sigmoid/Tanh of a hand-built cell would still be there if the export fell back to it.
      expect([...step].filter((i) => !encoder.has(i) && graph.node[i].opType === 'Sigmoid').length).toBeLessThanOrEqual(name.endsWith('local-p') ? 1 : 0)
    },
  )

  it.each(EXPECTED)(
    "%s: greedy on its whole bundled test set writes no <unk> (training/README.md, decoding rule 1), puts at most 5 % of a step's attention on the source </s>, and a local model's p_t follows its attention",
    async (name) => {
      const m = await model(name)
      const sources = readFileSync(join(ROOT, 'resources/testsets', name.startsWith('zh-en') ? 'zh-en.zh' : 'en-fr.en'), 'utf8')
        .trim()
        .split('\n')
      expect(sources).toHaveLength(1000)
      const order = sources.map((_, i) => i).sort((a, b) => sources[a].length - sources[b].length)
      const hyps = new Array<string>(sources.length)
      const inWindow = { positions: 0, steps: 0, srcLength: 0, sentences: 0 }
      const withUnk: string[] = []
      const stats = new AttentionStats()
      let decoded = 0
      for (let i = 0; i < order.length; i += 32) {
        const texts = order.slice(i, i + 32).map((j) => sources[j])
        // The model's own outputs (guards off), which its card and training measured.
        const out = await greedyBatch(m, texts, { topK: 1, encoderStates: false, crossAttention: false, guard: NO_REPEAT_GUARD })
        decoded += out.length
        out.forEach((t, k) => {
          hyps[order[i + k]] = t.text
          for (const [first, last] of t.windows ?? []) {
            inWindow.positions += last - first + 1
            inWindow.steps++
          }
          inWindow.srcLength += t.srcTokens.length
          inWindow.sentences++
          if (t.tgtTokens.includes('<unk>') || t.text.includes('<unk>')) withUnk.push(`${texts[k]} → ${t.text}`)
          stats.add(t)
        })
      }
      expect(decoded).toBe(1000)
      expect(withUnk).toEqual([])
      // The card's greedy BLEU, measured again here from the file (a model that regresses fails).
      const refs = readFileSync(join(ROOT, 'resources/testsets', name.startsWith('zh-en') ? 'zh-en.en' : 'en-fr.fr'), 'utf8')
        .trim()
        .split('\n')
      expect(corpusBleu(hyps, [refs], { lowercase: true }).score).toBeCloseTo(m.spec.testScore!.bleu, 1)
      if (name.endsWith('-none')) return
      // Issue 26: the source </s> is no attention sink (the steps before the last).
      expect(stats.eosMass).toBeLessThanOrEqual(0.05)
      const local = LOCAL[name]
      if (local) {
        expect(stats.medianCorrelation).toBeCloseTo(local.correlation, 3)
        expect(stats.meanDistance).toBeCloseTo(local.distance, 2)
      }
      if (name === 'en-fr-local-p') {
        expect(stats.medianCorrelation).toBeGreaterThanOrEqual(0.9)
        expect(stats.meanDistance).toBeLessThanOrEqual(1.5)
        // Issue 35: still visibly local: the positions inside the window (clipped at the sentence's
        // ends) under half a sentence, mean against mean, as the card measures it (37 %).
        expect(inWindow.positions / inWindow.steps / (inWindow.srcLength / inWindow.sentences)).toBeLessThan(0.5)
      }
    },
    120_000,
  )

  // Issue 35: AER on the Hansards gold's dev half (pairs 1–100, as training/aer_dev.sh and the
  // Alignment score tab read it: argmax per target word). Hansards is parliament text these caption
  // models never saw; the targets (≤ 45) are missed, and these pins keep what was reached.
  describe('guided alignment on the Hansards dev half', () => {
    const gold = join(ROOT, '..', 'shared', 'datasets', 'alignment-gold')
    const dev = () => {
      const set = goldSet(readFileSync(join(gold, 'enfr.src-tgt'), 'utf8'), readFileSync(join(gold, 'enfr.gold'), 'utf8'), {
        pairs: 'enfr.src-tgt',
        gold: 'enfr.gold',
      })
      return { pairs: set.pairs.slice(0, 100), gold: set.gold.slice(0, 100) }
    }
    const board = async (name: string) => {
      const m = await model(name)
      const { pairs, gold: links } = dev()
      return boardModel(m, pairs, links)
    }

    it('the guided RNN aligns better than the same architecture unguided', async () => {
      const [guided, plain] = [await board('en-fr-luong-general-guided'), await board('en-fr-luong-general')]
      expect(guided.score.aer).toBeCloseTo(56.45, 1)
      expect(guided.score.aer).toBeLessThan(plain.score.aer - 0.5)
    }, 120_000)

    it("the Transformer's guided head (2:1) is the head that aligns best, as the Alignment score tab finds it", async () => {
      const { heads } = await board('en-fr-transformer-guided')
      const flat = heads!.aer.flatMap((row, l) => row.map((aer, h) => ({ l, h, aer })))
      const best = flat.reduce((a, b) => (b.aer < a.aer ? b : a))
      expect([best.l + 1, best.h + 1]).toEqual([2, 1])
      expect(best.aer).toBeCloseTo(57.87, 1)
      const { heads: plain } = await board('en-fr-transformer')
      expect(best.aer).toBeLessThan(Math.min(...plain!.aer.flat()) - 5)
    }, 120_000)
  })

  it.each(FORECASTERS)('%s: a forecaster with its data, licence, held-out MAE/MAPE next to the seasonal naive, and a card', async (name) => {
    const m = await model(name)
    expect(m.spec.task).toBe('forecasting')
    expect(m.spec.attention).toBe(name.replace(/^taylor-/, ''))
    expect(m.spec.trainingData).toMatch(/Taylor/)
    const score = m.spec.forecastScore!
    expect(score.origins).toBe(625)
    expect(score.seasonal_naive.mae).toBe(490.1)
    const card = readFileSync(join(BUNDLED_MODELS, `${name}.md`), 'utf8')
    const [, mae, mape] = /\*\*MAE ([\d.]+) MW, MAPE ([\d.]+) %\*\*/.exec(card) ?? []
    expect([Number(mae), Number(mape)]).toEqual([score.mae, score.mape])
  })

  it('every bundled translation model tokenizes with the spec and vocabulary of the Python test vectors (bpe-tokenizer-vectors.json)', async () => {
    // tokenizer.test.ts checks the TypeScript tokenizer against these vectors (tokens and ids);
    // this pins that those ids are the bundled models' ids: same spec, same vocabulary.
    interface Vectors {
      specs: Record<string, { spec: TokenizerSpec; vocab: string[] | null }>
    }
    const { specs } = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/bpe-tokenizer-vectors.json'), 'utf8')) as Vectors
    // The parsed spec fills in defaults (capitalize: false, …); the vector's fields must all match.
    const sameSpec = (parsed: TokenizerSpec, vector: TokenizerSpec) =>
      Object.entries(vector).every(([k, v]) => JSON.stringify((parsed as unknown as Record<string, unknown>)[k]) === JSON.stringify(v))
    let checked = 0
    for (const name of EXPECTED) {
      const m = await model(name)
      const pair = name.slice(0, 5)
      for (const side of ['src', 'tgt'] as const) {
        const v = specs[`${pair}/${side}`]
        expect(v, `${pair}/${side}`).toBeDefined()
        expect(sameSpec(side === 'src' ? m.spec.srcTokenizer : m.spec.tgtTokenizer, v.spec), `${name} ${side} spec`).toBe(true)
        expect(side === 'src' ? m.spec.srcVocab : m.spec.tgtVocab, `${name} ${side} vocabulary`).toEqual(v.vocab)
        checked++
      }
    }
    expect(checked).toBe(2 * EXPECTED.length)
  })
})
