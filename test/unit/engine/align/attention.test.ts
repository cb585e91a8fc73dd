import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pairAttentions, readingsOf, wordMatrix, type PairAttention } from '../../../../src/engine/align/attention'
import { argmax, extractLinks, intersectLinks, parseMethod, reverseLinks } from '../../../../src/engine/align/extract'
import { wordPieces } from '../../../../src/engine/align/pieces'
import { forcedDecode } from '../../../../src/engine/decode'
import { LoadedModel } from '../../../../src/engine/model'
import { tokenize, type BpeSpec, type CharSpec } from '../../../../src/engine/tokenizer'
import { wordSpans } from '../../../../src/shared/attention/words'
import { tiny } from '../../../helpers'

describe('gold words → model pieces', () => {
  it('maps a word split into three pieces back to one word', () => {
    // No merges: every unit is cut into its characters.
    const spec: BpeSpec = { type: 'bpe', lowercase: true, joiner: '@@', merges: [] }
    const m = wordPieces(['a', 'cat', 'sat'], spec, '<unk>')
    expect(m.pieces).toEqual(['a', 'c@@', 'a@@', 't', 's@@', 'a@@', 't'])
    expect(m.spans).toEqual([
      [0, 0],
      [1, 3],
      [4, 6],
    ])
  })

  it('keeps a word one word where the running text loses its boundary', () => {
    // The zh→en models read characters: in running text the space between 科学家 and 一直 is gone,
    // and their five characters cannot be told apart into words any more (each is a "word" of its own).
    const spec: CharSpec = { type: 'char', lowercase: true }
    const running = tokenize('科学家 一直', spec)
    expect(running).toEqual(['科', '学', '家', '一', '直'])
    expect(wordSpans(running)).toHaveLength(5)
    const m = wordPieces(['科学家', '一直'], spec, '<unk>')
    expect(m.pieces).toEqual(running)
    expect(m.spans).toEqual([
      [0, 2],
      [3, 4],
    ])
  })

  it('gives a word the tokenizer drops entirely one <unk> piece, so no column goes missing', () => {
    const spec: CharSpec = { type: 'char', lowercase: true }
    expect(wordPieces(['a', '\u00a0', 'b'], spec, '<unk>')).toEqual({
      pieces: ['a', '<unk>', 'b'],
      spans: [
        [0, 0],
        [1, 1],
        [2, 2],
      ],
    })
  })
})

/** A pair with random attention rows over its source pieces and `</s>`: 3 target words of 1, 2, 1 pieces. */
function randomPair(): PairAttention {
  const srcSpans: [number, number][] = [
    [0, 0],
    [1, 3],
    [4, 4],
  ]
  const tgtSpans: [number, number][] = [
    [0, 0],
    [1, 2],
    [3, 3],
  ]
  const row = () => {
    const r = Array.from({ length: 6 }, () => Math.random())
    const s = r.reduce((a, b) => a + b, 0)
    return r.map((x) => x / s)
  }
  return { srcSpans, tgtSpans, rows: Array.from({ length: 5 }, row), cross: null }
}

