import type { Translation } from './api'

/**
 * Whether a translation covers only part of its input, and why:
 * - `cut`: the source was cut to its first MAX_SOURCE_TOKENS tokens before decoding (`truncated`);
 * - `limit`: the decoder reached its step limit (2·S + 10, or a Transformer's `al.max_target`)
 *   without writing its end token, so the output is cut wherever the limit fell;
 * - `stopped`: the decoder ended on its end token with an output under a third as long as a long
 *   source (LONG_SOURCE tokens or more): the models here learned from sentences, and on a
 *   paragraph they write `</s>` after the first clause or two and leave the rest untranslated.
 * Tokens are counted without the end tokens. Null when neither holds.
 */
export type Partial = { kind: 'cut'; tokens: number } | { kind: 'limit'; output: number } | { kind: 'stopped'; output: number; source: number }

/** A source this long (tokens, its end token left out) is past any sentence the bundled models learned from. */
export const LONG_SOURCE = 40
/** An output under this share of the source's tokens leaves most of a long source untranslated. */
export const SHORT_RATIO = 1 / 3

export function partialTranslation(t: Pick<Translation, 'truncated' | 'srcTokens' | 'tgtTokens'>): Partial | null {
  const source = Math.max(0, t.srcTokens.length - 1)
  if (t.truncated) return { kind: 'cut', tokens: source }
  const end = t.srcTokens.at(-1)
  const ended = t.tgtTokens.at(-1) === end
  const output = t.tgtTokens.length - (ended ? 1 : 0)
  if (!ended && output > 0) return { kind: 'limit', output }
  if (source >= LONG_SOURCE && output < source * SHORT_RATIO) return { kind: 'stopped', output, source }
  return null
}
