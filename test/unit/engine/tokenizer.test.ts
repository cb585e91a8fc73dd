import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detokenize, tokenize, type TokenizerSpec } from '../../../src/engine/tokenizer'
import { ROOT } from '../../helpers'

interface Case {
  pair: string
  side: string
  spec: TokenizerSpec
  text?: string
  tokens?: string[]
  detok?: string
}

const cases = (JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tokenizer-vectors.json'), 'utf8')) as Case[]).filter(
  (c) => c.text !== undefined,
)

describe('tokenizer matches the Python training tokenizer', () => {
  it('has vectors for both pairs and both sides', () => {
    expect(new Set(cases.map((c) => `${c.pair}/${c.side}`))).toEqual(new Set(['en-fr/src', 'en-fr/tgt', 'zh-en/src', 'zh-en/tgt']))
    expect(cases.length).toBeGreaterThan(200)
  })
  it.each(cases.map((c) => [c.pair, c.side, c.text!, c] as const))('%s %s: %j', (_p, _s, text, c) => {
    expect(tokenize(text, c.spec)).toEqual(c.tokens)
    expect(detokenize(c.tokens!, c.spec)).toBe(c.detok)
  })
})
