import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Translation } from '../../../src/shared/api'
import { greedyBatch } from '../../../src/engine/decode'
import { BUNDLED_MODELS, ROOT } from '../../helpers'
import { ModelCache } from './model-cache'

/**
 * The greedy decoder after graph surgery (keys once per sentence, top-k in the graph, the whole
 * decode as one ONNX Loop) against the step-by-step reference: the same file opened `plain`, one
 * `session.run` per step and top-k over the full logits in JavaScript, with the same <unk> rule.
 */
const sources = readFileSync(join(ROOT, 'resources', 'testsets', 'en-fr.en'), 'utf8')
  .trim()
  .split('\n')
// Each file opened once per form for both tests below.
const models = new ModelCache()
afterAll(() => models.releaseAll())
const open = (name: string, plain: boolean) => models.open(join(BUNDLED_MODELS, `${name}.onnx`), { plain })

/** Differences between two decodes of the same sentences, as readable lines (empty = identical). */
function differences(ref: Translation[], got: Translation[], texts: string[]): { lines: string[]; maxAttention: number } {
  const lines: string[] = []
  let maxAttention = 0
  ref.forEach((r, i) => {
    const g = got[i]
    if (r.tgtTokens.join(' ') !== g.tgtTokens.join(' ')) {
      lines.push(`${texts[i]}\n  reference: ${r.tgtTokens.join(' ')}\n  loop:      ${g.tgtTokens.join(' ')}`)
      return
    }
    expect(g.attention.length).toBe(r.attention.length)
    r.attention.forEach((row, t) => {
      expect(g.attention[t].length).toBe(row.length)
      row.forEach((w, s) => (maxAttention = Math.max(maxAttention, Math.abs(w - g.attention[t][s]))))
    })
    r.tokenLogProbs.forEach((lp, t) => expect(Math.abs(lp - g.tokenLogProbs[t])).toBeLessThan(1e-4))
    r.positions?.forEach((p, t) => expect(Math.abs(p - g.positions![t])).toBeLessThan(1e-4))
  })
  return { lines, maxAttention }
}

describe.each(['en-fr-bahdanau', 'en-fr-local-p'])('%s: the greedy loop decodes the whole test set as the step-by-step decoder does', (name) => {
  it('1,000 sentences in length-sorted batches of 32: the same tokens, attention within 1e-5, no <unk>', async () => {
    const [reference, loop] = [await open(name, true), await open(name, false)]
    // The surgery really happened: otherwise both sides would be the same code.
    expect(reference.greedy).toBeNull()
    expect(reference.topKInGraph).toBe(false)
    expect(loop.surgeryNote).toBeNull()
    expect(loop.greedy).not.toBeNull()
    expect(loop.topKInGraph).toBe(true)
    expect(loop.keys.length).toBeGreaterThan(0)
    expect(sources).toHaveLength(1000)
    const order = sources.map((_, i) => i).sort((a, b) => sources[a].length - sources[b].length)
    const lines: string[] = []
    let maxAttention = 0
    let unknowns = 0
    for (let i = 0; i < order.length; i += 32) {
      const texts = order.slice(i, i + 32).map((j) => sources[j])
      const ref = await greedyBatch(reference, texts, { topK: 1, encoderStates: false })
      const got = await greedyBatch(loop, texts, { topK: 1, encoderStates: false })
      const d = differences(ref, got, texts)
      lines.push(...d.lines)
      maxAttention = Math.max(maxAttention, d.maxAttention)
      unknowns += got.filter((t) => t.tgtTokens.includes('<unk>') || t.text.includes('<unk>')).length
    }
    expect(lines).toEqual([])
    expect(maxAttention).toBeLessThan(1e-5)
    expect(unknowns).toBe(0)
  }, 300_000)

  it('one sentence at a time (the heatmap): the same tokens, alternatives and encoder states', async () => {
    const [reference, loop] = [await open(name, true), await open(name, false)]
    const texts = sources.filter((_, i) => i % 25 === 0)
    for (const text of texts) {
      const [ref] = await greedyBatch(reference, [text], { topK: 5 })
      const [got] = await greedyBatch(loop, [text], { topK: 5 })
      expect(differences([ref], [got], [text]).lines).toEqual([])
      got.alternatives.forEach((alts, t) => {
        expect(alts.map((a) => a.token)).toEqual(ref.alternatives[t].map((a) => a.token))
        // The graph's log-sum-exp over 4,851 logits is summed in float32, the reference's in float64.
        alts.forEach((a, j) => expect(Math.abs(a.p - ref.alternatives[t][j].p)).toBeLessThan(5e-5))
      })
      expect(got.encoderStates).toEqual(ref.encoderStates)
      expect(got.encoderStates.length).toBe(got.srcTokens.length)
    }
  }, 120_000)
})
