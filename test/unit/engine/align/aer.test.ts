import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { aerCounts, formatAer, scoreSet } from '../../../../src/engine/align/aer'
import { outOfRange, parsePairs, readLinks } from '../../../../src/engine/align/gold'
import { formatPharaohLine, parsePharaoh, parsePharaohLine, PharaohError } from '../../../../src/engine/align/pharaoh'
import { ROOT } from '../../../helpers'

const GOLD = join(ROOT, '..', 'shared', 'datasets', 'alignment-gold')

describe('Pharaoh files', () => {
  it('reads sure and possible links, 1-based to 0-based, and writes them back either way', () => {
    const links = parsePharaohLine('2-3 1p1  4-2', true)
    expect(links).toEqual([
      { i: 1, j: 2, sure: true },
      { i: 0, j: 0, sure: false },
      { i: 3, j: 1, sure: true },
    ])
    expect(formatPharaohLine(links)).toBe('0p0 1-2 3-1')
    expect(formatPharaohLine(links, true)).toBe('1p1 2-3 4-2')
  })

  it('keeps empty lines as pairs without links, and refuses what is not a link', () => {
    expect(parsePharaoh('0-0\n\n1-1\n')).toEqual([[{ i: 0, j: 0, sure: true }], [], [{ i: 1, j: 1, sure: true }]])
    expect(() => parsePharaoh('0-0 1:1', false, 'x.out')).toThrow(new PharaohError('x.out, line 1: "1:1" is not a link (i-j or ipj)'))
    expect(() => parsePharaohLine('0-1', true)).toThrow(/word 0 in a file counted from 1/)
  })

  it('reads `source ||| target` pairs and finds links outside them', () => {
    const pairs = parsePairs('a b ||| x y z\nc ||| w\n')
    expect(pairs).toEqual([
      { src: ['a', 'b'], tgt: ['x', 'y', 'z'] },
      { src: ['c'], tgt: ['w'] },
    ])
    expect(outOfRange(pairs, [[{ i: 1, j: 2, sure: true }], [{ i: 0, j: 0, sure: true }]])).toBeNull()
    expect(outOfRange(pairs, [[], [{ i: 0, j: 1, sure: true }]])).toMatch(/pair 2 has 1 source and 1 target words, but a link 0-1/)
  })
})

describe('AER', () => {
  // Three pairs, worked by hand. S = sure, P = sure ∪ possible, A = hypothesis.
  // 1: S {0-0, 1-1}, P adds 2p1.       A {0-0, 2-1, 2-2}: A∩S 1, A∩P 2, |A| 3, |S| 2
  // 2: S {0-0},      P adds 1p1, 1p2.  A {0-0, 1-1}:       A∩S 1, A∩P 2, |A| 2, |S| 1
  // 3: S {0-1, 1-0}, no possible.      A {}:               A∩S 0, A∩P 0, |A| 0, |S| 2
  // Set: |A∩S| 2, |A∩P| 4, |A| 5, |S| 5 → AER = 1 − 6/10 = 40 %, P = 4/5 = 80 %, R = 2/5 = 40 %.
  const gold = parsePharaoh('1-1 2-2 3p2\n1-1 2p2 2p3\n1-2 2-1', true)
  const hyp = parsePharaoh('0-0 2-1 2-2\n0-0 1-1\n\n') // the third pair proposes nothing: an empty line
  it('per sentence and over a set, with sure and possible links', () => {
    const { set, sentences } = scoreSet(gold, hyp)
    expect(set.aer).toBeCloseTo(40, 10)
    expect(set.precision).toBeCloseTo(80, 10)
    expect(set.recall).toBeCloseTo(40, 10)
    // Sentence 1: 1 − (1 + 2) / (3 + 2) = 40 %; sentence 2: 1 − 3/3 = 0 %; sentence 3: nothing proposed, 100 %.
    expect(sentences.map((s) => s.aer)).toEqual([expect.closeTo(40, 10), expect.closeTo(0, 10), expect.closeTo(100, 10)])
    expect(aerCounts(gold[0], hyp[0])).toEqual({ hyp: 3, sure: 2, hitSure: 1, hitPossible: 2 })
    expect(formatAer(set)).toBe('AER 40.00 P 80.00 R 40.00')
  })

  it('counts a repeated link once', () => {
    expect(aerCounts(gold[1], parsePharaoh('0-0 0-0 0p0')[0])).toEqual({ hyp: 1, sure: 1, hitSure: 1, hitPossible: 1 })
  })

  it.skipIf(!existsSync(GOLD))("reproduces the data README's two lines from awesome-align's output", async () => {
    for (const [pair, line] of [
      ['enfr', 'AER 4.14 P 96.65 R 94.75'],
      ['zhen', 'AER 12.53 P 87.09 R 87.86'],
    ]) {
      const g = await readLinks(join(GOLD, `${pair}.gold`), true)
      const h = await readLinks(join(GOLD, `${pair}.awesome-align.out`), false)
      expect(g).toHaveLength(200)
      expect(formatAer(scoreSet(g, h).set)).toBe(line)
    }
  })
})
