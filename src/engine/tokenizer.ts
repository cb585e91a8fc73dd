/**
 * The tokenizers of the model contract (docs/model-format.md, "Tokenizers"): `word`, `char`,
 * `bpe` and `jieba`, twins of training/attention_lens/tokenizer.py (pinned by test/fixtures/tokenizer-vectors.json,
 * bpe-tokenizer-vectors.json and jieba-tokenizer-vectors.json, written by Python), and `hf`, a Hugging Face tokenizer.json run by
 * @huggingface/tokenizers (pinned by test/fixtures/spm-vectors.json, written by SentencePiece).
 * Every tokenizer turns text into pieces (strings); the engine maps pieces to ids through the
 * model's vocabulary.
 */
import { tokenizeBpe } from './tokenizers/bpe'
import { detokenizeJieba } from './tokenizers/jieba'
import { detokenizeHf, hfPieces, hfTokenizer, normalizeHf, tokenizeHf } from './tokenizers/hf'
import { parseSpec, type TokenizerSpec } from './tokenizers/spec'
import { detokenizeChar, detokenizeWords, normalizeText, tokenizeChar, tokenizeWord } from './tokenizers/words'

export type { BpeSpec, CharSpec, HfSpec, JiebaSpec, TokenizerSpec, WordSpec } from './tokenizers/spec'
export { TokenizerSpecError } from './tokenizers/spec'
export { SPACE_TOKEN } from './tokenizers/words'

/** The spec of a tokenizer key's parsed JSON, a tokenizer.json already loaded and run once; or
 * TokenizerSpecError saying what is wrong, as the end of a sentence naming the key. */
export function parseTokenizerSpec(raw: unknown): TokenizerSpec {
  const spec = parseSpec(raw)
  if (spec.type === 'hf') hfTokenizer(spec)
  return spec
}

export function normalize(text: string, spec: TokenizerSpec): string {
  return spec.type === 'hf' ? normalizeHf(text, spec) : normalizeText(text, spec)
}

export function tokenize(text: string, spec: TokenizerSpec): string[] {
  if (spec.type === 'hf') return tokenizeHf(text, spec)
  const t = normalizeText(text, spec)
  if (spec.type === 'char') return tokenizeChar(t, spec)
  if (spec.type === 'bpe' || spec.type === 'jieba') return tokenizeBpe(t, spec)
  return tokenizeWord(t, spec)
}

export function detokenize(tokens: string[], spec: TokenizerSpec): string {
  if (spec.type === 'hf') return detokenizeHf(tokens, spec)
  if (spec.type === 'char') return detokenizeChar(tokens, spec)
  if (spec.type === 'jieba') return detokenizeJieba(tokens, spec.joiner)
  return detokenizeWords(tokens, spec)
}

/** Every piece a tokenizer.json can make (its vocabulary and added tokens), for comparing with
 * the model's vocabulary; null for the other types, whose pieces are not listed anywhere. */
export function tokenizerPieces(spec: TokenizerSpec): string[] | null {
  return spec.type === 'hf' ? hfPieces(spec) : null
}

/**
 * Token positions grouped into words (Python's word_spans, for copying a whole source word):
 * a piece ending in the joiner belongs with the next one; for a tokenizer.json, a piece that
 * starts with WordPiece's "##", or lacks SentencePiece's "▁" when the others have it, belongs
 * with the previous one. Other tokenizers: one token, one word.
 */
export function wordSpans(tokens: string[], spec: TokenizerSpec): number[][] {
  const spans: number[][] = []
  if (spec.type === 'hf') {
    const sp = tokens.some((t) => t.startsWith('\u2581'))
    tokens.forEach((t, i) => {
      const continues = i > 0 && (t.startsWith('##') || (sp && !t.startsWith('\u2581')))
      if (continues) spans.at(-1)!.push(i)
      else spans.push([i])
    })
    return spans
  }
  const j = spec.type === 'char' ? undefined : spec.joiner
  if (j === undefined) return tokens.map((_, i) => [i])
  let cur: number[] = []
  tokens.forEach((t, i) => {
    cur.push(i)
    if (!t.endsWith(j)) {
      spans.push(cur)
      cur = []
    }
  })
  if (cur.length) spans.push(cur)
  return spans
}
