import { describe, expect, it } from 'vitest'
import { Priority, TYPING_BATCH } from '../../../src/engine/priority'
import { evaluateCorpus } from '../../../src/engine/evaluate'
import { LoadedModel } from '../../../src/engine/model'
import { tiny } from '../../helpers'

describe('interactive calls before batch work', () => {
  it('batch work waits at its next turn while an interactive call runs, and goes on once none is left', async () => {
    const p = new Priority()
    const log: string[] = []
    let finish!: () => void
    const keystroke = p.interactiveCall(() => new Promise<void>((r) => (finish = r)).then(() => log.push('keystroke done')))
    const batch = (async () => {
      for (let i = 0; i < 3; i++) {
        await p.turn(32)
        log.push(`batch ${i}`)
      }
    })()
    await new Promise((r) => setTimeout(r, 20))
    expect(log).toEqual([])
    finish()
    await Promise.all([keystroke, batch])
    expect(log).toEqual(['keystroke done', 'batch 0', 'batch 1', 'batch 2'])
  })

  it('small batches while someone typed in the last seconds, full ones otherwise', async () => {
    let now = 0
    const p = new Priority(() => now)
    expect(await p.turn(32)).toBe(32)
    await p.interactiveCall(async () => undefined)
    now += 1000
    expect(await p.turn(32)).toBe(TYPING_BATCH)
    expect(await p.turn(2)).toBe(2)
    now += 5000
    expect(await p.turn(32)).toBe(32)
  })

  it('a failed interactive call still gives batch work its turn', async () => {
    const p = new Priority()
    await expect(p.interactiveCall(() => Promise.reject(new Error('no')))).rejects.toThrow('no')
    await expect(p.turn(32)).resolves.toBe(TYPING_BATCH)
  })

  it('corpus evaluation asks for its turn before every batch and takes the size it is given', async () => {
    const model = await LoadedModel.open(tiny('bahdanau'))
    try {
      const srcs = Array.from({ length: 10 }, (_, i) => `A dog number ${i} runs.`)
      const asked: number[] = []
      const done: number[] = []
      const full = await evaluateCorpus(model, srcs, srcs, { batchSize: 4 })
      const r = await evaluateCorpus(model, srcs, srcs, {
        batchSize: 4,
        turn: async (batch) => (asked.push(batch), asked.length === 1 ? 4 : 1),
        onProgress: (p) => done.push(p.done),
      })
      expect(asked).toEqual([4, 4, 4, 4, 4, 4, 4])
      expect(done).toEqual([4, 5, 6, 7, 8, 9, 10])
      // The same translations and scores whatever the batches.
      expect(r.hypotheses).toEqual(full.hypotheses)
      expect(r.bleu).toBe(full.bleu)
    } finally {
      await model.release()
    }
  })
})
