import type { BeamNode, BeamTree } from '../shared/teaching'

/** A beam hypothesis as decode.ts keeps it: its last step, and the hypothesis it grew from. */
export interface TriedHyp {
  parent: TriedHyp | null
  rec: { token: number; logProb: number; capture: { attention: number[] | null } } | null
  score: number
}

/**
 * The search as a tree, from every candidate the beam search made (`tried`) and the one it chose:
 * each candidate is a node, its parent the hypothesis it extends (the start of the sentence for
 * the first step). `shown` are the chosen output's tokens as the translation shows them (an
 * <unk> replaced by a source word), so the chosen path reads as the output does.
 */
export function beamTreeOf(tried: TriedHyp[], chosen: TriedHyp | null, vocab: string[], eos: number, width: number, shown: string[] = []): BeamTree {
  const index = new Map<TriedHyp, number>()
  const nodes: BeamNode[] = []
  const steps: number[] = []
  const ids: number[] = []
  const hasChild = new Set<number>()
  const add = (h: TriedHyp): number => {
    const known = index.get(h)
    if (known !== undefined) return known
    if (!h.rec) return -1
    const parent = h.parent ? add(h.parent) : -1
    const step = parent >= 0 ? steps[parent] + 1 : 0
    if (parent >= 0) hasChild.add(parent)
    index.set(h, nodes.length)
    steps.push(step)
    ids.push(h.rec.token)
    nodes.push({
      parent,
      step,
      token: vocab[h.rec.token] ?? '<unk>',
      logProb: h.rec.logProb,
      score: h.score,
      attention: h.rec.capture.attention ?? [],
      status: 'pruned',
    })
    return nodes.length - 1
  }
  for (const h of tried) add(h)
  const path = new Set<number>()
  for (let h = chosen; h?.rec; h = h.parent) path.add(add(h))
  nodes.forEach((n, i) => {
    if (path.has(i)) {
      n.status = 'chosen'
      n.token = shown[n.step] ?? n.token
    } else n.status = ids[i] === eos ? 'finished' : hasChild.has(i) ? 'kept' : 'pruned'
  })
  return { width, nodes }
}
