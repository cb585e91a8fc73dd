import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hfTokenizer } from '../../../src/engine/tokenizers/hf'
import { useUnigramPrefixSet } from '../../../src/engine/tokenizers/unigram-prefixes'
import { ROOT } from '../../helpers'

interface UnigramJson {
  model: { type: 'Unigram'; unk_id: number; vocab: [string, number][] }
  added_tokens: unknown[]
  normalizer: null
  pre_tokenizer: null
  post_processor: null
  decoder: null
}
const unigram = (pieces: string[]): UnigramJson => ({
  model: { type: 'Unigram', unk_id: 0, vocab: [['<unk>', 0], ...pieces.map((p, i): [string, number] => [p, -1 - i / 10])] },
  added_tokens: [],
  normalizer: null,
  pre_tokenizer: null,
  post_processor: null,
  decoder: null,
})

interface Trie {
  root: { children: Map<string, unknown> }
  common_prefix_search(chars: string[], start?: number): Iterable<string>
}
const trieOf = (json: UnigramJson) => (hfTokenizer({ type: 'hf', json: json as never }) as unknown as { model: { trie: Trie } }).model.trie

/** What a character trie of `pieces` answers: each piece that the code points from `start` begin with, shortest first. */
function reference(pieces: string[], chars: string[], start: number): string[] {
  const out: string[] = []
  let prefix = ''
  for (let i = start; i < chars.length; i++) {
    prefix += chars[i]
    if (pieces.includes(prefix)) out.push(prefix)
  }
  return out
}

describe("Unigram tokenizers' piece lookup (unigram-prefixes.ts)", () => {
  it('replaces the per-character trie: a tokenizer is made without a node per character of its pieces', () => {
    expect(useUnigramPrefixSet()).toBe(true)
    const json = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tokenizers/spm-unigram.json'), 'utf8')) as UnigramJson
    const trie = trieOf(json)
    // The library's trie would hold a child of the root for every first character of its pieces.
    expect(trie.root.children.size).toBe(0)
    expect([...trie.common_prefix_search([...'▁the'], 0)]).toContain('▁the')
  })

  it('finds the pieces a character trie finds, shortest first, across surrogate pairs, at every start', () => {
    const pieces = ['a', 'ab', 'abc', 'abcd', 'b', 'bc', '😀', '😀a', 'a😀', '▁', '▁a', 'é', 'é', 'xyz']
    const trie = trieOf(unigram(pieces))
    const all = ['<unk>', ...pieces]
    for (const text of ['abcde', '😀abc', 'a😀a', '▁abc', 'éé', 'zzz', 'xy', 'xyz', 'abcd']) {
      const chars = Array.from(text)
      for (let start = 0; start <= chars.length; start++) {
        expect([...trie.common_prefix_search(chars, start)], `${text} @${start}`).toEqual(reference(all, chars, start))
      }
    }
  })

  it('tokenizes as the pieces and their scores say: the best segmentation wins over a greedy one', () => {
    // 'abcd' is one piece, but 'ab' + 'cd' score better together than 'abc' + 'd' or 'abcd' alone.
    const json: UnigramJson = {
      ...unigram([]),
      model: {
        type: 'Unigram',
        unk_id: 0,
        vocab: [
          ['<unk>', 0],
          ['a', -5],
          ['b', -5],
          ['c', -5],
          ['d', -5],
          ['ab', -1],
          ['cd', -1],
          ['abc', -3],
          ['abcd', -2.5],
        ],
      },
    }
    const tok = hfTokenizer({ type: 'hf', json: json as never })
    expect(tok.tokenize('abcd')).toEqual(['ab', 'cd'])
    expect(tok.tokenize('abcdd')).toEqual(['ab', 'cd', 'd'])
    expect(tok.encode('dcab').ids).toEqual([4, 3, 5])
  })
})
