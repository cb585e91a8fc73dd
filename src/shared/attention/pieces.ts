import { wordSpans } from './words'

/**
 * Groups of tokens that form one word (words as `wordSpans` finds them: subword-nmt's trailing
 * "@@", SentencePiece's leading "▁", WordPiece's leading "##"): the [first, last] index ranges of
 * the words with more than one piece, which the heatmap brackets.
 */
export function pieceGroups(tokens: string[]): [number, number][] {
  return wordSpans(tokens).filter(([a, b]) => b > a)
}
