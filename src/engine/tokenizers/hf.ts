import { Tokenizer } from '@huggingface/tokenizers'
import { TokenizerSpecError, type HfSpec } from './spec'
import { useUnigramPrefixSet } from './unigram-prefixes'

/**
 * A Hugging Face tokenizer.json (BPE, Unigram/SentencePiece, WordPiece) run by
 * @huggingface/tokenizers, the pure-JS library transformers.js uses. The app takes its pieces
 * (strings) and maps them to ids through the model's own vocabulary like every other tokenizer's;
 * the tokenizer's ids are used only to decode.
 */
export const HF_MODEL_TYPES = ['BPE', 'Unigram', 'WordPiece'] as const

const loaded = new WeakMap<object, Tokenizer>()

function firstLine(e: unknown): string {
  const line = (e instanceof Error ? e.message : String(e)).split('\n')[0].trim()
  return line.length > 80 ? line.slice(0, 80) + '…' : line
}

/** Builds the tokenizer once per spec (and checks it runs), or throws TokenizerSpecError. */
export function hfTokenizer(spec: HfSpec): Tokenizer {
  let tok = loaded.get(spec.json)
  if (tok) return tok
  const type = (spec.json.model as { type?: unknown }).type
  if (!(HF_MODEL_TYPES as readonly unknown[]).includes(type)) {
    throw new TokenizerSpecError(`is a tokenizer.json whose model type ${JSON.stringify(type ?? null)?.slice(0, 40)} is not ${HF_MODEL_TYPES.join(', ')}`)
  }
  useUnigramPrefixSet()
  try {
    // Without a config, decoding keeps spaces as the pieces say: the text must round-trip.
    tok = new Tokenizer(spec.json, { clean_up_tokenization_spaces: false, ...spec.config })
    tok.tokenize('Attention Lens 1-2, déjà vu.')
  } catch (e) {
    throw new TokenizerSpecError(`is a tokenizer.json that @huggingface/tokenizers cannot run (${firstLine(e)})`)
  }
  loaded.set(spec.json, tok)
  return tok
}

export function tokenizeHf(text: string, spec: HfSpec): string[] {
  return hfTokenizer(spec).tokenize(text)
}

export function normalizeHf(text: string, spec: HfSpec): string {
  const tok = hfTokenizer(spec)
  return tok.normalizer ? tok.normalizer(text) : text
}

/** Pieces back to text with the tokenizer's decoder; special tokens (and pieces the tokenizer
 * does not know, such as a model's own `<pad>`) write nothing. */
export function detokenizeHf(tokens: string[], spec: HfSpec): string {
  const tok = hfTokenizer(spec)
  const ids = tokens.flatMap((t) => tok.token_to_id(t) ?? [])
  return ids.length ? tok.decode(ids, { skip_special_tokens: true }) : ''
}

/** Every piece the tokenizer can make, for comparing with a model's vocabulary. */
export function hfPieces(spec: HfSpec): string[] {
  return [...hfTokenizer(spec).get_vocab(true).keys()]
}
