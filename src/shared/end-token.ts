import type { Translation } from './api'

/** Where one model's end token stands when outputs of several models are compared. */
export const END_MARK = '\u0000end'

/**
 * A translation's output tokens for comparing with another model's: the end token of each model
 * (`</s>` for one, `[SEP]` for another) becomes one shared mark, so it never counts as a
 * difference. A decode stops at its end token or after 2·S + 10 steps (docs/model-format.md,
 * "Decoding"), so a shorter output ended on its end token; one of full length did if its last
 * token is the model's end piece, which the source carries last.
 */
export function comparableTokens(t: Pick<Translation, 'tgtTokens' | 'srcTokens'>): string[] {
  const n = t.tgtTokens.length
  if (n === 0) return []
  const ended = n < 2 * t.srcTokens.length + 10 || t.tgtTokens[n - 1] === t.srcTokens.at(-1)
  return ended ? [...t.tgtTokens.slice(0, -1), END_MARK] : t.tgtTokens
}
