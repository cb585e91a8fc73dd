import { describe, expect, it } from 'vitest'
import { estimateWidth, INKS, type Frame } from '../../../src/shared/charts/frame'
import { buildHeadsGridOption, headOfSeries, headsGridLayout, stepHeadRows } from '../../../src/shared/charts/heads'
import {
  agreement,
  averageHeads,
  diagonality,
  headMatrix,
  headStats,
  meanEntropy,
  rankHeads,
  projection,
  rowEntropy,
  toWordAlignment,
  wordOfToken,
  wordsOf,
} from '../../../src/shared/attention/heads'
import { makeCross, PATTERNS, SRC, TGT, transformerTranslation } from './heads-fixture'

const frame = (p: Partial<Frame> = {}): Frame => ({
  x: 10,
  y: 20,
  width: 940,
  height: 500,
  fontSize: 12,
  measure: estimateWidth,
  lang: 'en',
  ink: INKS.light,
  highlightRow: null,
  ...p,
})

type Series = { id: string; type: string; xAxisIndex: number; data: [number, number, number, number][] }

describe('per-head numbers on hand-made matrices', () => {
  it('entropy in bits: 0 for one-hot, 1 for two halves, log2 S for uniform; rows are scaled to sum to 1', () => {
    expect(rowEntropy([0, 1, 0, 0])).toBe(0)
    expect(rowEntropy([0.5, 0.5, 0, 0])).toBeCloseTo(1, 12)
    expect(rowEntropy([0.25, 0.25, 0.25, 0.25])).toBeCloseTo(2, 12)
    // A local-p row sums to less than 1 (softmax × Gaussian): its shape is what counts.
    expect(rowEntropy([0.2, 0.2, 0, 0])).toBeCloseTo(1, 12)
    expect(rowEntropy([])).toBe(0)
    expect(
      meanEntropy([
        [1, 0],
        [0.5, 0.5],
      ]),
    ).toBeCloseTo(0.5, 12)
  })

  it('diagonality: the share within ±1 of the proportional diagonal, mean over steps', () => {
    const identity = (n: number) => Array.from({ length: n }, (_, t) => Array.from({ length: n }, (_, s) => (s === t ? 1 : 0)))
    expect(diagonality(identity(6))).toBeCloseTo(1, 12)
    // All weight on the first source token: near the diagonal only at steps 0 and 1 of 5.
    const first = Array.from({ length: 5 }, () => [1, 0, 0, 0, 0])
    expect(diagonality(first)).toBeCloseTo(2 / 5, 12)
    // Uniform over 10: 2 of 10 positions at the two ends, 3 of 10 elsewhere.
    const uniform = Array.from({ length: 10 }, () => Array.from({ length: 10 }, () => 0.1))
    expect(diagonality(uniform)).toBeCloseTo((2 * 0.2 + 8 * 0.3) / 10, 12)
    // 3 output steps over 7 source tokens: the diagonal runs 0 → 3 → 6, so the middle step's
    // weight on source 4 counts (|4 − 3| ≤ 1) and the last step's on source 4 does not.
    expect(
      diagonality([
        [1, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 1, 0, 0],
        [0, 0, 0, 0, 1, 0, 0],
      ]),
    ).toBeCloseTo(2 / 3, 12)
  })

  it('agreement: Σ min of the two rows scaled to 1, mean over the steps both have', () => {
    const a = [
      [0.5, 0.5, 0],
      [1, 0, 0],
    ]
    expect(agreement(a, a)).toBeCloseTo(1, 12)
    expect(agreement([[1, 0, 0]], [[0, 0, 1]])).toBe(0)
    expect(agreement([[0.5, 0.5, 0]], [[1, 0, 0]])).toBeCloseTo(0.5, 12)
    // Scaled: a local-p row of the same shape agrees fully.
    expect(agreement([[0.25, 0.25]], [[0.5, 0.5]])).toBeCloseTo(1, 12)
    // One step more on one side: only the shared steps count.
    expect(agreement(a, [[0.5, 0.5, 0]])).toBeCloseTo(1, 12)
    // Symmetric.
    expect(agreement([[0.7, 0.2, 0.1]], [[0.1, 0.6, 0.3]])).toBeCloseTo(agreement([[0.1, 0.6, 0.3]], [[0.7, 0.2, 0.1]]), 12)
  })

  it("every head's numbers follow its planted pattern", () => {
    const cross = makeCross(2, 3)
    const stats = headStats(cross)
    expect(stats.map((s) => [s.layer, s.head])).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
    ])
    const of = (p: string) => stats[PATTERNS.indexOf(p as (typeof PATTERNS)[number])]
    expect(of('diagonal').diagonality).toBeGreaterThan(0.95)
    expect(of('shifted').diagonality).toBeLessThan(0.2)
    expect(of('uniform').entropy).toBeCloseTo(Math.log2(SRC.length), 6)
    expect(of('sink').entropy).toBeLessThan(1)
    // A broad diagonal: more spread out than the sharp one, still mostly near the diagonal.
    expect(of('broad').entropy).toBeGreaterThan(of('diagonal').entropy + 1)
    for (const s of stats) expect(s.agreement).toBeNull()
  })
})

