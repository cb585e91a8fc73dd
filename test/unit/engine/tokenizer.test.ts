import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detokenize, tokenize, wordSpans, type TokenizerSpec } from '../../../src/engine/tokenizer'
import { ROOT } from '../../helpers'

interface Case {
  pair: string
  side: string
  spec: TokenizerSpec
  text?: string
  tokens?: string[]
  detok?: string
}

const cases = (JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tokenizer-vectors.json'), 'utf8')) as Case[]).filter((c) => c.text !== undefined)

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

describe('char tokenizer with keep_spaces (character-level targets)', () => {
  const spec: TokenizerSpec = { type: 'char', lowercase: false, keep_spaces: true }
  const lines = readFileSync(join(ROOT, 'test/fixtures/multi30k-test-50.fr'), 'utf8').split('\n').filter(Boolean)

  it('keeps each run of spaces as one visible ▁ and drops them at the ends', () => {
    expect(tokenize(' Un  chien\tcourt. ', spec)).toEqual(Array.from('Un▁chien▁court.'))
    expect(detokenize(Array.from('Un▁chien▁court.'), spec)).toBe('Un chien court.')
  })

  it('gives every test reference back exactly', () => {
    expect(lines.length).toBeGreaterThan(40)
    for (const line of lines) expect(detokenize(tokenize(line, spec), spec)).toBe(line.normalize('NFKC').replace(/[\u2019\u2018\u02bc]/g, "'"))
  })

  const py = (JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tokenizers/char-spaces-vectors.json'), 'utf8')) as { cases: Case[] }).cases
  it.each(py.map((c) => [c.spec.type !== 'hf' && c.spec.lowercase, c.text!, c] as const))(
    'as training/attention_lens/tokenizer.py (lowercase %s): %j',
    (_l, text, c) => {
      expect(tokenize(text, c.spec)).toEqual(c.tokens)
      expect(detokenize(c.tokens!, c.spec)).toBe(c.detok)
    },
  )

  it('without the flag stays the old tokenizer: spaces dropped', () => {
    const old: TokenizerSpec = { type: 'char', lowercase: true }
    expect(tokenize('Un chien', old)).toEqual(Array.from('unchien'))
    expect(detokenize(['u', 'n'], old)).toBe('un')
  })
})

describe('word tokenizer with a joiner, and BPE on top of it', () => {
  const word: TokenizerSpec = { type: 'word', lowercase: true, joiner: '@@' }
  it('marks units written together where a space would otherwise go (the documented examples)', () => {
    expect(tokenize('t-shirt', word)).toEqual(['t@@', '-@@', 'shirt'])
    expect(tokenize('3.5', word)).toEqual(['3', '.@@', '5'])
    expect(detokenize(tokenize("A t-shirt, 3.5 km; l'homme d'affaires (2016).", word), word)).toBe("a t-shirt, 3.5 km; l'homme d'affaires (2016).")
    expect(wordSpans(['t@@', '-@@', 'shirt', 'now'], word)).toEqual([[0, 1, 2], [3]])
  })
  it("merges by rank, leftmost first on a tie, and marks every piece but a word's last", () => {
    const bpe: TokenizerSpec = { type: 'bpe', lowercase: true, joiner: '@@', merges: ['a a', 'aa a</w>', 'b c'] }
    // (Checked with training/attention_lens/tokenizer.py.) "aaaa": a a a a</w> → "a a" merges at 0-1 only, as
    // a</w> is another symbol → aa a a</w>, and no listed pair is left.
    expect(tokenize('aaaa', bpe)).toEqual(['aa@@', 'a@@', 'a'])
    expect(tokenize('aaa', bpe)).toEqual(['aaa'])
    // a a a a a</w> → aa aa a</w> (every occurrence, left to right) → aa aaa</w>
    expect(tokenize('aaaaa', bpe)).toEqual(['aa@@', 'aaa'])
    expect(tokenize('bc-bc', bpe)).toEqual(['bc@@', '-@@', 'b@@', 'c'])
    expect(detokenize(['bc@@', '-@@', 'b@@', 'c', '.'], bpe)).toBe('bc-bc.')
  })
})

describe('word-with-joiner and BPE tokenizers match training/attention_lens/tokenizer.py (bpe-tokenizer-vectors.json)', () => {
  interface BpeCase {
    spec: string
    text: string
    tokens: string[]
    ids: number[] | null
    detok: string
  }
  const file = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/bpe-tokenizer-vectors.json'), 'utf8')) as {
    specs: Record<string, { spec: TokenizerSpec; vocab: string[] | null }>
    cases: BpeCase[]
  }
  const index = new Map(Object.entries(file.specs).map(([id, s]) => [id, s.vocab && new Map(s.vocab.map((w, i) => [w, i]))]))

  it('covers the joiner word tokenizer, a BPE spec on both sides and the Chinese source (jieba words, BPE inside them)', () => {
    const types = new Set(Object.values(file.specs).map((s) => `${s.spec.type}${'joiner' in s.spec ? '+joiner' : ''}`))
    expect(types).toEqual(new Set(['word+joiner', 'bpe+joiner', 'jieba+joiner']))
    expect(file.cases.length).toBeGreaterThan(1000)
    expect(file.cases.some((c) => c.text.includes('t-shirt'))).toBe(true)
  })

  it.each(file.cases.map((c) => [c.spec, c.text, c] as const))('%s: %j', (id, text, c) => {
    const { spec } = file.specs[id]
    const tokens = tokenize(text, spec)
    expect(tokens).toEqual(c.tokens)
    const vocab = index.get(id)
    if (vocab) expect(tokens.map((t) => vocab.get(t) ?? vocab.get('<unk>'))).toEqual(c.ids)
    expect(detokenize(c.tokens, spec)).toBe(c.detok)
  })
})
