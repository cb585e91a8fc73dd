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
  /** Height of a row for a kept node and for a pruned one. */
  row: number
  prunedRow: number
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
  let cursor = 0
  const place = (i: number): number => {
    const kids = children.get(i) ?? []
    let y: number
    if (kids.length === 0) {
      const h = i >= 0 && tree.nodes[i].status === 'pruned' ? o.prunedRow : o.row
      y = cursor + h / 2
      cursor += h
    } else {
      // Level with its best continuation: the winning path runs straight along the top.
      y = kids.map(place)[0]
    }
    placed.set(i, { index: i, x: i < 0 ? start / 2 : colX[tree.nodes[i].step], y, node: i < 0 ? null : tree.nodes[i] })
    return y
  }
  place(-1)
  const nodes = [...placed.values()].sort((a, b) => a.index - b.index)
  const edges = nodes.filter((p) => p.node).map((p) => ({ from: placed.get(p.node!.parent)!, to: p }))
  const chosen = tree.nodes
    .map((n, i) => ({ n, i }))
    .filter(({ n }) => n.status === 'chosen')
    .sort((a, b) => a.n.step - b.n.step)
    .map(({ i }) => i)
  const columns = colX.map((cx, t) => ({ x: cx, width: colWidth[t] }))
  return { nodes, edges, width: x + start / 2, height: Math.max(cursor, o.row), chosen, columns }
}

/** The hypothesis ending at a node: its nodes from the first step on. */
export function pathTo(tree: BeamTree, index: number): number[] {
  const path: number[] = []
  for (let i = index; i >= 0; i = tree.nodes[i].parent) path.unshift(i)
  return path
}