describe('which head aligns best', () => {
  it('ranks the planted head first, against a reference it was made from', () => {
    const L = 3
    const H = 4
    const cross = makeCross(L, H, TGT.length, SRC.length, 11)
    // The reference: a copy of the "shifted" pattern. The heads that follow that pattern are
    // mirrored, and head (2, 1) becomes the reference with a little noise: the one planted match.
    const reference = cross.map((step) => [...step[0][1]])
    for (let t = 0; t < cross.length; t++)
      for (let l = 0; l < L; l++)
        for (let h = 0; h < H; h++) {
          if (l === 2 && h === 1) {
            const noisy = reference[t].map((w, s) => w + 0.01 * ((s * 7 + t) % 3))
            const z = noisy.reduce((a, b) => a + b, 0)
            cross[t][l][h] = noisy.map((w) => w / z)
          } else if ((l * H + h) % PATTERNS.length === 1) cross[t][l][h] = [...cross[t][l][h]].reverse()
        }
    const ranked = rankHeads(cross, reference)
    expect(ranked).toHaveLength(L * H)
    expect(ranked[0]).toMatchObject({ layer: 2, head: 1 })
    expect(ranked[0].agreement).toBeGreaterThan(0.85)
    // Sorted, best first, and each agreement is that head's own.
    for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1].agreement!).toBeGreaterThanOrEqual(ranked[i].agreement!)
    for (const r of ranked) expect(r.agreement).toBeCloseTo(agreement(headMatrix(cross, r), reference), 12)
    expect(ranked[1].agreement).toBeLessThan(ranked[0].agreement! - 0.2)
  })
})

describe('two models that split words into different pieces', () => {
  it('reads the words from the pieces: subword-nmt @@, SentencePiece ▁, WordPiece ##', () => {
    expect(wordOfToken(['a', 'p@@', 'in@@', 'k', 'dress', '</s>'])).toEqual([0, 1, 1, 1, 2, 3])
    expect(wordsOf(['a', 'p@@', 'in@@', 'k', 'dress', '</s>'])).toEqual(['a', 'pink', 'dress', '</s>'])
    expect(wordsOf(['\u2581a', '\u2581pi', 'nk', '</s>'])).toEqual(['a', 'pink', '</s>'])
    expect(wordsOf(['a', 'pi', '##nk'])).toEqual(['a', 'pink'])
  })

  it('an alignment between words: pieces of a source word added up, rows of an output word averaged', () => {
    const src = ['a', 'p@@', 'ink', '</s>']
    const tgt = ['une', 'ro@@', 'se', '</s>']
    const m = [
      [0.7, 0.1, 0.1, 0.1],
      [0.1, 0.4, 0.4, 0.1],
      [0.1, 0.2, 0.6, 0.1],
      [0, 0, 0, 1],
    ]
    const w = toWordAlignment(m, tgt, src)
    expect(w).toHaveLength(3)
    expect(w[0]).toEqual([0.7, expect.closeTo(0.2, 12), 0.1])
    expect(w[1]).toEqual([expect.closeTo(0.1, 12), expect.closeTo(0.8, 12), expect.closeTo(0.1, 12)])
    for (const row of w) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    // Fewer rows than tokens: only the words those rows reach.
    expect(toWordAlignment(m.slice(0, 2), tgt, src)).toHaveLength(2)
  })

  it('ranks the heads against a reference between words when asked to', () => {
    const src = ['a', 'p@@', 'ink', 'dress', '</s>']
    const tgt = ['une', 'robe', 'ro@@', 'se', '</s>']
    // Head (0, 0) reads the diagonal of the words, head (0, 1) always the last token.
    const diagonal = [
      [1, 0, 0, 0, 0],
      [0, 0, 0, 1, 0],
      [0, 0.5, 0.5, 0, 0],
      [0, 0.5, 0.5, 0, 0],
      [0, 0, 0, 0, 1],
    ]
    const last = tgt.map(() => [0, 0, 0, 0, 1])
    const cross = tgt.map((_, t) => [[diagonal[t], last[t]]])
    // The reference, from a model with whole words: a, pink, dress, </s> × une, robe, rose, </s>.
    const reference = [
      [1, 0, 0, 0],
      [0, 0, 1, 0],
      [0, 1, 0, 0],
      [0, 0, 0, 1],
    ]
    const ranked = rankHeads(cross, reference, projection({ name: 'r', attention: reference, words: true }, tgt, src))
    expect(ranked[0]).toMatchObject({ layer: 0, head: 0, agreement: expect.closeTo(1, 12) })
    expect(ranked[1]).toMatchObject({ layer: 0, head: 1, agreement: expect.closeTo(0.25, 12) })
  })
})

