import { describe, expect, it } from 'vitest'
import { meanPerSpan, pieceToWord, wordAttention, wordLabels, wordSpans } from '../../../../src/shared/attention/words'

describe('wordSpans', () => {
  it('groups subword-nmt pieces into words, specials alone', () => {
    const t = ['a', 'little', 'girl', 'play@@', 'hou@@', 'se', '.', '</s>']
    expect(wordSpans(t)).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 5],
      [6, 6],
      [7, 7],
    ])
    expect(wordLabels(t)).toEqual(['a', 'little', 'girl', 'playhouse', '.', '</s>'])
  })
  it("keeps l'@@ with the word it is glued to", () => {
    expect(wordLabels(["l'@@", 'homme', 'marche'])).toEqual(["l'homme", 'marche'])
  })
  it("drops a character tokenizer's space token from the word it starts", () => {
    expect(wordLabels(['h', 'i', '\u2581', 'y', 'o', 'u', '</s>'])).toEqual(['hi', 'you', '</s>'])
  })
  it('reads SentencePiece and WordPiece marks', () => {
    expect(wordLabels(['\u2581the', '\u2581play', 'house', '</s>'])).toEqual(['the', 'playhouse', '</s>'])
    expect(wordLabels(['the', 'play', '##house'])).toEqual(['the', 'playhouse'])
  })
  it('a language tag is a word of its own, whatever piece follows it', () => {
    // A forced __fr__ followed by a piece without "▁" (a random-weight M2M100's output) was one word "__fr__nc".
    expect(wordSpans(['__fr__', 'nc', 'ence', '\u2581chat'])).toEqual([
      [0, 0],
      [1, 2],
      [3, 3],
    ])
    expect(wordSpans(['\u2581a', 'fra_Latn', '\u2581b'])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ])
  })

  it("reads byte-level BPE (BART's): a word starts at its space Ġ, and its bytes spell the word", () => {
    // BART-large's output for a Multi30K sentence: « cafétéria » is one piece, "é" as its two UTF-8 bytes.
    const t = ['<s>', 'happy', 'happy', '\u0120caf\u00c3\u00a9t\u00c3\u00a9ria', 'happy', '\u0120Milit', '\u00c3\u00a4rs', '.', '</s>']
    expect(wordSpans(t)).toEqual([
      [0, 0],
      [1, 2],
      [3, 4],
      [5, 7],
      [8, 8],
    ])
    expect(wordLabels(t)).toEqual(['<s>', 'happyhappy', 'cafétériahappy', 'Militärs.', '</s>'])
  })
  it('an unknown piece glued by @@ stays in its word', () => {
    expect(wordSpans(['ab@@', '<unk>', 'c'])).toEqual([
      [0, 1],
      [2, 2],
    ])
  })
  it('is empty for no tokens and maps pieces back to words', () => {
    expect(wordSpans([])).toEqual([])
    expect(
      pieceToWord([
        [0, 0],
        [1, 3],
        [4, 4],
      ]),
    ).toEqual([0, 1, 1, 1, 2])
  })
})

describe('wordAttention', () => {
  it('sums source pieces and averages output pieces; rows stay distributions', () => {
    const att = [
      [0.1, 0.2, 0.3, 0.4],
      [0.4, 0.3, 0.2, 0.1],
      [0.25, 0.25, 0.25, 0.25],
    ]
    const w = wordAttention(
      att,
      [
        [0, 0],
        [1, 3],
      ],
      [
        [0, 1],
        [2, 2],
      ],
    )
    expect(w[0][0]).toBeCloseTo(0.25, 12)
    expect(w[0][1]).toBeCloseTo(0.75, 12)
    expect(w[1]).toEqual([0.25, 0.75])
    for (const row of w) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
  })
  it('averages a per-step value per word', () => {
    expect(
      meanPerSpan(
        [1, 3, 5],
        [
          [0, 1],
          [2, 2],
        ],
      ),
    ).toEqual([2, 5])
  })
})
