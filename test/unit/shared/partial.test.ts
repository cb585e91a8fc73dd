import { describe, expect, it } from 'vitest'
import { LONG_SOURCE, partialTranslation } from '../../../src/shared/partial'

const src = (n: number) => [...Array.from({ length: n }, (_, i) => `w${i}`), '</s>']
const tgt = (n: number) => [...Array.from({ length: n }, (_, i) => `m${i}`), '</s>']

describe('a translation of only part of its input', () => {
  it('the source cut before decoding', () => {
    expect(partialTranslation({ truncated: true, srcTokens: src(200), tgtTokens: tgt(180) })).toEqual({ kind: 'cut', tokens: 200 })
  })

  it('a long source the model stopped early on: 13 tokens for 194', () => {
    expect(partialTranslation({ truncated: false, srcTokens: src(194), tgtTokens: tgt(13) })).toEqual({ kind: 'stopped', output: 13, source: 194 })
  })

  it('an output cut at the step limit, with no end token', () => {
    expect(partialTranslation({ truncated: false, srcTokens: src(150), tgtTokens: tgt(64).slice(0, -1) })).toEqual({ kind: 'limit', output: 64 })
  })

  it('a sentence, or a long source translated whole, is not partial', () => {
    expect(partialTranslation({ truncated: false, srcTokens: src(12), tgtTokens: tgt(2) })).toBeNull()
    expect(partialTranslation({ truncated: false, srcTokens: src(LONG_SOURCE), tgtTokens: tgt(LONG_SOURCE) })).toBeNull()
    expect(partialTranslation({ truncated: false, srcTokens: src(90), tgtTokens: tgt(40) })).toBeNull()
  })
})