describe('word attention', () => {
  it('keeps rows distributions over the source words (`</s>` left out), shifted or not', () => {
    for (let k = 0; k < 20; k++) {
      const p = randomPair()
      for (const shifted of [false, true]) {
        const m = wordMatrix(p, { shifted })
        expect(m).toHaveLength(3)
        for (const r of m) {
          expect(r).toHaveLength(3)
          expect(r!.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
          expect(Math.min(...r!)).toBeGreaterThanOrEqual(0)
        }
      }
    }
  })

  it('sums source pieces and averages target pieces', () => {
    const p = randomPair()
    // Piece rows 1 and 2 make target word 1; pieces 1–3 make source word 1.
    const word = (t: number) => [p.rows[t][0], p.rows[t][1] + p.rows[t][2] + p.rows[t][3], p.rows[t][4]]
    const mean = word(1).map((x, i) => (x + word(2)[i]) / 2)
    const sum = mean.reduce((a, b) => a + b, 0)
    wordMatrix(p)[1]!.forEach((x, i) => expect(x).toBeCloseTo(mean[i] / sum, 12))
    // Shifted: target word 0 is read at step 1, the step its piece is fed.
    wordMatrix(p, { shifted: true })[0]!.forEach((x, i) => expect(x).toBeCloseTo(word(1)[i] / word(1).reduce((a, b) => a + b, 0), 12))
  })

  it('leaves a target word the decoder never reached without a row', () => {
    const p = randomPair()
    p.rows = p.rows.slice(0, 2) // steps 0 and 1 only: word 1's second piece was cut
    expect(wordMatrix(p).map((r) => r !== null)).toEqual([true, false, false])
  })
})

describe('link extraction', () => {
  const diagonal = Array.from({ length: 5 }, (_, j) => Array.from({ length: 5 }, (_, i) => (i === j ? 0.6 : 0.1)))
  it('turns a diagonal matrix into the diagonal links', () => {
    expect(extractLinks(diagonal)).toEqual([0, 1, 2, 3, 4].map((k) => ({ i: k, j: k, sure: true })))
    expect(extractLinks(diagonal, parseMethod('threshold=0.5')!)).toEqual(extractLinks(diagonal))
    expect(extractLinks(diagonal, parseMethod('threshold=0.1')!)).toHaveLength(25)
  })

  it('reads the reverse direction transposed, and intersects', () => {
    // Reverse model: rows are our source words, columns our target words.
    const rev = [
      [0.9, 0.1],
      [0.8, 0.2],
    ]
    expect(reverseLinks(rev)).toEqual([
      { i: 0, j: 0, sure: true },
      { i: 1, j: 0, sure: true },
    ])
    const fwd = extractLinks([
      [0.9, 0.1],
      [0.3, 0.7],
    ])
    expect(intersectLinks(fwd, reverseLinks(rev))).toEqual([{ i: 0, j: 0, sure: true }])
  })

  it('parses --method', () => {
    expect(parseMethod('argmax')).toEqual({ kind: 'argmax' })
    expect(parseMethod('threshold=0.3')).toEqual({ kind: 'threshold', value: 0.3 })
    expect(parseMethod('threshold=1.5')).toBeNull()
    expect(parseMethod('max')).toBeNull()
  })
})

describe('a Transformer fixture, head by head', () => {
  let model: LoadedModel
  beforeAll(async () => {
    model = await LoadedModel.open(tiny('transformer'))
  })
  afterAll(async () => {
    await model.release()
  })

  // "bench" and "banc" are three BPE pieces each in the fixture's vocabularies.
  const src = 'a man is sitting on a bench .'
  const tgt = 'un homme est assis sur un banc .'

  it("gives each head that head's argmax links, read from forced decoding of the same pair", async () => {
    const [pa] = await pairAttentions(model, [{ src: src.split(' '), tgt: tgt.split(' ') }])
    const ref = await forcedDecode(model, src, tgt)
    expect(ref.srcTokens.slice(6, 9)).toEqual(['b@@', 'en@@', 'ch'])
    expect(ref.tgtTokens.slice(6, 9)).toEqual(['b@@', 'an@@', 'c'])
    // Word w of either side: its pieces (the same in both sentences here).
    const pieces = [[0], [1], [2], [3], [4], [5], [6, 7, 8], [9]]
    const heads = readingsOf(model.spec.heads).filter((r) => r.kind === 'head')
    expect(heads).toHaveLength(4)
    for (const r of heads) {
      if (r.kind !== 'head') continue
      const expected = pieces.map((tp, j) => {
        const words = pieces.map((sp) => tp.reduce((a, t) => a + sp.reduce((b, s) => b + ref.crossAttention![t][r.layer][r.head][s], 0), 0))
        return { i: argmax(words), j, sure: true }
      })
      expect(extractLinks(wordMatrix(pa, { reading: r }))).toEqual(expected)
    }
    // The model's own attention is the heads' average; the batch does not change it.
    const avg = wordMatrix(pa)
    const byHand = pieces.map((tp) => pieces.map((sp) => tp.reduce((a, t) => a + sp.reduce((b, s) => b + ref.attention[t][s], 0), 0)))
    avg.forEach((row, j) => expect(argmax(row!)).toBe(argmax(byHand[j])))
  })

  it('gives the same attention whether a pair is decoded alone or in a batch', async () => {
    const pairs = [
      { src: src.split(' '), tgt: tgt.split(' ') },
      { src: ['two', 'dogs', '.'], tgt: ['deux', 'chiens', '.'] },
      { src: 'a girl in a red dress is running on the beach .'.split(' '), tgt: 'une fille en robe rouge court sur la plage .'.split(' ') },
    ]
    const batched = await pairAttentions(model, pairs, { batchSize: 3 })
    const alone = await pairAttentions(model, pairs, { batchSize: 1 })
    batched.forEach((p, n) => {
      const a = wordMatrix(p, { reading: { kind: 'head', layer: 1, head: 1 } })
      const b = wordMatrix(alone[n], { reading: { kind: 'head', layer: 1, head: 1 } })
      a.forEach((row, j) => row!.forEach((x, i) => expect(x).toBeCloseTo(b[j]![i], 5)))
    })
  })
})
