/**
 * Language tags and forced first tokens (issue 39 #4): the tokens a multilingual model or a BART
 * puts before the text, on either side (M2M100's __en__, NLLB's eng_Latn, mBART-50's en_XX, a
 * multi-target opus-mt's >>fra<<, BART's <s>). They are what they are, not words: the figures grey
 * them, and the word alignment leaves them out (src/engine/align/attention.ts).
 */
const LANGUAGE_TAG = /^(?:__[a-z]{2,3}(?:_[A-Za-z]+)?__|[a-z]{3}_[A-Z][a-z]{3}|[a-z]{2}_[A-Z]{2}|>>[a-z]{2,3}(?:_[A-Za-z]+)?<<)$/

/** Whether a token is a language tag (by its form: __en__, eng_Latn, en_XX, >>fra<<). */
export const isLanguageTag = (token: string): boolean => LANGUAGE_TAG.test(token)

/** How many of the tokens, from the first, are tags: a language tag or `<s>`, at most two (mBART's `<s>` then `en_XX`). */
export function leadingTags(tokens: readonly string[]): number {
  let n = 0
  while (n < Math.min(2, tokens.length) && (isLanguageTag(tokens[n]) || tokens[n] === '<s>')) n++
  return n
}
