import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { buildContextWeightsOption, contextNormView } from '../../../../src/shared/charts/context-norm'
import { wordSpans } from '../../../../src/shared/attention/words'
import { ROOT } from '../../../helpers'

/** The RNN Contributions tab's builders on the reference's numbers (training/contributions_reference_rnn.py). */
interface Case {
  tgt_tokens: string[]
  src_ids: number[]
  source_share: number[]
  weights: number[][]
}
const cases = (
  JSON.parse(gunzipSync(readFileSync(join(ROOT, 'test/fixtures/contributions/rnn-context-norm.json.gz'))).toString('utf8')) as {
    models: Record<string, { cases: Case[] }>
  }
).models['en-fr-bahdanau'].cases

// The fixture has ids, not source pieces: pieces made up with a joined word, so that words differ from pieces.
function answer(c: Case) {
  const srcTokens = c.src_ids.map((_, j) => (j === 0 ? 'un@@' : `w${j}`))
  return { srcTokens, tgtTokens: c.tgt_tokens, weights: c.weights, sourceShare: c.source_share }
}

describe('contextNormView', () => {
  it('pieces: the answer as it is', () => {
    const a = answer(cases[0])
    const v = contextNormView(a, { units: 'pieces' })
    expect(v).toEqual({ units: 'pieces', src: a.srcTokens, tgt: a.tgtTokens, weights: a.weights, sourceShare: a.sourceShare })
  })

  it("words: a source word's weight is its pieces' sum, an output word's row and share its pieces' mean", () => {
    const c = cases.find((x) => x.tgt_tokens.some((t) => t.endsWith('@@'))) ?? cases[0]
    const a = answer(c)
    const v = contextNormView(a, { units: 'words' })
    expect(v.src.length).toBe(a.srcTokens.length - 1)
    const spans = wordSpans(a.tgtTokens)
    expect(v.tgt).toHaveLength(spans.length)
    spans.forEach(([first, last], w) => {
      const n = last - first + 1
      const share = a.sourceShare.slice(first, last + 1).reduce((x, y) => x + y, 0) / n
      expect(v.sourceShare[w]).toBeCloseTo(share, 12)
      const first2 = a.weights.slice(first, last + 1).reduce((x, r) => x + r[0] + r[1], 0) / n
      expect(v.weights[w][0]).toBeCloseTo(first2, 12)
    })
    // Each row of weights still sums to 1: the attention's whole mass is kept.
    v.weights.forEach((r) => expect(r.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 4))
  })

  it('the map draws the weights, one cell per output and source word', () => {
    const v = contextNormView(answer(cases[1]), { units: 'pieces' })
    const o = buildContextWeightsOption(v, { title: 'attention weights' })
    const heat = (o.series as { type: string; data: { value: number[] }[] }[]).find((s) => s.type === 'heatmap')!
    expect(heat.data).toHaveLength(v.tgt.length * v.src.length)
    for (const { value } of heat.data) expect(value[3]).toBeCloseTo(v.weights[value[1]][value[0]], 12)
  })
})
