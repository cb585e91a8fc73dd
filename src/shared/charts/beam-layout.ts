import type { BeamNode, BeamTree } from '../teaching'

/** A node of the beam tree placed on the page; index -1 is the start of the sentence. */
export interface PlacedNode {
  index: number
  x: number
  y: number
  node: BeamNode | null
}

export interface BeamLayout {
  nodes: PlacedNode[]
  edges: { from: PlacedNode; to: PlacedNode }[]
  width: number
  height: number
  /** Node indices of the winning hypothesis, first step first. */
  chosen: number[]
  /** Each step's column: its centre and width. */
  columns: { x: number; width: number }[]
}

export interface BeamLayoutOptions {
  /** Draw the hypotheses that fell out of the beam (faded). */
  pruned: boolean
  /** Height of a row. */
  row: number
  /** Width of a token in pixels. */
  measure: (token: string) => number
  /** Space between columns, and the width kept for the start of the sentence (28 and 40 on screen). */
  gap?: number
  start?: number
}

/**
 * A left-to-right tree: one column per output step, each hypothesis' continuations below one
 * another, the winning one first and then best score first, each node level with its first
 * continuation, so the winning path reads as a straight line along the top.
 */
export function layoutBeam(tree: BeamTree, o: BeamLayoutOptions): BeamLayout {
  const visible = (n: BeamNode) => o.pruned || n.status !== 'pruned'
  const children = new Map<number, number[]>()
  tree.nodes.forEach((n, i) => {
    if (!visible(n)) return
    const list = children.get(n.parent) ?? []
    list.push(i)
    children.set(n.parent, list)
  })
  // The winning hypothesis first (a length penalty may choose one that is not the best so far),
  // then best score first.
  const first = (i: number) => (tree.nodes[i].status === 'chosen' ? 1 : 0)
  for (const list of children.values()) list.sort((a, b) => first(b) - first(a) || tree.nodes[b].score - tree.nodes[a].score)
  const steps = tree.nodes.reduce((m, n) => Math.max(m, n.step + 1), 0)
  const colWidth = Array.from({ length: steps }, () => 0)
  tree.nodes.forEach((n) => visible(n) && (colWidth[n.step] = Math.max(colWidth[n.step], o.measure(n.token))))
  const gap = o.gap ?? 28
  const start = o.start ?? 40
  const colX: number[] = []
  let x = start + gap
  for (let t = 0; t < steps; t++) {
    colX.push(x + colWidth[t] / 2)
    x += colWidth[t] + gap
  }
  const placed = new Map<number, PlacedNode>()
  // Each hypothesis' subtree is packed as a rigid shape: its nodes' cells (column, row) and, per
  // gap between two columns, the rows its parent-to-child curves span. A parent puts its best
  // continuation level with itself and each next one on the first row below the one before where
  // no cell of the continuation's subtree is taken and none of its curves runs beside another
  // parent's: a branch that ends early sits just under its parent instead of below every longer
  // branch before it (a 14-word tree was three times taller than its rows needed), and no two
  // branches cross.
  interface Shape {
    cells: Map<number, Set<number>>
    spans: Map<number, [number, number][]>
    rows: Map<number, number>
  }
  const column = (i: number) => (i < 0 ? -1 : tree.nodes[i].step)
  const fits = (into: Shape, sub: Shape, dy: number) => {
    for (const [c, rs] of sub.cells) {
      const taken = into.cells.get(c)
      if (taken) for (const r of rs) if (taken.has(r + dy)) return false
    }
    for (const [g, list] of sub.spans) {
      const taken = into.spans.get(g) ?? []
      for (const [a, b] of list) if (taken.some(([x, y]) => a + dy <= y && x <= b + dy)) return false
    }
    return true
  }
  const merge = (into: Shape, sub: Shape, dy: number) => {
    for (const [c, rs] of sub.cells) {
      const set = into.cells.get(c) ?? new Set<number>()
      for (const r of rs) set.add(r + dy)
      into.cells.set(c, set)
    }
    for (const [g, list] of sub.spans) into.spans.set(g, [...(into.spans.get(g) ?? []), ...list.map(([a, b]): [number, number] => [a + dy, b + dy])])
    for (const [i, r] of sub.rows) into.rows.set(i, r + dy)
  }
  const shape = (i: number): Shape => {
    const c = column(i)
    const own: Shape = { cells: new Map([[c, new Set([0])]]), spans: new Map(), rows: new Map([[i, 0]]) }
    let dy = -1
    for (const k of children.get(i) ?? []) {
      const sub = shape(k)
      dy += 1
      while (!fits(own, sub, dy)) dy += 1
      merge(own, sub, dy)
    }
    if (dy >= 0) own.spans.set(c, [[0, dy]])
    return own
  }
  let rows = 0
  for (const [i, r] of shape(-1).rows) {
    rows = Math.max(rows, r + 1)
    placed.set(i, { index: i, x: i < 0 ? start / 2 : colX[tree.nodes[i].step], y: r * o.row + o.row / 2, node: i < 0 ? null : tree.nodes[i] })
  }
  const nodes = [...placed.values()].sort((a, b) => a.index - b.index)
  const edges = nodes.filter((p) => p.node).map((p) => ({ from: placed.get(p.node!.parent)!, to: p }))
  const chosen = tree.nodes
    .map((n, i) => ({ n, i }))
    .filter(({ n }) => n.status === 'chosen')
    .sort((a, b) => a.n.step - b.n.step)
    .map(({ i }) => i)
  const columns = colX.map((cx, t) => ({ x: cx, width: colWidth[t] }))
  return { nodes, edges, width: x + start / 2, height: Math.max(rows, 1) * o.row, chosen, columns }
}

/** The hypothesis ending at a node: its nodes from the first step on. */
export function pathTo(tree: BeamTree, index: number): number[] {
  const path: number[] = []
  for (let i = index; i >= 0; i = tree.nodes[i].parent) path.unshift(i)
  return path
}
