import { createRequire } from 'node:module'

/**
 * Chinese words for the `jieba` tokenizer: jieba-rs (npm's jieba-wasm, the Rust port of jieba with
 * the same dictionary) cutting with its dictionary alone, hmm = false, as training/attention_lens/tokenizer.py's
 * jieba_words calls Python's jieba 0.42.1. With the HMM pass on, the two cut 2 of the corpus's
 * 25,524 Chinese sentences differently; without it they cut all of them the same
 * (test/fixtures/jieba-tokenizer-vectors.json). Loaded on first use: the module compiles a 4 MB
 * WebAssembly file, which only a model with this tokenizer needs.
 */
type Cut = (text: string, hmm?: boolean | null) => string[]

let cut: Cut | undefined

function loadCut(): Cut {
  const req = createRequire(typeof __filename === 'string' ? __filename : import.meta.url)
  return (req('jieba-wasm') as { cut: Cut }).cut
}

// Python's str.isspace() characters (as in words.ts): jieba gives each whitespace run its own token.
// eslint-disable-next-line no-control-regex -- the same whitespace set as words.ts (Python str.isspace)
const ALL_SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u

/** Normalized text → jieba's words, whitespace tokens dropped. */
export function jiebaWords(text: string): string[] {
  cut ??= loadCut()
  return cut(text, false).filter((w) => w !== '' && !ALL_SPACE.test(w))
}

const asciiWordChar = (c: string | undefined): boolean => c !== undefined && /^[A-Za-z0-9]$/u.test(c)

/** Pieces back to text: a word's pieces joined, words written without spaces (Chinese), except
 * one space between two ASCII letters or digits (training/attention_lens/tokenizer.py's detokenize). */
export function detokenizeJieba(tokens: string[], joiner: string): string {
  const words = tokens
    .map((t) => (t.endsWith(joiner) && t.length > joiner.length ? t.slice(0, -joiner.length) : t + ' '))
    .join('')
    .split(' ')
    .filter((w) => w !== '')
  let out = ''
  for (const w of words) out += out && asciiWordChar(out.at(-1)) && asciiWordChar(w[0]) ? ' ' + w : w
  return out
}
