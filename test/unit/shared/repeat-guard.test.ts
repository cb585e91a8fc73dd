import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  bannedTokens,
  DEFAULT_REPEAT_GUARD,
  firstAllowed,
  firstBanned,
  guardOf,
  guardOn,
  NO_REPEAT_GUARD,
  type RepeatGuard,
} from '../../../src/shared/repeat-guard'
import { ROOT } from '../../helpers'

/** Hugging Face transformers' own NoRepeatNGramLogitsProcessor, recorded by test/fixtures/repeat-guard/make_hf_cases.py. */
const HF = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/repeat-guard/hf-no-repeat-ngram.json'), 'utf8')) as {
  transformers: string
  vocab: number
  banned: { n: number; input_ids: number[][]; banned: number[][] }[]
  greedy: { n: number; table: (number | null)[][]; start: number; eos: number; max_len: number; raw: number[]; guarded: number[] }[]
}

const ngram = (n: number): RepeatGuard => ({ noRepeatNgram: n, maxRepeat: 0 })
const sorted = (s: ReadonlySet<number>) => [...s].sort((a, b) => a - b)

/**
 * Greedy decoding of HF's toy bigram "model" as the engine's decoders do it: rank the tokens that
 * can be generated (not the start token) best first, the lower id first on ties, and take the
 * first the guard lets through (firstAllowed over bannedTokens of the history without the start).
 */
function toyGreedy(c: (typeof HF.greedy)[number], guard: RepeatGuard): number[] {
  const out: number[] = []
  let last = c.start
  while (out.length < c.max_len) {
    const row = c.table[last]
    const ranked = row
      .map((x, id) => ({ x: x ?? -Infinity, id }))
      .filter(({ id }) => id !== c.start)
      .sort((a, b) => b.x - a.x || a.id - b.id)
      .map(({ id }) => id)
    const token = ranked[Math.max(0, firstAllowed(ranked, bannedTokens(out, guard)))]
    out.push(token)
    last = token
    if (token === c.eos) break
  }
  return out
}

describe("no_repeat_ngram_size as Hugging Face defines it (transformers' NoRepeatNGramLogitsProcessor)", () => {
  it('the record is three cases of each kind', () => {
    expect(HF.banned.map((c) => c.n)).toEqual([2, 3, 4])
    expect(HF.greedy.map((c) => c.n)).toEqual([2, 3, 4])
  })

  it.each(HF.banned)('n = $n: the tokens banned after each sequence are the ones HF sets to −∞', (c) => {
    c.input_ids.forEach((row, i) => expect(sorted(bannedTokens(row, ngram(c.n)))).toEqual(c.banned[i]))
  })

  it.each(HF.greedy)('n = $n: greedy decoding of a looping toy model writes what HF writes, with and without the guard', (c) => {
    // The toy model loops without the guard ("a b a b …"), and the guard breaks the loop.
    expect(new Set(c.raw.slice(-6)).size).toBeLessThanOrEqual(2)
    expect(c.guarded).not.toEqual(c.raw)
    expect(toyGreedy(c, NO_REPEAT_GUARD)).toEqual(c.raw)
    expect(toyGreedy(c, ngram(c.n))).toEqual(c.guarded)
    // HF's guarded output has no n-gram twice: firstBanned finds none, and finds the raw loop's.
    expect(firstBanned(c.guarded, ngram(c.n))).toBe(-1)
    expect(firstBanned(c.raw, ngram(c.n))).toBeGreaterThan(0)
  })

  it('n = 1 bans every token written so far; nothing is banned before a whole n-gram is written', () => {
    expect(sorted(bannedTokens([5, 3, 5], ngram(1)))).toEqual([3, 5])
    expect(bannedTokens([5, 5], ngram(3)).size).toBe(0)
    expect(sorted(bannedTokens([5, 5, 5], ngram(3)))).toEqual([5])
    expect(bannedTokens([], DEFAULT_REPEAT_GUARD).size).toBe(0)
  })
})

describe('the cap on a piece repeated in a row', () => {
  const cap = (r: number): RepeatGuard => ({ noRepeatNgram: 0, maxRepeat: r })
  it('"dé dé dé": a fourth consecutive copy is blocked, a third is not', () => {
    const de = 7
    expect(bannedTokens([de, de], cap(3)).size).toBe(0)
    expect(sorted(bannedTokens([de, de, de], cap(3)))).toEqual([de])
    expect(bannedTokens([de, 4, de, de], cap(3)).size).toBe(0)
    expect(sorted(bannedTokens([4, de, de, de], cap(3)))).toEqual([de])
    expect(sorted(bannedTokens([de], cap(1)))).toEqual([de])
    expect(firstBanned([de, de, de, de, de], cap(3))).toBe(3)
  })

  it('both together ban the union', () => {
    // After "1 2 1 2" the 3-gram "1 2 1" would recur; after "9 9 9" a fourth 9 is capped.
    expect(sorted(bannedTokens([1, 2, 1, 2], DEFAULT_REPEAT_GUARD))).toEqual([1])
    expect(sorted(bannedTokens([3, 4, 9, 9, 9], { noRepeatNgram: 4, maxRepeat: 3 }))).toEqual([9])
  })
})

describe('settings', () => {
  it('default on (3, 3), 0 turns one off, firstAllowed skips banned ranks', () => {
    expect(guardOf()).toEqual({ noRepeatNgram: 3, maxRepeat: 3 })
    expect(guardOf({ noRepeatNgram: 0 })).toEqual({ noRepeatNgram: 0, maxRepeat: 3 })
    expect(guardOn(NO_REPEAT_GUARD)).toBe(false)
    expect(guardOn(guardOf({ noRepeatNgram: 0 }))).toBe(true)
    expect(firstAllowed([4, 2, 9], new Set([4, 2]))).toBe(2)
    expect(firstAllowed([4, 2], new Set([4, 2]))).toBe(-1)
    expect(firstAllowed([4, 2], new Set())).toBe(0)
  })
})
