import { describe, expect, it } from 'vitest'
import type { Translation } from '../../../../src/shared/api'
import { figureInUnits, figureUnits, unitsNote } from '../../../../src/shared/attention/word-figure'
import { firstPiece, inUnits, inWords, wordCoordinate, wordOfPiece } from '../../../../src/shared/attention/word-translation'

/** Rows that are distributions over `S` columns, different on every row and column. */
function distributions(T: number, S: number): number[][] {
  return Array.from({ length: T }, (_, t) => {
    const raw = Array.from({ length: S }, (_, s) => 1 + ((t * 7 + s * 3) % 5) + s / 10)
    const sum = raw.reduce((a, b) => a + b, 0)
    return raw.map((x) => x / sum)
  })
}

// "a wooden play@@ house ." → "un@@ e cabane en bois ." (pieces on both sides).
const SRC = ['a', 'wooden', 'play@@', 'house', '.', '</s>']
const TGT = ['un@@', 'e', 'cabane', 'en', 'bois', '.', '</s>']

function translation(over: Partial<Translation> = {}): Translation {
  const T = TGT.length
  const S = SRC.length
  const attention = distributions(T, S)
  return {
    modelId: 'm',
    source: 'a wooden playhouse .',
    srcTokens: SRC,
    srcUnknown: SRC.map((_, i) => i === 3),
    tgtTokens: TGT,
    text: 'une cabane en bois .',
    attention,
    scores: attention.map((r) => r.map((p) => Math.log(p) + 0.7)),
    encoderStates: SRC.map((_, j) => [j, 2 * j]),
    align: null,
    positions: null,
    windows: null,
    gaussian: null,
    tokenLogProbs: TGT.map((_, t) => -0.1 * (t + 1)),
    alternatives: TGT.map((tok, t) => [{ token: tok, p: 0.5 + t / 100 }]),
    tgtUnknown: null,
    mode: 'greedy',
    beam: 1,
    logProb: -2.8,
    truncated: false,
    decodeMs: 1,
    provider: 'cpu',
    ...over,
  }
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

describe('inWords', () => {
  const p = translation()
  const w = inWords(p)

  it('labels the words and keeps the piece spans', () => {
    expect(w.srcTokens).toEqual(['a', 'wooden', 'playhouse', '.', '</s>'])
    expect(w.tgtTokens).toEqual(['une', 'cabane', 'en', 'bois', '.', '</s>'])
    expect(w.words).toEqual({
      src: [
        [0, 0],
        [1, 1],
        [2, 3],
        [4, 4],
        [5, 5],
      ],
      tgt: [
        [0, 1],
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 5],
        [6, 6],
      ],
    })
  })

  it('sums the source pieces of a word and averages the output pieces of a word', () => {
    const a = p.attention
    // "playhouse" (pieces 2, 3) at output word "cabane" (piece 2): the sum of the two columns.
    expect(w.attention[1][2]).toBeCloseTo(a[2][2] + a[2][3], 12)
    // Output word "une" (pieces 0, 1) at source word "wooden": the mean of the two rows.
    expect(w.attention[0][1]).toBeCloseTo((a[0][1] + a[1][1]) / 2, 12)
    // Both at once.
    expect(w.attention[0][2]).toBeCloseTo((a[0][2] + a[0][3] + a[1][2] + a[1][3]) / 2, 12)
    for (const row of w.attention) expect(sum(row)).toBeCloseTo(1, 12)
    expect(w.attention).toHaveLength(6)
    expect(w.attention.every((r) => r.length === 5)).toBe(true)
  })

  it('pools scores so that their softmax is the summed attention', () => {
    // Output word "cabane" is one piece: softmax of its word scores = its word attention exactly.
    const row = w.scores[1]
    const e = row.map(Math.exp)
    const z = sum(e)
    e.forEach((x, j) => expect(x / z).toBeCloseTo(w.attention[1][j], 12))
  })

  it('sums log-probs over a word, keeps the first piece’s alternatives, marks unknown words', () => {
    expect(w.tokenLogProbs[0]).toBeCloseTo(-0.1 + -0.2, 12)
    expect(w.tokenLogProbs[1]).toBeCloseTo(-0.3, 12)
    expect(w.alternatives[0]).toEqual(p.alternatives[0])
    expect(w.srcUnknown).toEqual([false, false, true, false, false])
    expect(w.encoderStates[2]).toEqual([2.5, 5])
  })

  it('is the identity on a translation already in words, and inUnits("pieces") keeps the pieces', () => {
    expect(inWords(w)).toBe(w)
    expect(inUnits(p, 'pieces')).toBe(p)
  })

  it('aggregates every head of a transformer the same way', () => {
    const heads = TGT.map((_, t) => [[distributions(TGT.length, SRC.length)[t], distributions(TGT.length + 1, SRC.length)[t + 1]]])
    const tw = inWords(translation({ crossAttention: heads, scores: TGT.map(() => []) }))
    expect(tw.crossAttention).toHaveLength(6)
    expect(tw.crossAttention![0][0]).toHaveLength(2)
    expect(tw.crossAttention![0][0][1][2]).toBeCloseTo((heads[0][0][1][2] + heads[0][0][1][3] + heads[1][0][1][2] + heads[1][0][1][3]) / 2, 12)
    for (const step of tw.crossAttention!) for (const r of step[0]) expect(sum(r)).toBeCloseTo(1, 12)
    expect(tw.scores).toEqual(TGT.slice(1).map(() => []))
  })

  it('moves p_t and the windows of a local model into word coordinates', () => {
    const positions = [0, 1, 2.5, 3, 3, 4, 5]
    const windows = positions.map((x) => [x - 1, x + 1] as [number, number])
    const tw = inWords(translation({ positions, windows, align: distributions(7, 6), gaussian: distributions(7, 6) }))
    // Output word "une" = pieces at p 0 and 1 → mean 0.5 in pieces; piece 0.5 is the boundary of a|wooden → 0.5 in words.
    expect(tw.positions![0]).toBeCloseTo(0.5, 12)
    // p = 2.5 is the middle of "playhouse" (pieces 2, 3) → word 2.
    expect(tw.positions![1]).toBeCloseTo(2, 12)
    expect(tw.windows![1][0]).toBeCloseTo(wordCoordinate(1.5, tw.words!.src), 12)
    // The window of "une" (pieces at p 0 and 1) is the union of theirs: [-1, 2] in pieces.
    expect(tw.windows![0]).toEqual([wordCoordinate(-1, tw.words!.src), wordCoordinate(2, tw.words!.src)])
    for (const row of tw.align!) expect(sum(row)).toBeCloseTo(1, 12)
    expect(tw.gaussian![0]).toHaveLength(5)
  })

  it('maps piece coordinates to word coordinates continuously', () => {
    const spans: [number, number][] = [
      [0, 0],
      [1, 2],
      [3, 3],
    ]
    expect(wordCoordinate(0, spans)).toBeCloseTo(0, 12)
    expect(wordCoordinate(0.5, spans)).toBeCloseTo(0.5, 12)
    expect(wordCoordinate(1.5, spans)).toBeCloseTo(1, 12)
    expect(wordCoordinate(2.5, spans)).toBeCloseTo(1.5, 12)
    expect(wordCoordinate(3, spans)).toBeCloseTo(2, 12)
    expect(wordCoordinate(5, spans)).toBeCloseTo(4, 12)
  })

  it('maps a selection between pieces and words', () => {
    const spans: [number, number][] = [
      [0, 1],
      [2, 2],
    ]
    expect(wordOfPiece(1, spans)).toBe(0)
    expect(wordOfPiece(2, spans)).toBe(1)
    expect(wordOfPiece(null, spans)).toBe(null)
    expect(firstPiece(1, spans)).toBe(2)
    expect(firstPiece(0, undefined)).toBe(0)
  })

  it('keeps a word-segmented Chinese word whole', () => {
    // A jieba word split by BPE: "操@@ 场" is one word, "上" another.
    const zh = inWords(translation({ srcTokens: ['孩子', '在', '操@@', '场', '上', '</s>'], srcUnknown: Array(6).fill(false) }))
    expect(zh.srcTokens).toEqual(['孩子', '在', '操场', '上', '</s>'])
  })
})

describe('figures in words', () => {
  const p = translation()
  it('draws whole-sentence views in words and step views in pieces, and says which', () => {
    const heat = figureInUnits({ view: 'heatmap', translation: p }, 'words')
    expect(heat.view === 'heatmap' && heat.translation.srcTokens).toContain('playhouse')
    expect(figureUnits(heat)).toBe('words')
    expect(unitsNote(heat)).toMatch(/sum of the weights of its subword pieces/)
    expect(figureUnits(figureInUnits({ view: 'heatmap', translation: p }, 'pieces'))).toBe('pieces')
    const step = figureInUnits({ view: 'step', translation: p, step: 0, attention: 'bahdanau' }, 'words')
    expect(step.view === 'step' && step.translation).toBe(p)
    expect(figureUnits(step)).toBe('steps')
    const sbs = figureInUnits({ view: 'sidebyside', a: p, b: p, names: ['A', 'B'] }, 'words')
    expect(sbs.view === 'sidebyside' && [sbs.a.srcTokens.length, sbs.b.srcTokens.length]).toEqual([5, 5])
    expect(unitsNote({ view: 'corpus', corpus: { pair: 'en-fr', testSet: 't', results: [] } })).toBeNull()
  })
})
