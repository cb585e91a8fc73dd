import type { TokenizerSpec } from './tokenizer'
import { wordSpans } from './tokenizer'

/** An output position whose `<unk>` was replaced by a copied source word. */
export interface Replacement {
  /** The source word copied (its pieces joined). */
  source: string
  /** The source position the step attended to most (a piece of that word). */
  sourceIndex: number
  /** That position's attention weight at the step. */
  attention: number
}

/** The text of the source word made of `pieces`: joiners, WordPiece `##` and SentencePiece `▁` removed. */
function wordText(pieces: string[], spec: TokenizerSpec): string {
  if (spec.type === 'hf') return pieces.map((p, i) => (i > 0 && p.startsWith('##') ? p.slice(2) : p.replace(/^\u2581/, ''))).join('')
  const j = spec.type === 'char' ? undefined : spec.joiner
  return pieces.map((p) => (j && p.endsWith(j) && p.length > j.length ? p.slice(0, -j.length) : p)).join('')
}

/**
 * Luong et al. (2015)'s unknown-word replacement, the rule training/README.md ("Decoding rules
 * shared with the app", rule 4) gives: at each output step whose token is `<unk>`, the source
 * word holding the position with the most attention (the final `</s>` excluded, the first on
 * ties) is copied in its place. `srcTokens` are the source pieces before the vocabulary lookup,
 * `</s>` last, so a source word the model saw as `<unk>` is still copied as written. Without
 * attention rows (the `none` model) nothing can be copied: the entry stays null and the caller
 * drops the word from the text.
 */
export function replaceUnknowns(isUnk: boolean[], attention: number[][], srcTokens: string[], spec: TokenizerSpec): (Replacement | null)[] {
  if (!isUnk.some(Boolean)) return isUnk.map(() => null)
  const pieces = srcTokens.slice(0, -1)
  const spans = wordSpans(pieces, spec)
  const spanOf = new Map<number, number[]>()
  for (const s of spans) for (const i of s) spanOf.set(i, s)
  return isUnk.map((unk, t) => {
    const row = attention[t]
    if (!unk || !row || pieces.length === 0) return null
    let j = 0
    for (let i = 1; i < pieces.length; i++) if (row[i] > row[j]) j = i
    const span = spec.type === 'char' ? [j] : (spanOf.get(j) ?? [j])
    return {
      source: wordText(
        span.map((i) => pieces[i]),
        spec,
      ),
      sourceIndex: j,
      attention: row[j],
    }
  })
}
