import { describe, expect, it } from 'vitest'
import { differing } from '../../../src/shared/differing'
import { comparableTokens } from '../../../src/shared/end-token'

const src = ['a', 'dog', 'runs', '</s>']

describe('comparing outputs of models with different end tokens', () => {
  it("does not mark [SEP] as different from </s> when each is its model's end token", () => {
    const a = { srcTokens: src, tgtTokens: ['un', 'chien', 'court', '</s>'] }
    const b = { srcTokens: ['a', 'dog', 'runs', '[SEP]'], tgtTokens: ['un', 'chien', 'court', '[SEP]'] }
    expect(differing(comparableTokens(b), comparableTokens(a))).toEqual([false, false, false, false])
    // The raw tokens would differ at the end: the mark is what makes them equal.
    expect(differing(b.tgtTokens, a.tgtTokens)).toEqual([false, false, false, true])
  })

  it('still marks real differences, and an output cut at the length limit keeps its last token', () => {
    const a = { srcTokens: src, tgtTokens: ['un', 'chat', '</s>'] }
    const b = { srcTokens: src, tgtTokens: ['un', 'chien', '[SEP]'] }
    expect(differing(comparableTokens(b), comparableTokens(a))).toEqual([false, true, false])
    // 2·S + 10 = 18 steps without reaching the end token: the last token is a word, not an end.
    const cut = { srcTokens: src, tgtTokens: Array.from({ length: 18 }, (_, i) => `w${i}`) }
    expect(comparableTokens(cut)).toEqual(cut.tgtTokens)
    const endedAtLimit = { srcTokens: src, tgtTokens: [...cut.tgtTokens.slice(0, 17), '</s>'] }
    expect(comparableTokens(endedAtLimit).at(-1)).toBe(comparableTokens(b).at(-1))
  })
})
