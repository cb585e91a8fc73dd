import { Tokenizer } from '@huggingface/tokenizers'

/**
 * @huggingface/tokenizers' Unigram model keeps its pieces in a character trie, one Map per node,
 * built whole when the tokenizer is made: NLLB's 256,001 pieces make millions of nodes, a second
 * of CPU and as much again of garbage collection on every open of the folder (bench/HF-LARGE-RESULTS.md),
 * though a sentence only ever asks which of its substrings are pieces. The trie's one query
 * (common_prefix_search: the pieces that start at a character, shortest first) is answered here
 * from a set of the pieces instead, trying each prefix up to the longest piece's length: the same
 * pieces in the same order, for a set built in a fraction of the trie's time.
 *
 * The trie class is the library's own and not exported: it is reached through a one-piece
 * tokenizer's model and its methods replaced, once. Where a version of the library has no such
 * trie (other method names), nothing is replaced and its own trie runs.
 */
interface PrefixSet {
  words?: Set<string>
  longest?: number
}

interface TrieMethods {
  extend(this: PrefixSet, texts: Iterable<string>): void
  push(this: PrefixSet, text: string): void
  common_prefix_search(this: PrefixSet, chars: string[], start?: number): Generator<string>
}

function add(set: PrefixSet, text: string): void {
  ;(set.words ??= new Set()).add(text)
  if (text.length > (set.longest ?? 0)) set.longest = text.length
}

const methods: TrieMethods = {
  extend(texts) {
    for (const t of texts) add(this, t)
  },
  push(text) {
    add(this, text)
  },
  // `chars` are code points (the lattice's); a piece is at most `longest` UTF-16 units, so no longer prefix can be one.
  *common_prefix_search(chars, start = 0) {
    const words = this.words
    const longest = this.longest ?? 0
    if (!words) return
    let prefix = ''
    for (let i = start; i < chars.length; i++) {
      prefix += chars[i]
      if (prefix.length > longest) return
      if (words.has(prefix)) yield prefix
    }
  },
}

/** The library's trie prototype, where its Unigram model has one with the methods replaced; else null. */
function triePrototype(): Record<string, unknown> | null {
  try {
    const probe = new Tokenizer(
      {
        model: { type: 'Unigram', unk_id: 0, vocab: [['<unk>', 0]] },
        added_tokens: [],
        normalizer: null,
        pre_tokenizer: null,
        post_processor: null,
        decoder: null,
      },
      {},
    ) as unknown as { model?: { trie?: object } }
    const proto = probe.model?.trie ? (Object.getPrototypeOf(probe.model.trie) as Record<string, unknown>) : null
    return proto && (['extend', 'push', 'common_prefix_search'] as const).every((m) => typeof proto[m] === 'function') ? proto : null
  } catch {
    return null
  }
}

let replaced: boolean | null = null

/** Replaces the Unigram trie's methods (once); says whether they are replaced. */
export function useUnigramPrefixSet(): boolean {
  if (replaced !== null) return replaced
  const proto = triePrototype()
  if (proto) Object.assign(proto, methods)
  return (replaced = proto !== null)
}
