import { spansOfLengths, type Span } from '../../shared/attention/words'
import { tokenize, type TokenizerSpec } from '../tokenizer'

/** A gold sentence's words as a model's pieces, and which pieces make each word. */
export interface PieceMap {
  pieces: string[]
  /** spans[w] = [first, last] piece of gold word w. */
  spans: Span[]
}

/**
 * Tokenizes each gold word on its own and concatenates the pieces, keeping the piece → word map.
 * Tokenizing the running text instead could merge two gold words into one piece, or cut a piece
 * across a word boundary, and then no map back to the gold's words exists. A word that yields no
 * piece at all (only characters the tokenizer drops) becomes `unk`, so every word keeps a column.
 */
export function wordPieces(words: readonly string[], spec: TokenizerSpec, unk: string): PieceMap {
  const perWord = words.map((w) => {
    const p = tokenize(w, spec)
    return p.length ? p : [unk]
  })
  return { pieces: perWord.flat(), spans: spansOfLengths(perWord.map((p) => p.length)) }
}
