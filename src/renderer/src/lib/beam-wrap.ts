/**
 * The beam tree wrapped to a width, as a line of text wraps: its step columns cut into bands no
 * wider than the room, the bands one under the other, each as tall as the tree. An edge whose
 * parent sits in the band above enters its band from the left edge at the child's height, so a
 * reader follows a hypothesis down to the next band. Presentation mode uses it so that a
 * 20-step tree at 20 px stays on a 1280 px projector instead of running off to the right.
 */
import type { BeamLayout, PlacedNode } from '../../../shared/charts/beam-layout'

export interface WrappedNode extends PlacedNode {
  band: number
}

export interface WrappedEdge {
  to: WrappedNode
  /** Where the edge starts: the parent's right side, or its band's left edge when the parent is in the band above. */
  x1: number
  y1: number
  x2: number
  y2: number
  /** The parent is in an earlier band: the edge is a stub coming in from the left. */
  continued: boolean
}

export interface WrappedBeam {
  nodes: WrappedNode[]
  edges: WrappedEdge[]
  width: number
  height: number
  bands: number
}

/**
 * `layout` cut into bands of whole step columns at most `maxWidth` wide (a column wider than that
 * gets a band of its own). `half(node)` is half a node's drawn width, where its edges meet it;
 * `gap` the space between bands; `lead` the room at a band's left edge for the incoming stubs; `row`
 * a node row's height (each band is as tall as the rows of its own nodes).
 */
export function wrapBeam(layout: BeamLayout, maxWidth: number, half: (p: PlacedNode) => number, o: { gap: number; lead: number; row: number }): WrappedBeam {
  const cols = layout.columns
  // Each step column's band, and the x its band starts at in the unwrapped tree.
  const band: number[] = []
  const origin: number[] = [0]
  let b = 0
  for (let t = 0; t < cols.length; t++) {
    const left = cols[t].x - cols[t].width / 2
    const right = cols[t].x + cols[t].width / 2
    if (t > 0 && right - origin[b] + o.lead > maxWidth) {
      b++
      origin.push(left - o.lead)
    }
    band.push(b)
  }
  const bands = b + 1
  const bandOf = (p: PlacedNode) => (p.node ? band[p.node.step] : 0)
  // Each band as tall as its own nodes (a row's height around them), not the whole tree's.
  const top = Array.from({ length: bands }, () => Infinity)
  const bottom = Array.from({ length: bands }, () => -Infinity)
  for (const p of layout.nodes) {
    const k = bandOf(p)
    top[k] = Math.min(top[k], p.y - o.row / 2)
    bottom[k] = Math.max(bottom[k], p.y + o.row / 2)
  }
  const shift: number[] = []
  let y = 0
  for (let k = 0; k < bands; k++) {
    shift.push(bands === 1 ? 0 : y - top[k])
    y += bottom[k] - top[k] + o.gap
  }
  const moved = new Map<number, WrappedNode>()
  for (const p of layout.nodes) {
    const k = bandOf(p)
    moved.set(p.index, { ...p, band: k, x: p.x - origin[k], y: p.y + shift[k] })
  }
  const nodes = layout.nodes.map((p) => moved.get(p.index)!)
  const edges = layout.edges.map((e): WrappedEdge => {
    const from = moved.get(e.from.index)!
    const to = moved.get(e.to.index)!
    const continued = from.band !== to.band
    return {
      to,
      x1: continued ? 0 : from.x + half(from),
      y1: continued ? to.y : from.y,
      x2: to.x - half(to),
      y2: to.y,
      continued,
    }
  })
  const width = Math.max(...nodes.map((p) => p.x + half(p))) + 8
  return { nodes, edges, width, height: bands === 1 ? layout.height : y - o.gap, bands }
}
