import type { ExampleQuery, ExampleSentence } from '../shared/teaching'

/**
 * The bundled test sets as example sentences: search, a length range and a random pick. Length
 * is counted the way a reader counts: words, with every CJK character a word of its own.
 */
export function sentenceLength(text: string): number {
  let n = 0
  for (const part of text.trim().split(/\s+/)) {
    if (!part) continue
    const cjk = part.match(/[\u2e80-\u2fff\u3040-\u9fff\uf900-\ufaff]/g)?.length ?? 0
    const rest = part.replace(/[\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/g, '')
    n += cjk + (rest && /[\p{L}\p{N}]/u.test(rest) ? 1 : 0)
  }
  return n
}

export const MAX_EXAMPLES = 50

/** The sentences that match, in file order, or `limit` of them at random (seeded, so a test can repeat it). */
export function pickExamples(sources: string[], references: string[], q: ExampleQuery): { total: number; sentences: ExampleSentence[] } {
  const needle = (q.search ?? '').trim().toLowerCase()
  const lo = q.minLength ?? 0
  const hi = q.maxLength ?? Infinity
  const matches: ExampleSentence[] = []
  sources.forEach((source, index) => {
    const reference = references[index] ?? ''
    const length = sentenceLength(source)
    if (length < lo || length > hi) return
    if (needle && !source.toLowerCase().includes(needle) && !reference.toLowerCase().includes(needle)) return
    matches.push({ index, source, reference, length })
  })
  const limit = Math.min(q.limit ?? MAX_EXAMPLES, MAX_EXAMPLES)
  if (!q.random) return { total: matches.length, sentences: matches.slice(0, limit) }
  const rand = mulberry32(q.seed ?? Math.floor(Math.random() * 2 ** 32))
  // A partial Fisher–Yates shuffle: the first `limit` places are a uniform sample.
  const pool = [...matches]
  for (let i = 0; i < Math.min(limit, pool.length); i++) {
    const j = i + Math.floor(rand() * (pool.length - i))
    ;[pool[i], pool[j]] = [pool[j], pool[i]]
  }
  return { total: matches.length, sentences: pool.slice(0, limit) }
}

/** A small seeded generator: the same sequence for the same seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