describe('the layer × head grid', () => {
  it("draws L × H heatmaps, each one head's [t][s] weights, whose average is the default heatmap", () => {
    for (const [L, H] of [
      [3, 4],
      [1, 1],
      [6, 8],
    ]) {
      const t = transformerTranslation(L, H)
      const option = buildHeadsGridOption({ srcTokens: t.srcTokens, tgtTokens: t.tgtTokens, crossAttention: t.crossAttention!, frame: frame() })
      const series = (option.series as Series[]).filter((s) => s.type === 'heatmap')
      expect(series).toHaveLength(L * H)
      expect(option.grid as unknown[]).toHaveLength(L * H)
      const T = TGT.length
      const S = SRC.length
      const sum = Array.from({ length: T }, () => new Array<number>(S).fill(0))
      series.forEach((s, i) => {
        expect(headOfSeries(s.id)).toEqual({ layer: Math.floor(i / H), head: i % H })
        expect(s.xAxisIndex).toBe(i)
        expect(s.data).toHaveLength(T * S)
        for (const [src, tgt, , w] of s.data) {
          expect(w).toBe(t.crossAttention![tgt][Math.floor(i / H)][i % H][src])
          sum[tgt][src] += w
        }
      })
      // t.attention was computed on its own (heads-fixture): the mean of the drawn heads is it.
      for (let i = 0; i < T; i++) for (let j = 0; j < S; j++) expect(sum[i][j] / (L * H)).toBeCloseTo(t.attention[i][j], 12)
      expect(averageHeads(t.crossAttention!).flat()).toEqual(t.attention.flat().map((x) => expect.closeTo(x, 12)))
    }
  })

  it("writes every head's entropy and diagonality (and agreement, given a reference) over its map", () => {
    const t = transformerTranslation(2, 3)
    const reference = { name: 'ref', attention: t.crossAttention!.map((s) => s[1][2]) }
    const option = buildHeadsGridOption({ srcTokens: SRC, tgtTokens: TGT, crossAttention: t.crossAttention!, reference, frame: frame() })
    const texts = ((option.graphic as { elements: { type: string; style?: { text?: string } }[] }).elements ?? [])
      .filter((e) => e.type === 'text')
      .map((e) => e.style!.text!)
      .join('\n')
    for (const s of headStats(t.crossAttention!, reference.attention)) {
      expect(texts).toContain(`${s.entropy.toFixed(2)} b`)
      expect(texts).toContain(`d ${s.diagonality.toFixed(2).replace(/^0\./, '.')}`)
      expect(texts).toContain(`a ${s.agreement!.toFixed(2).replace(/^0\./, '.')}`)
    }
    // The best head, the reference's own, agrees fully.
    expect(texts).toContain('a 1.00')
    for (const h of ['head 1', 'head 3', 'layer 1', 'layer 2']) expect(texts).toContain(h)
  })

  it('lays the maps out in rows of layers and columns of heads, apart, inside the frame, none squeezed past 2:1 cells', () => {
    for (const f of [frame(), frame({ width: 240, height: 200, fontSize: 8 }), frame({ lang: 'zh', fontSize: 20 })]) {
      const t = transformerTranslation(3, 4)
      const lay = headsGridLayout({ srcTokens: SRC, tgtTokens: TGT, crossAttention: t.crossAttention!, frame: f })
      expect(lay.cells).toHaveLength(12)
      for (const c of lay.cells) {
        expect(c.x).toBeGreaterThanOrEqual(f.x)
        expect(c.x + c.width).toBeLessThanOrEqual(f.x + f.width + 1e-9)
        expect(c.y).toBeGreaterThanOrEqual(f.y)
        const cw = c.width / SRC.length
        const ch = c.height / TGT.length
        expect(cw).toBeLessThanOrEqual(2 * ch + 1e-6)
        expect(ch).toBeLessThanOrEqual(2 * cw + 1e-6)
      }
      expect(lay.used).toBeLessThanOrEqual(f.height + 1e-6)
      for (let l = 0; l < 3; l++)
        for (let h = 1; h < 4; h++) {
          const [a, b] = [lay.cells[l * 4 + h - 1], lay.cells[l * 4 + h]]
          expect(b.x).toBeGreaterThan(a.x + a.width)
          expect(b.y).toBe(a.y)
        }
      for (let l = 1; l < 3; l++) expect(lay.cells[l * 4].y).toBeGreaterThan(lay.cells[(l - 1) * 4].y + lay.cells[(l - 1) * 4].height)
    }
  })

  it('a step of a Transformer: one row per head, layer by layer, then their average', () => {
    const t = transformerTranslation(2, 2)
    const rows = stepHeadRows(t.crossAttention![4], t.attention[4])
    expect(rows).toHaveLength(5)
    expect(rows[2]).toBe(t.crossAttention![4][1][0])
    expect(rows[4]).toBe(t.attention[4])
  })
})
