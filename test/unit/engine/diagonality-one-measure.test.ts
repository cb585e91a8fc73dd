import { describe, expect, it } from 'vitest'
import { AttentionStats } from '../../../src/engine/evaluate'
import { diagonality } from '../../../src/shared/attention/diagonal'
import { diagonality as headsDiagonality, headStats } from '../../../src/shared/attention/heads'
import { makeCross } from '../shared/heads-fixture'

// "Diagonality" is one measure (src/shared/attention/diagonal.ts), whether the heads grid, the
// Alignment score tab or BLEU by length shows it: the same number for the same attention.
const shifted = (T: number, S: number, by: number) =>
  Array.from({ length: T }, (_, t) => {
    const d = Math.min(S - 1, Math.round((t * (S - 1)) / Math.max(1, T - 1)) + by)
    return Array.from({ length: S }, (_, s) => (s === d ? 0.7 : 0.3 / (S - 1)))
  })

describe('diagonality, one measure everywhere', () => {
  it('the heads grid reads the shared definition', () => {
    expect(headsDiagonality).toBe(diagonality)
    const cross = makeCross(2, 2, 9, 11)
    for (const s of headStats(cross, null)) expect(s.diagonality).toBe(diagonality(cross.map((step) => step[s.layer][s.head])))
  })

  it('BLEU by length and Alignment score (AttentionStats) give the number the heads grid gives', () => {
    for (const [T, S, by] of [
      [8, 10, 0],
      [8, 10, 3],
      [12, 9, 5],
    ]) {
      const m = shifted(T, S, by)
      const stats = new AttentionStats()
      stats.add(m)
      expect(stats.diagonality()).toBeCloseTo(diagonality(m), 3)
    }
    // Over several sentences: the mean over every row.
    const a = shifted(6, 8, 0)
    const b = shifted(4, 8, 4)
    const stats = new AttentionStats()
    stats.add(a)
    stats.add(b)
    expect(stats.diagonality()).toBeCloseTo((diagonality(a) * 6 + diagonality(b) * 4) / 10, 3)
    // A head that reads far off the diagonal scores low, as it does in the heads grid (not 0.8+).
    expect(diagonality(shifted(10, 20, 8))).toBeLessThan(0.2)
  })
})
