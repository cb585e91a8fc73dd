import type { BpeSpec, CharSpec, JiebaSpec, WordSpec } from './spec'

/**
 * The word and char tokenizers and the units BPE splits further: the twin of
 * training/attention_lens/tokenizer.py, character class for character class (Python's `str.split()` and `\s`
 * whitespace, `\w` as letters, numbers and `_`), so both sides make the same tokens.
 */
const SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const SPACE_RUN = new RegExp(`[${SPACE}]+`, 'u')
const IS_SPACE = new RegExp(`^[${SPACE}]$`, 'u')
// Python's `\w+'?|[^\w\s]`: a word keeps a trailing apostrophe (French "l'").
const WORD_RE = new RegExp(`[\\p{L}\\p{N}_]+'?|[^\\p{L}\\p{N}_${SPACE}]`, 'gu')
const APOSTROPHES = /[\u2019\u2018\u02bc]/g
const NO_SPACE_BEFORE = new Set('.,!?;:)]}%')
const NO_SPACE_AFTER = new Set('([{')
/** What a char tokenizer with keep_spaces writes for a run of spaces. */
export const SPACE_TOKEN = '\u2581'

type Plain = WordSpec | CharSpec | BpeSpec | JiebaSpec

export function normalizeText(text: string, spec: Plain): string {
  const t = text.normalize('NFKC').replace(APOSTROPHES, "'")
  return spec.lowercase !== false ? t.toLowerCase() : t
}

/** Python's `str.split()`: no empty strings. */
const words = (text: string): string[] => text.split(SPACE_RUN).filter((w) => w !== '')

/** True where detokenizing writes no space between two units without being told. */
const implicitGlue = (prev: string, next: string): boolean => NO_SPACE_AFTER.has(prev.at(-1)!) || NO_SPACE_BEFORE.has(next[0])

/** Normalized text → [unit, joined]: `joined` = written against the next unit although the
 * implicit rule would put a space between them. */
export function units(text: string): [string, boolean][] {
  const out: [string, boolean][] = []
  for (const chunk of words(text)) {
    const us = chunk.match(WORD_RE) ?? []
    us.forEach((u, i) => out.push([u, i + 1 < us.length && !implicitGlue(u, us[i + 1])]))
  }
  return out
}

export function tokenizeChar(text: string, spec: CharSpec): string[] {
  if (spec.keep_spaces) return Array.from(words(text).join(' '), (c) => (c === ' ' ? SPACE_TOKEN : c))
  return Array.from(text).filter((c) => !IS_SPACE.test(c))
}

export function tokenizeWord(text: string, spec: WordSpec): string[] {
  if (spec.joiner === undefined) return text.match(WORD_RE) ?? []
  const j = spec.joiner
  return units(text).map(([u, joined]) => (joined ? u + j : u))
}

export function detokenizeChar(tokens: string[], spec: CharSpec): string {
  const s = tokens.join('')
  return spec.keep_spaces ? s.replaceAll(SPACE_TOKEN, ' ') : s
}

/** Word and BPE pieces back to text: a piece ending in the joiner is glued to the next one. */
export function detokenizeWords(tokens: string[], spec: WordSpec | BpeSpec): string {
  const j = spec.joiner
  let out = ''
  let glueNext = true
  for (const tok of tokens) {
    const joined = !!j && tok.endsWith(j) && tok.length > j.length
    const text = joined ? tok.slice(0, -j.length) : tok
    if (!text) continue
    const glue = glueNext || out === '' || (!j && out.endsWith("'")) || NO_SPACE_AFTER.has(out.at(-1)!) || NO_SPACE_BEFORE.has(text[0])
    out += glue ? text : ' ' + text
    glueNext = joined
  }
  if (spec.capitalize && out) {
    const n = out.codePointAt(0)! > 0xffff ? 2 : 1 // Python's out[0] is a code point
    out = out.slice(0, n).toUpperCase() + out.slice(n)
  }
  return out
}
