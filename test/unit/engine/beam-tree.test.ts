import { describe, expect, it } from 'vitest'
import { beamTreeOf, type TriedHyp } from '../../../src/engine/beam-tree'

const VOCAB = ['<pad>', '<s>', '</s>', 'a', 'b', 'c']
const ROOT: TriedHyp = { parent: null, rec: null, score: 0 }
/** A hypothesis growing `parent` by `token`, as decode.ts's beam search makes them. */
const grow = (parent: TriedHyp, token: number, logProb: number): TriedHyp => ({
  parent,
  rec: { token, logProb, capture: { attention: [token / 10] } },
  score: parent.score + logProb,
})

describe('beamTreeOf', () => {
  it('makes one node per hypothesis tried, links it to the one it grew from, and marks chosen, finished, kept and pruned', () => {
    // Step 1: a and b kept, c pruned. Step 2: a→</s> finishes and wins; a→c and b→a pruned, b→b kept.
    const a = grow(ROOT, 3, -0.5)
    const b = grow(ROOT, 4, -1)
    const c = grow(ROOT, 5, -3)
    const aEnd = grow(a, 2, -0.2)
    const ac = grow(a, 5, -2)
    const ba = grow(b, 3, -2.5)
    const bb = grow(b, 4, -0.3)
    const bbc = grow(bb, 5, -0.1)
    const tree = beamTreeOf([a, b, c, aEnd, ac, ba, bb, bbc], aEnd, VOCAB, 2, 2)
    expect(tree.width).toBe(2)
    expect(tree.nodes.map((n) => [n.token, n.parent, n.step, n.status])).toEqual([
      ['a', -1, 0, 'chosen'],
      ['b', -1, 0, 'kept'],
      ['c', -1, 0, 'pruned'],
      ['</s>', 0, 1, 'chosen'],
      ['c', 0, 1, 'pruned'],
      ['a', 1, 1, 'pruned'],
      ['b', 1, 1, 'kept'],
      ['c', 6, 2, 'pruned'],
    ])
    expect(tree.nodes[3].score).toBeCloseTo(-0.7, 9)
    expect(tree.nodes[7].score).toBeCloseTo(-1.4, 9)
    expect(tree.nodes[4].attention).toEqual([0.5])
  })

  it('a finished hypothesis that did not win is marked finished; the chosen path shows the output’s own tokens', () => {
    const a = grow(ROOT, 3, -0.5)
    const end = grow(a, 2, -0.1)
    const b = grow(ROOT, 4, -0.2)
    const bEnd = grow(b, 2, -0.1)
    const tree = beamTreeOf([a, b, end, bEnd], bEnd, VOCAB, 2, 2, ['Paris', '</s>'])
    expect(tree.nodes.map((n) => [n.token, n.status])).toEqual([
      ['a', 'kept'],
      ['Paris', 'chosen'],
      ['</s>', 'finished'],
      ['</s>', 'chosen'],
    ])
  })
})
