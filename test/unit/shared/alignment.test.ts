import { describe, expect, it } from 'vitest'
import { ALIGNMENT_DEFAULTS, buildAlignment, estimateTextWidth, strokeOpacity, strokeWidth, type TokenBox } from '../../../src/shared/charts/alignment'

// 3 output steps × 4 source tokens; rows sum to 1.
const A = [
  [0.7, 0.2, 0.05, 0.05],
  [0.1, 0.6, 0.25, 0.05],
  [0.02, 0.08, 0.3, 0.6],
]
const src = [40, 12, 90, 30]
const tgt = [55, 20, 70]

function noOverlap(boxes: TokenBox[]): void {
  for (let i = 1; i < boxes.length; i++) expect(boxes[i].x).toBeGreaterThanOrEqual(boxes[i - 1].x + boxes[i - 1].width)
}

describe('alignment lines geometry', () => {
  it('threshold 0 draws one line per (output, source) pair, each from its output token to its source token', () => {
    const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A, threshold: 0 })
    expect(g.lines).toHaveLength(12)
    for (const l of g.lines) {
      expect(l.weight).toBe(A[l.t][l.s])
      expect(l.x1).toBe(g.tgt[l.t].cx)
      expect(l.y1).toBe(g.tgt[l.t].y)
      expect(l.x2).toBe(g.src[l.s].cx)
      expect(l.y2).toBe(g.src[l.s].y + g.src[l.s].height)
    }
    // Source row on top, output row below it.
    expect(g.src[0].y + g.src[0].height).toBeLessThan(g.tgt[0].y)
    expect(g.tgt[0].y + g.tgt[0].height).toBeLessThanOrEqual(g.height)
  })

  it('drops lines under the threshold and keeps exactly the weights at or above it', () => {
    for (const th of [0.05, 0.1, 0.3, 0.6, 0.7, 0.71, 1]) {
      const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A, threshold: th })
      const expected = A.flat().filter((v) => v >= th).length
      expect(g.lines, `threshold ${th}`).toHaveLength(expected)
      expect(g.lines.every((l) => l.weight >= th)).toBe(true)
    }
  })

  it('zero weights still count at threshold 0 (a local model leaves most cells at 0)', () => {
    const g = buildAlignment({ srcWidths: [20, 20], tgtWidths: [20], attention: [[1, 0]], threshold: 0 })
    expect(g.lines).toHaveLength(2)
    expect(buildAlignment({ srcWidths: [20, 20], tgtWidths: [20], attention: [[1, 0]], threshold: 0.01 }).lines).toHaveLength(1)
  })

  it('stroke width and opacity grow with the weight; lines are drawn weakest first', () => {
    const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A })
    for (let i = 1; i < g.lines.length; i++) {
      const [a, b] = [g.lines[i - 1], g.lines[i]]
      expect(b.weight).toBeGreaterThanOrEqual(a.weight)
      if (b.weight > a.weight) {
        expect(b.width).toBeGreaterThan(a.width)
        expect(b.opacity).toBeGreaterThan(a.opacity)
      }
    }
    expect(strokeWidth(0)).toBe(ALIGNMENT_DEFAULTS.minStroke)
    expect(strokeWidth(1)).toBe(ALIGNMENT_DEFAULTS.maxStroke)
    expect(strokeOpacity(0.5)).toBeGreaterThan(strokeOpacity(0.1))
    expect(strokeOpacity(2)).toBe(ALIGNMENT_DEFAULTS.maxOpacity)
    expect(strokeWidth(Number.NaN)).toBe(ALIGNMENT_DEFAULTS.minStroke)
  })

  it('selecting an output token keeps only its lines and gives the source tokens its weights', () => {
    const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A, selectedRow: 1, threshold: 0 })
    expect(g.lines.map((l) => l.t)).toEqual([1, 1, 1, 1])
    expect(g.src.map((b) => b.weight)).toEqual(A[1])
    expect(g.tgt.map((b) => b.selected)).toEqual([false, true, false])
    expect(g.tgt.every((b) => b.weight === null)).toBe(true)
    // The threshold still applies within the selection.
    const h = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A, selectedRow: 1, threshold: 0.2 })
    expect(h.lines.map((l) => l.s).sort()).toEqual([1, 2])
  })

  it('selecting a source token keeps only the lines into it and gives the output tokens its column', () => {
    const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A, selectedCol: 3, threshold: 0 })
    expect(g.lines.map((l) => l.s)).toEqual([3, 3, 3])
    expect(g.tgt.map((b) => b.weight)).toEqual([0.05, 0.05, 0.6])
    expect(g.src.map((b) => b.selected)).toEqual([false, false, false, true])
    expect(g.src.every((b) => b.weight === null)).toBe(true)
  })

  it('no selection: nothing is highlighted; an out-of-range selection is ignored', () => {
    const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A, selectedRow: 9 })
    expect(g.lines).toHaveLength(12)
    expect([...g.src, ...g.tgt].every((b) => !b.selected && b.weight === null)).toBe(true)
  })

  it('tokens are spaced by their width and never overlap, also when spread to fill a wide panel', () => {
    for (const minWidth of [0, 300, 2000]) {
      const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A, minWidth })
      noOverlap(g.src)
      noOverlap(g.tgt)
      expect(g.width).toBeGreaterThanOrEqual(minWidth)
      for (const b of [...g.src, ...g.tgt]) {
        expect(b.x).toBeGreaterThanOrEqual(0)
        expect(b.x + b.width).toBeLessThanOrEqual(g.width)
      }
    }
    // A box is at least its text plus padding.
    const g = buildAlignment({ srcWidths: src, tgtWidths: tgt, attention: A })
    expect(g.src[2].width).toBeGreaterThanOrEqual(90 + 2 * ALIGNMENT_DEFAULTS.padX)
    expect(g.src[1].width).toBe(ALIGNMENT_DEFAULTS.minBox)
  })

  it('a long sentence makes the figure wider instead of squeezing tokens', () => {
    const long = Array.from({ length: 60 }, () => 50)
    const g = buildAlignment({ srcWidths: long, tgtWidths: long.slice(0, 40), attention: [], minWidth: 800 })
    expect(g.width).toBeGreaterThan(60 * 50)
    noOverlap(g.src)
    noOverlap(g.tgt)
    expect(g.lines).toHaveLength(0)
  })

  it('estimates CJK characters as wider than Latin ones', () => {
    expect(estimateTextWidth('猫', 16)).toBe(16)
    expect(estimateTextWidth('cat', 10)).toBeCloseTo(18)
    expect(estimateTextWidth('小女孩')).toBeGreaterThan(estimateTextWidth('abc'))
    expect(estimateTextWidth('')).toBe(0)
  })
})
