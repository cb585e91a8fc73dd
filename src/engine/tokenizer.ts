/**
 * The tokenizer, twin of training/tokenizer.py. test/fixtures/tokenizer-vectors.json (written by
 * Python) pins both to the same tokens.
 */
export interface TokenizerSpec {
  type: 'word' | 'char'
  lowercase: boolean
  capitalize?: boolean
}

// Same classes as Python's `\w+'?|[^\w\s]`: a word keeps a trailing apostrophe (French "l'").
const WORD_RE = /[\p{L}\p{N}_]+'?|[^\p{L}\p{N}_\s]/gu
const APOSTROPHES = /[\u2019\u2018\u02bc]/g
const NO_SPACE_BEFORE = new Set('.,!?;:)]}%')
const NO_SPACE_AFTER = new Set('([{')

export function normalize(text: string, spec: TokenizerSpec): string {
  const t = text.normalize('NFKC').replace(APOSTROPHES, "'")
  return spec.lowercase ? t.toLowerCase() : t
}

export function tokenize(text: string, spec: TokenizerSpec): string[] {
  const t = normalize(text, spec)
  if (spec.type === 'char') return Array.from(t).filter((c) => !/\s/u.test(c))
  return t.match(WORD_RE) ?? []
}

export function detokenize(tokens: string[], spec: TokenizerSpec): string {
  if (spec.type === 'char') return tokens.join('')
  let out = ''
  for (const tok of tokens) {
    const glue =
      out === '' || out.endsWith("'") || NO_SPACE_AFTER.has(out.at(-1)!) || NO_SPACE_BEFORE.has(tok[0])
    out += glue ? tok : ' ' + tok
  }
  if (spec.capitalize && out) out = out[0].toUpperCase() + out.slice(1)
  return out
}
