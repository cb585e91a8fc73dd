import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pickExamples, sentenceLength } from '../../../src/engine/examples'
import { ROOT } from '../../helpers'

const read = (f: string) =>
  readFileSync(join(ROOT, 'resources', 'testsets', f), 'utf8')
    .replace(/\n$/, '')
    .split('\n')

describe('example sentences', () => {
  it('counts words, and every CJK character as one', () => {
    expect(sentenceLength('A man in a blue shirt.')).toBe(6)
    expect(sentenceLength('  two   words ')).toBe(2)
    expect(sentenceLength('我们 走吧。')).toBe(4)
    expect(sentenceLength('我有 3 个 iPhone')).toBe(5)
    expect(sentenceLength(' - ')).toBe(0)
  })

  const src = ['A dog runs.', 'Two cats sleep on a sofa.', 'A dog and a cat play in the garden today.', 'Hello.']
  const ref = ['Un chien court.', 'Deux chats dorment sur un canapé.', 'Un chien et un chat jouent dans le jardin aujourd’hui.', 'Bonjour.']

  it('filters by a length range and a search in the source or the reference, in file order', () => {
    expect(pickExamples(src, ref, { pair: 'en-fr', minLength: 3, maxLength: 6 }).sentences.map((s) => s.index)).toEqual([0, 1])
    expect(pickExamples(src, ref, { pair: 'en-fr', search: 'DOG' }).sentences.map((s) => s.index)).toEqual([0, 2])
    expect(pickExamples(src, ref, { pair: 'en-fr', search: 'canapé' }).sentences).toEqual([{ index: 1, source: src[1], reference: ref[1], length: 6 }])
    const r = pickExamples(src, ref, { pair: 'en-fr', search: 'a', limit: 2 })
    expect(r.total).toBe(3)
    expect(r.sentences).toHaveLength(2)
  })

  it('a random pick is drawn from the matches only, the same for the same seed, and differs between seeds', () => {
    const en = read('en-fr.en')
    const fr = read('en-fr.fr')
    const q = { pair: 'en-fr', minLength: 8, maxLength: 8, random: true, limit: 5 }
    const a = pickExamples(en, fr, { ...q, seed: 1 })
    expect(a.sentences).toHaveLength(5)
    for (const s of a.sentences) {
      expect(s.length).toBe(8)
      expect(en[s.index]).toBe(s.source)
      expect(fr[s.index]).toBe(s.reference)
    }
    expect(new Set(a.sentences.map((s) => s.index)).size).toBe(5)
    expect(pickExamples(en, fr, { ...q, seed: 1 }).sentences).toEqual(a.sentences)
    expect(pickExamples(en, fr, { ...q, seed: 2 }).sentences.map((s) => s.index)).not.toEqual(a.sentences.map((s) => s.index))
    // Not simply the first matches in file order.
    const first = pickExamples(en, fr, { ...q, random: false }).sentences.map((s) => s.index)
    expect(a.sentences.map((s) => s.index)).not.toEqual(first)
  })

  it('never returns more than 50', () => {
    expect(pickExamples(read('zh-en.zh'), read('zh-en.en'), { pair: 'zh-en', limit: 50 }).sentences).toHaveLength(50)
    expect(pickExamples(read('zh-en.zh'), read('zh-en.en'), { pair: 'zh-en', limit: 500 }).sentences).toHaveLength(50)
  })
})
