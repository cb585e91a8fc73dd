import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detokenize, parseTokenizerSpec, tokenize, wordSpans, type TokenizerSpec } from '../../../src/engine/tokenizer'
import { ROOT } from '../../helpers'

// Written by training/jieba_vectors.py: every distinct Chinese sentence of the Tatoeba corpus with
// the pieces Python's jieba 0.42.1 + the zh-en models' merges make of it.
interface Vectors {
  spec: TokenizerSpec
  cases: [string, string][]
}
const vectors = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tokenizers/jieba-corpus-vectors.json'), 'utf8')) as Vectors

describe('jieba tokenizer matches training/attention_lens/tokenizer.py on the whole corpus', () => {
  const spec = parseTokenizerSpec(vectors.spec)

  it('reads the spec as a jieba spec with its merges', () => {
    expect(spec.type).toBe('jieba')
    expect(spec.type === 'jieba' && spec.merges.length).toBe(3000)
    expect(vectors.cases.length).toBeGreaterThan(25_000)
  })

  it('cuts every distinct Chinese sentence into the same pieces', () => {
    const differ: string[] = []
    for (const [text, pieces] of vectors.cases) {
      const got = tokenize(text, spec).join(' ')
      if (got !== pieces) differ.push(`${text}: ${got} ≠ ${pieces}`)
    }
    expect(differ.slice(0, 5)).toEqual([])
    expect(differ.length).toBe(0)
  })

  it('keeps a word the merges leave in pieces together as one word', () => {
    // 耄耋之年 ("one's eighties") is one word in jieba's dictionary, never in the training split.
    const tokens = tokenize('他已经耄耋之年了。', spec)
    const spans = wordSpans(tokens, spec).map((s) => s.map((i) => tokens[i].replace(/@@$/u, '')).join(''))
    expect(spans).toContain('耄耋之年')
    expect(tokens.some((t) => t.endsWith('@@'))).toBe(true)
  })

  it('writes words back without spaces, one space only between ASCII words', () => {
    expect(detokenize(tokenize('Tom 在 2024 年买了 iPhone 15！', spec), spec)).toBe('tom在2024年买了iphone 15!')
    expect(detokenize(tokenize('我很高兴见到你。', spec), spec)).toBe('我很高兴见到你。')
  })
})
