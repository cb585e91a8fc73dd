/**
 * The decoding guards against runaway loops ("dédédédé…", issue 35), on target pieces (the
 * decoder's own tokens), within and across words:
 *
 * - `noRepeatNgram` n: no n-gram twice in the output, as Hugging Face's `no_repeat_ngram_size`
 *   (NoRepeatNGramLogitsProcessor) defines it: at each step, a token that would complete an n-gram
 *   already present in the tokens generated so far is banned. n = 1 bans every token already
 *   written. HF's sequence also holds the decoder's start token; that token is never generated,
 *   so no n-gram through it can recur and leaving it out bans the same tokens.
 * - `maxRepeat` r: no piece more than r times in a row: after r copies of a piece, the next one
 *   is banned.
 *
 * 0 turns either off. A banned token is skipped as if its score were −∞; the token taken keeps
 * the model's own log-probability (not renormalised, as in HF's beam search, which applies the
 * processor after the log-softmax). Forced decoding is never guarded.
 */
export interface RepeatGuard {
  noRepeatNgram: number
  maxRepeat: number
}

/** The app's and the CLI's defaults. */
export const DEFAULT_REPEAT_GUARD: Readonly<RepeatGuard> = Object.freeze({ noRepeatNgram: 3, maxRepeat: 3 })
/** Both off: the model's own greedy or beam output (parity with PyTorch, `eval --raw`). */
export const NO_REPEAT_GUARD: Readonly<RepeatGuard> = Object.freeze({ noRepeatNgram: 0, maxRepeat: 0 })
/** The largest setting either takes (the route schemas and the CLI check it). */
export const MAX_GUARD_SETTING = 20

/**
 * The guard of some options: each setting given, or its default: the app's (DEFAULT_REPEAT_GUARD),
 * or the model's own where it has one (a Hugging Face folder decodes as its generation_config.json
 * says: no guard unless it sets no_repeat_ngram_size).
 */
export function guardOf(o: { noRepeatNgram?: number; maxRepeat?: number } = {}, defaults: Readonly<RepeatGuard> = DEFAULT_REPEAT_GUARD): RepeatGuard {
  return { noRepeatNgram: o.noRepeatNgram ?? defaults.noRepeatNgram, maxRepeat: o.maxRepeat ?? defaults.maxRepeat }
}

export const guardOn = (g: RepeatGuard): boolean => g.noRepeatNgram > 0 || g.maxRepeat > 0

/** A setting is a whole number from 0 (off) to MAX_GUARD_SETTING. */
export const validSetting = (x: number): boolean => Number.isInteger(x) && x >= 0 && x <= MAX_GUARD_SETTING

const NONE: ReadonlySet<number> = new Set()

/**
 * The tokens the guard bans as the next one after `history` (the tokens generated so far, the
 * start token left out; only its first L where L is given). Every n-gram window whose first n − 1 tokens equal the last n − 1 of the
 * history bans its last token (HF's rule); r copies of one piece at the end ban that piece.
 */
export function bannedTokens(history: readonly number[], guard: RepeatGuard, L = history.length): ReadonlySet<number> {
  const n = guard.noRepeatNgram
  const r = guard.maxRepeat
  let out: Set<number> | null = null
  if (n > 0 && L >= n) {
    const start = L - n + 1
    for (let i = 0; i + n <= L; i++) {
      let match = true
      for (let j = 0; j < n - 1 && match; j++) match = history[i + j] === history[start + j]
      if (match) (out ??= new Set()).add(history[i + n - 1])
    }
  }
  if (r > 0 && L >= r) {
    const last = history[L - 1]
    let run = 1
    while (run < r && history[L - 1 - run] === last) run++
    if (run >= r) (out ??= new Set()).add(last)
  }
  return out ?? NONE
}

/**
 * The first step of `tokens` whose token the guard bans after the ones before it, or −1: an output
 * with none is exactly what the guarded greedy decoder writes too (it only ever departs from the
 * model's own choice where that choice is banned).
 */
export function firstBanned(tokens: readonly number[], guard: RepeatGuard): number {
  if (!guardOn(guard)) return -1
  for (let t = 1; t < tokens.length; t++) if (bannedTokens(tokens, guard, t).has(tokens[t])) return t
  return -1
}

/** The rank of the first of `ranked` (best first) the guard lets through; −1 when it bans them all. */
export function firstAllowed(ranked: readonly number[], banned: ReadonlySet<number>): number {
  if (banned.size === 0) return ranked.length ? 0 : -1
  return ranked.findIndex((id) => !banned.has(id))
}
