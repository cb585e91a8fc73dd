import { describe, expect, it } from 'vitest'
import type { CorpusResult } from '../../../src/shared/api'
import { buildCorpusOption, corpusStyles } from '../../../src/shared/charts/corpus'
import { estimateWidth, INKS, type Frame } from '../../../src/shared/charts/frame'

const BUCKETS = ['1-10', '11-15', '16-20', '21-25', '26+']

function corpus(n: number): CorpusResult {
  return {
    pair: 'en-fr',
    testSet: 'test',
    results: Array.from({ length: n }, (_, k) => ({
      model: `en-fr-model-${k}`,
      modelId: `m${k}`,
      fileName: `m${k}.onnx`,
      attention: k === 0 ? 'none' : 'bahdanau',
      sentences: 10,
      bleu: 40 + k,
      bleuCased: 39 + k,
      byLength: BUCKETS.map((bucket, i) => ({ bucket, sentences: 2, bleu: 50 - 5 * i + k })),
      seconds: 1,
      sentencesPerSecond: 10,
      attentionEntropy: null,
      diagonality: null,
      cached: false,
      hypotheses: [],
    })),
  }
}

type Series = { color: string; symbol: string; lineStyle: { type: string } }

describe('BLEU by length: one line per model', () => {
  it.each([8, 11, 14])('no two of %i lines share colour, marker and dash', (n) => {
    const series = (buildCorpusOption(corpus(n)) as { series: Series[] }).series
    const looks = series.map((s) => `${s.color} ${s.symbol} ${s.lineStyle.type}`)
    expect(new Set(looks).size).toBe(n)
  })

  it('eight models get eight colours', () => {
    expect(new Set(corpusStyles(corpus(8)).map((l) => l.color)).size).toBe(8)
  })

  it('the key is a column on the right, beside the plot, not over it or the axis name', () => {
    const o = buildCorpusOption(corpus(8)) as { legend: { orient: string; right: number; textStyle: { width: number } }; grid: { right: number } }
    expect(o.legend.orient).toBe('vertical')
    expect(o.legend.right).toBe(0)
    // The plot ends left of the key: its text width plus the symbol and gaps.
    expect(o.grid.right).toBeGreaterThan(o.legend.textStyle.width + 40)
  })

  it('the exported figure keys each model in its line colour', () => {
    const frame: Frame = { x: 0, y: 0, width: 700, height: 420, fontSize: 12, measure: estimateWidth, lang: 'en', ink: INKS.light, highlightRow: null }
    const o = buildCorpusOption(corpus(9), undefined, frame) as { series: Series[] }
    expect(o.series.map((s) => s.color)).toEqual(corpusStyles(corpus(9)).map((l) => l.color))
  })
})
