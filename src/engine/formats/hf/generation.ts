import { MAX_GUARD_SETTING } from '../../../shared/repeat-guard'
import type { DecodingRules } from '../../contract'

type Json = Record<string, unknown>

/** transformers' GenerationConfig default max_length, where neither generation_config.json nor config.json sets one. */
export const TRANSFORMERS_MAX_LENGTH = 20

const int = (...xs: unknown[]): number | null => {
  for (const x of xs) {
    const v = Array.isArray(x) ? x[0] : x
    if (typeof v === 'number' && Number.isInteger(v)) return v
  }
  return null
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null)

/**
 * The decoding rules of a folder's generation_config.json (`from`; config.json where the folder
 * has none, as transformers reads a model without one), as generate() applies them with num_beams and
 * do_sample as asked: forced_bos_token_id (or the target language token, `forcedFirst`),
 * forced_eos_token_id, max_new_tokens or max_length (default 20), min_length,
 * no_repeat_ngram_size and repetition_penalty.
 */
export function decodingRules(from: Json, forcedFirst: number | null): DecodingRules {
  const maxNew = int(from.max_new_tokens)
  const maxLength = int(from.max_length) ?? TRANSFORMERS_MAX_LENGTH
  const penalty = num(from.repetition_penalty) ?? 1
  return {
    forcedFirst: forcedFirst ?? int(from.forced_bos_token_id),
    forcedEos: int(from.forced_eos_token_id),
    // max_length counts the decoder start token; max_new_tokens, where set, wins (as in generate()).
    maxNewTokens: maxNew !== null && maxNew > 0 ? maxNew : Math.max(1, maxLength - 1),
    minLength: Math.max(0, int(from.min_length) ?? 0),
    repetitionPenalty: penalty > 0 ? penalty : 1,
    guard: { noRepeatNgram: Math.min(MAX_GUARD_SETTING, Math.max(0, int(from.no_repeat_ngram_size) ?? 0)), maxRepeat: 0 },
  }
}
