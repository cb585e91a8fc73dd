import { describe, expect, it } from 'vitest'
import { corpusChrf, sentenceChrf } from '../../../src/engine/chrf'
import { scoreSentence } from '../../../src/engine/sentence-score'

// Cases published with sacreBLEU 2.x (test/test_chrf.py of the sacrebleu repository), which
// checks them to within 1e-4.
describe('chrF agrees with sacreBLEU', () => {
  it.each([
    [
      'Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.',
      'Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře.',
      39.14078509,
    ],
    [
      'Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.',
      'A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři.',
      31.22557079,
    ],
    [
      'Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.',
      'Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli.',
      57.15704367,
    ],
  ])('sentence chrF with ε smoothing: %s = %f', (hyp, ref, expected) => {
    expect(Math.abs(sentenceChrf(hyp, [ref], { epsSmoothing: true }) - expected)).toBeLessThan(1e-4)
  })

  it.each([
    [['abcdefg'], ['hijklmnop'], 0.0],
    [['a'], ['b'], 0.0],
    [[''], ['b'], 0.0],
    [[''], ['reference'], 0.0],
    [['aa'], ['ab'], 8.3333],
    [['a', 'b'], ['a', 'c'], 8.3333],
    [['a'], ['a'], 16.6667],
    [['a b c'], ['a b c'], 50.0],
    [['a b c'], ['abc'], 50.0],
    [
      [' risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists .'],
      ['risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists .'],
      63.36173,
    ],
    [
      [' Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. '],
      ['Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.'],
      64.1302698,
    ],
    [['Niemand hat die Absicht, eine Mauer zu errichten'], ['Niemand hat die Absicht, eine Mauer zu errichten'], 100.0],
  ])('corpus chrF (β = 3, ε smoothing) %j vs %j = %f', (hyps, refs, expected) => {
    expect(Math.abs(corpusChrf(hyps, [refs], { beta: 3, epsSmoothing: true }) - expected)).toBeLessThan(1e-4)
  })

  it.each([
    [['a'], ['a'], 100.0],
    [[''], ['reference'], 0.0],
    [['a b c'], ['a b c'], 100.0],
    [['a b c'], ['abc'], 100.0],
    [[''], ['c'], 0.0],
    [['a', 'b'], ['a', 'c'], 50.0],
    [['aa'], ['ab'], 25.0],
  ])('corpus chrF (β = 3, effective order) %j vs %j = %f', (hyps, refs, expected) => {
    expect(Math.abs(corpusChrf(hyps, [refs], { beta: 3 }) - expected)).toBeLessThan(1e-4)
  })

  it.each([
    [
      'Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich.',
      'Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.',
      67.3481606,
    ],
    [
      'risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists .',
      'risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists .',
      65.2414427,
    ],
  ])('keeping whitespace (β = 3): %s = %f', (hyp, ref, expected) => {
    expect(Math.abs(corpusChrf([hyp], [[ref]], { beta: 3, whitespace: true }) - expected)).toBeLessThan(1e-4)
  })

  it('counts characters, not UTF-16 units: two astral letters that share a high surrogate have nothing in common', () => {
    // 𝒳 is U+1D4B3 and 𝒴 U+1D4B4: split into UTF-16 units, their first halves would match.
    expect(sentenceChrf('𝒳', ['𝒴'])).toBe(0)
    expect(sentenceChrf('𝒳', ['𝒳'])).toBe(100)
  })
})

describe('scoreSentence', () => {
  it('is sacreBLEU sentence BLEU (effective order) and chrF (β = 2)', () => {
    // Hand-computed: 13a gives 3 tokens each; 2 of 3 unigrams, 1 of 2 bigrams and 0 of 1 trigram
    // match; there is no 4-gram, so the effective order is 3, and exp smoothing puts the missing
    // trigram at 100/(2·1): BLEU = (200/3 · 50 · 50)^(1/3).
    const s = scoreSentence('the dog runs', 'the dog sleeps')
    expect(s.bleu).toBeCloseTo(Math.cbrt((200 / 3) * 50 * 50), 6)
    expect(s.chrf).toBeCloseTo(sentenceChrf('the dog runs', ['the dog sleeps']), 9)
    const same = scoreSentence('Un chien court.', 'Un chien court.')
    expect(same.bleu).toBeCloseTo(100, 9)
    expect(same.chrf).toBeCloseTo(100, 9)
  })
})
