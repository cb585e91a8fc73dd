/**
 * Presentation mode's floor and parts (issue 40 #2): the floor is 18.7 px at 720 px of window
 * height, scaled with it; the sizes a slide tries never go under it; a slide too long for the
 * window at the floor is cut into as few even parts as all fit.
 */
import { describe, expect, it } from 'vitest'
import { slideSizes } from '../../../src/renderer/src/lib/fit-screen'
import { slideFloor } from '../../../src/renderer/src/lib/presentation.svelte'
import { mostParts, partOf, splitGreedy, splitToFit, type Rows } from '../../../src/renderer/src/lib/slide-parts'

describe('the slide floor', () => {
  it('is 14 pt on a 7.5 in page: 18.7 px at 720 px of height, scaled with the window, rounded up', () => {
    expect(slideFloor(720)).toBe(18.7)
    expect(slideFloor(768)).toBe(20)
    expect(slideFloor(1080)).toBe(28.1)
    for (const h of [600, 720, 768, 900, 1080, 1440]) expect(slideFloor(h)).toBeGreaterThanOrEqual((18.7 * h) / 720)
  })
  it('the sizes a slide tries run from the largest down to the floor, none under it', () => {
    for (const floor of [18.7, 20, 28.1]) {
      const sizes = slideSizes(floor)
      expect(sizes.at(-1)).toBe(floor)
      expect(Math.min(...sizes)).toBe(floor)
      expect([...sizes].sort((a, b) => b - a)).toEqual(sizes)
      expect(sizes[0]).toBeLessThanOrEqual(1.3 * floor + 1e-9)
    }
    expect(slideSizes(20, 20)).toEqual([20])
  })
})

describe('a slide in parts', () => {
  /** Rows fit when there are at most `n` of them. */
  const upTo = (n: number) => (rows: Rows) => rows[1] - rows[0] <= n
  it('is whole where the whole fits, at one try', () => {
    let tries = 0
    const split = splitToFit(25, (r) => (tries++, upTo(30)(r)))
    expect(split).toEqual({ parts: [[0, 25]], fits: true })
    expect(tries).toBe(1)
  })
  it('takes as few even, consecutive parts as all fit, every row in one of them', () => {
    const { parts, fits } = splitToFit(25, upTo(9))
    expect(fits).toBe(true)
    expect(parts).toEqual([
      [0, 8],
      [8, 17],
      [17, 25],
    ])
    for (let s = 0; s < 25; s++) expect(parts[partOf(parts, s)][0]).toBeLessThanOrEqual(s)
    expect(partOf(parts, 25)).toBe(-1)
  })
  it('goes past the exporter’s six parts down to parts of three rows, and says when even those do not fit', () => {
    expect(mostParts(25)).toBe(9)
    expect(splitToFit(25, upTo(3)).parts).toHaveLength(9)
    const none = splitToFit(25, upTo(1))
    expect(none.fits).toBe(false)
    expect(none.parts).toHaveLength(9)
  })
})

describe('a slide cut greedily (the p_t plot)', () => {
  /** Rows fit while the source positions they cover (one per step, given) span at most `n`. */
  const spanning = (at: number[], n: number) => (rows: Rows) => {
    const xs = at.slice(rows[0], rows[1])
    return Math.max(...xs) - Math.min(...xs) <= n
  }
  it('is whole where the whole fits, at one try', () => {
    let tries = 0
    expect(splitGreedy(10, () => (tries++, true))).toEqual({ parts: [[0, 10]], fits: true })
    expect(tries).toBe(1)
  })
  it('takes each part as long as fits: fewer parts than even ones where rows differ', () => {
    // p_t near the diagonal for 8 steps, then a jump across the sentence and back.
    const at = [0, 1, 2, 3, 4, 5, 6, 7, 20, 8, 9]
    const fits = spanning(at, 6)
    const greedy = splitGreedy(at.length, fits)
    expect(greedy).toEqual({
      parts: [
        [0, 7],
        [7, 8],
        [8, 9],
        [9, 11],
      ],
      fits: true,
    })
    for (const part of greedy.parts) expect(fits(part)).toBe(true)
    expect(greedy.parts.length).toBeLessThan(splitToFit(at.length, fits, at.length).parts.length)
  })
  it('makes a step that does not fit alone a part of its own, and says so', () => {
    const split = splitGreedy(3, (rows) => !(rows[0] <= 1 && rows[1] > 1))
    expect(split).toEqual({
      parts: [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
      fits: false,
    })
  })
})
