/**
 * Pieces → words. Subword tokenizers split a word into pieces; a figure, a slide or an alignment
 * scorer wants words. The rule (the usual one, e.g. in awesome-align and Inseq): the attention a
 * word *receives* is the sum over its pieces (source columns are summed), and the attention a word
 * *gives* is the mean over its pieces' rows (output rows are averaged), so every row is still a
 * distribution over the source words.
 */
import { isLanguageTag } from './tags'

/** [first, last] piece indices of one word, inclusive. */
export type Span = [number, number]

/** Special tokens and language tags (tags.ts: __fr__, fra_Latn, >>fra<<) are words of their own. */
const isSpecial = (t: string): boolean => /^<.*>$/.test(t) || isLanguageTag(t)

/**
 * GPT-2's byte-level BPE (BART, RoBERTa) writes each byte of the text as one printable character
 * (bytes_to_unicode: a space is "Ġ", "é" is the two characters "Ã©"): each character → its byte.
 */
const BYTE_OF: ReadonlyMap<string, number> = (() => {
  const m = new Map<string, number>()
  let next = 256
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)
    m.set(String.fromCharCode(printable ? b : next++), b)
  }
  return m
})()

/** Pieces of a byte-level BPE: some start with its space "Ġ", none with SentencePiece's "▁", every other one only of byte characters. */
function isByteLevel(tokens: readonly string[]): boolean {
  return (
    tokens.some((t) => t.startsWith('\u0120')) &&
    !tokens.some((t) => t.startsWith('\u2581')) &&
    tokens.every((t) => isSpecial(t) || Array.from(t).every((c) => BYTE_OF.has(c)))
  )
}

/** Byte-level pieces joined as the text they spell ("Ġcaf" "Ã©" → " café"); a byte sequence cut inside a character shows as U+FFFD. */
function byteLevelText(pieces: readonly string[]): string {
  return new TextDecoder().decode(Uint8Array.from(Array.from(pieces.join(''), (c) => BYTE_OF.get(c)!)))
}

/**
 * Every word of a piece sequence as a span, single-piece words included, in order. Pieces are
 * marked as subword-nmt does (a trailing "@@" glues the next piece), as SentencePiece does (a
 * leading "▁" starts a word; the first piece always does) or as WordPiece does (a leading "##"
 * continues the previous piece) or as byte-level BPE does (a leading "Ġ", its space, starts a
 * word). Special tokens (`<s>`, `</s>`, `<unk>`…) are words of their own
 * unless a "@@" before them glues them on (an unknown piece inside a word stays in that word).
 */
export function wordSpans(tokens: readonly string[]): Span[] {
  const sp = tokens.some((t) => t.startsWith('\u2581'))
  const bytes = !sp && isByteLevel(tokens)
  const spans: Span[] = []
  let start = 0
  for (let i = 1; i <= tokens.length; i++) {
    const prev = tokens[i - 1]
    const cur = tokens[i]
    const continues =
      i < tokens.length &&
      ((prev.endsWith('@@') && prev.length > 2) ||
        (cur.startsWith('##') && cur.length > 2) ||
        (sp && !cur.startsWith('\u2581') && !isSpecial(cur) && !isSpecial(prev)) ||
        (bytes && !cur.startsWith('\u0120') && !isSpecial(cur) && !isSpecial(prev)))
    if (!continues) {
      spans.push([start, i - 1])
      start = i
    }
  }
  return tokens.length === 0 ? [] : spans
}

/** A piece's text without its marks ("play@@" → "play", "▁the" → "the", "##ing" → "ing"). */
export function pieceText(token: string): string {
  if (token.endsWith('@@') && token.length > 2) token = token.slice(0, -2)
  if (token.startsWith('##') && token.length > 2) token = token.slice(2)
  if (token.startsWith('\u2581') && token.length > 1) token = token.slice(1)
  return token
}

/** The words' texts: each span's pieces joined without their marks ("play@@ house" → "playhouse"). */
export function wordLabels(tokens: readonly string[], spans: readonly Span[] = wordSpans(tokens)): string[] {
  const bytes = isByteLevel(tokens)
  return spans.map(([a, b]) => {
    const pieces = tokens.slice(a, b + 1)
    if (bytes && !isSpecial(pieces[0])) return byteLevelText(pieces).trimStart()
    // A character tokenizer's space token "▁" starts the word after it: dropped from its label.
    return (pieces.length > 1 && pieces[0] === '\u2581' ? pieces.slice(1) : pieces).map(pieceText).join('')
  })
}

/** Columns of a [rows][pieces] matrix summed per span: the weight each word receives. */
export function sumColumns(matrix: readonly (readonly number[])[], spans: readonly Span[]): number[][] {
  return matrix.map((row) =>
    spans.map(([a, b]) => {
      let s = 0
      for (let j = a; j <= b; j++) s += row[j] ?? 0
      return s
    }),
  )
}

/** Rows of a [pieces][cols] matrix averaged per span: the weight each word gives. */
export function meanRows(matrix: readonly (readonly number[])[], spans: readonly Span[]): number[][] {
  return spans.map(([a, b]) => {
    const width = matrix[a]?.length ?? 0
    const out = new Array<number>(width).fill(0)
    for (let i = a; i <= b; i++) for (let j = 0; j < width; j++) out[j] += matrix[i][j] ?? 0
    return out.map((v) => v / (b - a + 1))
  })
}

/**
 * Attention [output pieces][source pieces] → [output words][source words]: source pieces summed,
 * output pieces averaged. A row that was a distribution stays one.
 */
export function wordAttention(attention: readonly (readonly number[])[], srcSpans: readonly Span[], tgtSpans: readonly Span[]): number[][] {
  if (attention.length === 0) return []
  return meanRows(sumColumns(attention, srcSpans), tgtSpans)
}

/** A per-piece sequence (a vector over output steps) averaged per word, e.g. p_t or log-probs. */
export function meanPerSpan(values: readonly number[], spans: readonly Span[]): number[] {
  return spans.map(([a, b]) => {
    let s = 0
    for (let i = a; i <= b; i++) s += values[i]
    return s / (b - a + 1)
  })
}

/** Which word each piece belongs to: pieceWord[i] = index of the span holding piece i. */
export function pieceToWord(spans: readonly Span[]): number[] {
  const out: number[] = []
  spans.forEach(([a, b], w) => {
    for (let i = a; i <= b; i++) out[i] = w
  })
  return out
}

/**
 * Spans of words given how many pieces each has, in order: the map an aligner keeps when it
 * tokenizes each gold word on its own (a word of 0 pieces gets none and covers nothing).
 */
export function spansOfLengths(lengths: readonly number[]): Span[] {
  const spans: Span[] = []
  let at = 0
  for (const n of lengths) {
    spans.push([at, at + n - 1])
    at += n
  }
  return spans
}
