import { describe, expect, it } from 'vitest'
import { computeBleu, corpusBleu, sentenceStats, tokenize13a } from '../../../src/engine/bleu'

// Cases published with sacreBLEU (test/test_bleu.py of the sacrebleu repository).
const REFS = [
  ['The dog bit the man.', 'It was not unexpected.', 'The man bit him first.'],
  ['The dog had bit the man.', 'No one was surprised.', 'The man had bitten the dog.'],
]
const HYPS = ['The dog bit the man.', "It wasn't surprising.", 'The man had just bitten him.']
// raw_corpus_bleu: no tokenisation, floor smoothing, effective order
const raw = (h: string[], r: string[], floor = 0.01) =>
  corpusBleu(h, [r], { tokenize: 'none', smooth: 'floor', smoothValue: floor, effectiveOrder: true }).score / 100

describe('BLEU agrees with sacreBLEU', () => {
  it('corpus BLEU with the default settings (13a, exp smoothing): 48.530827', () => {
    expect(corpusBleu(HYPS, REFS).score).toBeCloseTo(48.530827, 5)
    expect(corpusBleu(HYPS, REFS, { smooth: 'none' }).score).toBeCloseTo(48.530827, 5)
  })
  it('without tokenisation: 49.1919566', () => {
    expect(corpusBleu(HYPS, REFS, { tokenize: 'none' }).score).toBeCloseTo(49.1919566, 5)
  })
  it('empty hypotheses score 0 and are not dropped', () => {
    expect(corpusBleu(['', '', ''], REFS).score).toBe(0)
  })
  it.each([
    [['this is a test', 'another test'], ['ref1', 'ref2'], 0.003799178428257963],
    [['this is a test'], ['this is a test'], 1.0],
    [['this is a fest'], ['this is a test'], 0.223606797749979],
  ])('raw BLEU %j vs %j = %f', (h, r, expected) => {
    expect(raw(h, r)).toBeCloseTo(expected, 8)
  })
  it.each([
    [['test'], ['a test'], 0.3678794411714425],
    [['a test'], ['a test'], 1.0],
    [['a little test'], ['a test'], 0.03218297948685433],
  ])('effective order %j vs %j = %f', (h, r, expected) => {
    expect(raw(h, r)).toBeCloseTo(expected, 8)
  })
  it('n-gram statistics', () => {
    const s = sentenceStats('am I am a character sequence', ['I am a symbol string sequence a a'], { tokenize: 'none' })
    expect(s.counts).toEqual([4, 2, 1, 0])
    expect(s.totals).toEqual([6, 5, 4, 3])
  })
  it('scoring from statistics: 0.8375922397', () => {
    expect(computeBleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score / 100).toBeCloseTo(0.8375922397, 8)
  })
  it.each([
    [[0, 0, 0, 0], [4, 4, 2, 1], 0, 1, 0.0],
    [[0, 0, 0, 0], [10, 11, 12, 0], 14, 10, 0.0],
    [[0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.0],
    [[6, 5, 4, 0], [6, 5, 4, 3], 6, 6, 0.0],
  ])('degenerate statistics %j/%j score 0', (c, t, sys, ref) => {
    expect(computeBleu(c, t, sys, ref, { smooth: 'floor', smoothValue: 0 }).score).toBe(0)
  })
  it('offset: floor smoothing 0 gives 0, the default 0.1 gives 0.1555722182', () => {
    const h = ['am I am a character sequence']
    const r = ['I am a symbol string sequence a a']
    expect(raw(h, r, 0)).toBe(0)
    expect(raw(h, r, 0.1)).toBeCloseTo(0.1555722182, 8)
  })
  it('13a splits punctuation but keeps decimals and inner dots of numbers', () => {
    expect(tokenize13a('Hello, world! It costs $3.50 (approx.) in 2024-25.')).toEqual([
      'Hello',
      ',',
      'world',
      '!',
      'It',
      'costs',
      '$',
      '3.50',
      '(',
      'approx',
      '.',
      ')',
      'in',
      '2024',
      '-',
      '25',
      '.',
    ])
  })
  it('case-insensitive BLEU lowercases both sides', () => {
    expect(corpusBleu(['THE DOG'], [['the dog']], { lowercase: true }).score).toBe(corpusBleu(['the dog'], [['the dog']]).score)
    expect(corpusBleu(['THE DOG'], [['the dog']]).score).toBe(0)
  })
})
