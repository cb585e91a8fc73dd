import { afterAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { tiny } from '../../helpers'

const service = new InferenceService()
afterAll(() => service.closeAll())

describe('the beam search records its tree', () => {
  it('the chosen path is the output, token by token, with its attention; every step has at most width² candidates', async () => {
    const K = 3
    const t = await service.translate(tiny('bahdanau'), 'A man in a blue shirt is standing on a ladder.', { beam: K })
    const tree = t.beamTree!
    expect(tree.width).toBe(K)
    const chosen = tree.nodes.filter((n) => n.status === 'chosen').sort((a, b) => a.step - b.step)
    expect(chosen.map((n) => n.token)).toEqual(t.tgtTokens)
    expect(chosen.map((n) => n.step)).toEqual(t.tgtTokens.map((_, i) => i))
    chosen.forEach((n, i) => {
      expect(n.attention).toEqual(t.attention[i])
      expect(n.logProb).toBeCloseTo(t.tokenLogProbs[i], 5)
    })
    expect(chosen.at(-1)!.score).toBeCloseTo(t.logProb, 4)
    // Each chosen node hangs from the one before it.
    chosen.slice(1).forEach((n, i) => expect(tree.nodes[n.parent]).toBe(chosen[i]))
    const perStep = new Map<number, number>()
    for (const n of tree.nodes) perStep.set(n.step, (perStep.get(n.step) ?? 0) + 1)
    expect(perStep.get(0)).toBe(K)
    for (const count of perStep.values()) expect(count).toBeLessThanOrEqual(K * K)
    expect(tree.nodes.some((n) => n.status === 'pruned')).toBe(true)
  })

  it('greedy decoding carries no tree', async () => {
    expect((await service.translate(tiny('bahdanau'), 'A dog.')).beamTree).toBeUndefined()
  })
})
