/**
 * The tokenizer spec of `al.src_tokenizer` / `al.tgt_tokenizer` (docs/model-format.md,
 * "Tokenizers"). Field names are the JSON's, so a spec read from a file or a test fixture is used
 * as it is.
 */
export interface WordSpec {
  type: 'word'
  lowercase: boolean
  capitalize?: boolean
  /** With a joiner, a unit written against the next one carries it (`t@@ -@@ shirt`). */
  joiner?: string
}

export interface CharSpec {
  type: 'char'
  lowercase: boolean
  capitalize?: boolean
  /** Keep each run of spaces as one visible `▁` token (character-level targets need them). */
  keep_spaces?: boolean
}

export interface BpeSpec {
  type: 'bpe'
  lowercase: boolean
  capitalize?: boolean
  joiner: string
  /** Merges by rank, each "left right"; the last symbol of a unit carries the suffix. */
  merges: string[]
  end_of_word_suffix?: string
}

/** Chinese words as jieba cuts them (dictionary only, no HMM), each split by BPE merges as a
 * `bpe` unit that is never joined: a word the merges leave in pieces is `高@@ 兴`. */
export interface JiebaSpec {
  type: 'jieba'
  lowercase: boolean
  capitalize?: boolean
  joiner: string
  merges: string[]
  end_of_word_suffix?: string
}

/** A Hugging Face tokenizer.json, run by @huggingface/tokenizers. */
export interface HfSpec {
  type: 'hf'
  json: Record<string, unknown>
  /** tokenizer_config.json's fields, if the exporter kept any (clean_up_tokenization_spaces…). */
  config?: Record<string, unknown>
}

export type TokenizerSpec = WordSpec | CharSpec | BpeSpec | JiebaSpec | HfSpec

export const TOKENIZER_TYPES = ['word', 'char', 'bpe', 'jieba', 'hf'] as const

/** What is wrong with a spec, as the end of a sentence that names the metadata key. */
export class TokenizerSpecError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function flag(t: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = t[key]
  if (v === undefined) return fallback
  if (typeof v !== 'boolean') throw new TokenizerSpecError(`has "${key}" that is not true or false`)
  return v
}

function joiner(t: Record<string, unknown>): string | undefined {
  const j = t.joiner
  if (j === undefined) return undefined
  if (typeof j !== 'string' || j === '' || /\s/u.test(j)) throw new TokenizerSpecError('has a "joiner" that is not a non-empty string without spaces')
  return j
}

/** Turns the parsed JSON of a tokenizer key into a spec, or throws TokenizerSpecError. */
export function parseSpec(raw: unknown): TokenizerSpec {
  if (!isObject(raw) || !(TOKENIZER_TYPES as readonly unknown[]).includes(raw.type)) {
    throw new TokenizerSpecError(`has no type ${TOKENIZER_TYPES.map((t) => `"${t}"`).join(', ')}`)
  }
  if (raw.type === 'hf') return hfSpec(raw)
  const base = { lowercase: flag(raw, 'lowercase', true), capitalize: flag(raw, 'capitalize', false) }
  if (raw.type === 'char') return { type: 'char', ...base, keep_spaces: flag(raw, 'keep_spaces', false) }
  const j = joiner(raw)
  if (raw.type === 'word') return j === undefined ? { type: 'word', ...base } : { type: 'word', ...base, joiner: j }
  const merges = raw.merges
  if (!Array.isArray(merges) || !merges.every((m) => typeof m === 'string' && /^[^ ]+ [^ ]+$/u.test(m))) {
    throw new TokenizerSpecError('has "merges" that are not a list of "left right" strings')
  }
  const eow = raw.end_of_word_suffix ?? '</w>'
  if (typeof eow !== 'string' || eow === '') throw new TokenizerSpecError('has an "end_of_word_suffix" that is not a non-empty string')
  return { type: raw.type === 'jieba' ? 'jieba' : 'bpe', ...base, joiner: j ?? '@@', merges: merges as string[], end_of_word_suffix: eow }
}

function hfSpec(raw: Record<string, unknown>): HfSpec {
  let json = raw.json
  if (typeof json === 'string') {
    try {
      json = JSON.parse(json)
    } catch {
      throw new TokenizerSpecError('has a "json" string that is not valid JSON')
    }
  }
  if (!isObject(json) || !isObject(json.model)) throw new TokenizerSpecError('has no "json" holding a tokenizer.json object with a "model"')
  const config = raw.config ?? {}
  if (!isObject(config)) throw new TokenizerSpecError('has a "config" that is not an object')
  return { type: 'hf', json, config }
}
