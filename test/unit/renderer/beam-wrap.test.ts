import { describe, expect, it } from 'vitest'
import { layoutBeam } from '../../../src/shared/charts/beam-layout'
import { wrapBeam } from '../../../src/renderer/src/lib/beam-wrap'
import type { BeamTree } from '../../../src/shared/teaching'

/** A chain of `steps` chosen tokens, each with one pruned sibling. */
function chain(steps: number): BeamTree {
  const nodes: BeamTree['nodes'] = []
  let parent = -1
  for (let t = 0; t < steps; t++) {
    const chosen = nodes.length
    nodes.push({ token: `word${t}`, parent, step: t, logProb: -0.1, score: -0.1 * (t + 1), status: 'chosen', attention: [] })
    nodes.push({ token: `alt${t}`, parent, step: t, logProb: -2, score: -2, status: 'pruned', attention: [] })
    parent = chosen
  }
  return { width: 2, nodes } as unknown as BeamTree
}

describe('the beam tree wrapped to a width (presentation mode)', () => {
  const measure = (tok: string) => tok.length * 12 + 12
  const layout = layoutBeam(chain(20), { pruned: true, row: 40, measure })
  const half = (p: { node: { token: string } | null }) => (p.node ? measure(p.node.token) / 2 : 16)

  it('keeps a tree that fits as it is, in one band', () => {
    const w = wrapBeam(layout, Infinity, half, { gap: 30, lead: 30, row: 40 })
    expect(w.bands).toBe(1)
    expect(w.nodes.map((p) => [p.x, p.y])).toEqual(layout.nodes.map((p) => [p.x, p.y]))
    expect(w.edges.every((e) => !e.continued)).toBe(true)
  })

  it('cuts a wider tree into bands of whole steps, none wider than the room, one under the other', () => {
    expect(layout.width).toBeGreaterThan(1200)
    const w = wrapBeam(layout, 600, half, { gap: 30, lead: 30, row: 40 })
    expect(w.bands).toBeGreaterThan(2)
    for (const p of w.nodes) {
      expect(p.x - half(p)).toBeGreaterThanOrEqual(0)
      expect(p.x + half(p)).toBeLessThanOrEqual(600)
    }
    // Bands do not overlap: every node of a later band is below every node of an earlier one.
    for (const a of w.nodes) for (const b of w.nodes) if (a.band < b.band) expect(b.y - a.y).toBeGreaterThanOrEqual(40)
    // Each step's nodes stay together, and an edge crossing a band boundary comes in from the left.
    const continued = w.edges.filter((e) => e.continued)
    expect(continued.length).toBe((w.bands - 1) * 2)
    for (const e of continued) expect(e.x1).toBe(0)
    expect(w.height).toBeLessThan(w.bands * (layout.height + 30))
  })
})
