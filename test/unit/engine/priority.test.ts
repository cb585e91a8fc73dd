import { describe, expect, it } from 'vitest'
import { Priority } from '../../../src/engine/priority'
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
        await p.turn()
        log.push(`batch ${i}`)
      }
    })()
    await new Promise((r) => setTimeout(r, 20))
    expect(log).toEqual([])
    finish()
    await Promise.all([keystroke, batch])
    expect(log).toEqual(['keystroke done', 'batch 0', 'batch 1', 'batch 2'])
  })

  it('a failed interactive call still gives batch work its turn', async () => {
    const p = new Priority()
    await expect(p.interactiveCall(() => Promise.reject(new Error('no')))).rejects.toThrow('no')
    await expect(p.turn()).resolves.toBeUndefined()
  })

  it('corpus evaluation asks for its turn before every batch', async () => {
    const model = await LoadedModel.open(tiny('bahdanau'))
    try {
      let turns = 0
      const srcs = Array.from({ length: 10 }, (_, i) => `A dog number ${i} runs.`)
      await evaluateCorpus(model, srcs, srcs, { batchSize: 4, turn: async () => void turns++ })
      expect(turns).toBe(3)
    } finally {
      await model.release()
    }
  })
})
