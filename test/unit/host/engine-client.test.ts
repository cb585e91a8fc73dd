import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EngineClient, type EngineChannel } from '../../../src/host/engine-client'
import { forkEngine } from '../../../src/host/engine-fork'
import type { EngineRequest } from '../../../src/engine/protocol'
import { CancelledError } from '../../../src/shared/errors'
import { tempDir, tiny } from '../../helpers'

describe('the engine in its own process', () => {
  const engine = new EngineClient(() => forkEngine({ ...process.env, AL_ENGINE_TEST_HOOKS: '1' }))
  afterAll(() => engine.dispose())

  it('opens a model and translates through the process boundary', async () => {
    const info = await engine.call('open', tiny('bahdanau'))
    expect(info.attention).toBe('bahdanau')
    const t = await engine.call('translate', tiny('bahdanau'), 'A dog runs.')
    expect(t.attention.length).toBe(t.tgtTokens.length)
  })

  it('reports a contract error as one readable sentence, keeping its name', async () => {
    await expect(engine.call('open', '/nonexistent/model.onnx')).rejects.toMatchObject({
      name: 'ContractError',
      code: 'contract',
      message: 'The file /nonexistent/model.onnx does not exist.',
    })
  })

  it('survives a native crash: the call fails with a message, the engine restarts with the model reopened', async () => {
    const events: string[] = []
    const off = engine.onEvent((e) => events.push(e.message))
    await expect(engine.call('crash')).rejects.toMatchObject({
      name: 'EngineStoppedError',
      message: expect.stringMatching(/The engine process stopped \(signal SIGSEGV\) during crash; it was restarted\./),
    })
    expect(engine.restarts).toBe(1)
    await expect.poll(() => events.length).toBe(1)
    const t = await engine.call('translate', tiny('bahdanau'), 'A dog runs.')
    expect(t.tgtTokens.length).toBeGreaterThan(0)
    off()
  })
})

describe('corpus evaluation through the engine process', () => {
  const engine = new EngineClient(() => forkEngine())
  afterAll(() => engine.dispose())
  const srcs = Array.from({ length: 40 }, (_, i) => `A dog number ${i} runs in the park.`)
  const refs = srcs.map(() => 'Un chien court dans le parc.')

  it('reports progress and returns BLEU with buckets', async () => {
    const seen: number[] = []
    const r = await engine.callWith({ onProgress: (p) => seen.push(p.done) }, 'evaluate', tiny('bahdanau'), srcs, refs)
    expect(r.sentences).toBe(40)
    expect(r.hypotheses).toHaveLength(40)
    expect(seen.at(-1)).toBe(40)
    expect(seen.length).toBeGreaterThan(1)
    expect(r.byLength.reduce((a, b) => a + b.sentences, 0)).toBe(40)
  })

  it('can be cancelled: the engine stops and the call fails with a CancelledError', async () => {
    const ac = new AbortController()
    // 400 sentences (13 batches): with 120 the engine, on a loaded machine, once decoded its last
    // three batches before the cancel sent on the first progress reached it, and answered.
    const many = <T>(xs: T[]) => Array.from({ length: 10 }, () => xs).flat()
    const p = engine.callWith({ signal: ac.signal, onProgress: () => ac.abort() }, 'evaluate', tiny('local-p'), many(srcs), many(refs))
    await expect(p).rejects.toBeInstanceOf(CancelledError)
    await expect(p).rejects.toThrow('The evaluation was cancelled.')
  })
})

describe('a slow decode can be cancelled', () => {
  const engine = new EngineClient(() => forkEngine())
  afterAll(() => engine.dispose())

  it('a beam-16 decode of a 200-token input stops when asked', async () => {
    await engine.call('open', tiny('local-p'))
    const ac = new AbortController()
    const text = 'a dog runs on the beach near the water while a man watches '.repeat(20)
    const p = engine.callWith({ signal: ac.signal }, 'translate', tiny('local-p'), text, { beam: 16 })
    // The request is on its way: the engine reads the cancel after it, while that decode runs (an
    // engine that ignored the cancel would answer with a translation).
    ac.abort()
    await expect(p).rejects.toBeInstanceOf(CancelledError)
    await expect(p).rejects.toThrow('The translation was cancelled.')
    // And the engine answers the next call.
    const t = await engine.call('translate', tiny('local-p'), 'A dog.')
    expect(t.tgtTokens.length).toBeGreaterThan(0)
  })
})

describe('after a crash only the models in use are opened again', () => {
  // What the client sent to each engine process it started.
  const posted: EngineRequest[][] = []
  const engine = new EngineClient((): EngineChannel => {
    const ch = forkEngine({ ...process.env, AL_ENGINE_TEST_HOOKS: '1' })
    const mine: EngineRequest[] = []
    posted.push(mine)
    return { ...ch, post: (msg) => (mine.push(msg), ch.post(msg)) }
  })
  afterAll(() => engine.dispose())

  it('a closed model is not reopened; an open one is', async () => {
    await engine.call('open', tiny('bahdanau'))
    await engine.call('open', tiny('local-m'))
    await engine.call('close', tiny('bahdanau'))
    expect(engine.inUse()).toEqual([tiny('local-m')])
    await expect(engine.call('crash')).rejects.toMatchObject({ name: 'EngineStoppedError' })
    await expect.poll(() => posted.length).toBe(2)
    expect(posted[1].map((m) => ('method' in m ? [m.method, ...m.args] : m))).toEqual([['open', tiny('local-m')]])
  })

  it('remembers no more models than the engine keeps open, the most recently opened', async () => {
    const fifth = join(tempDir(), 'fifth.onnx')
    copyFileSync(tiny('none'), fifth)
    for (const path of [tiny('none'), tiny('bahdanau'), tiny('local-m'), tiny('local-p'), fifth, tiny('bahdanau')]) await engine.call('open', path)
    expect(engine.inUse()).toEqual([tiny('local-m'), tiny('local-p'), fifth, tiny('bahdanau')])
  })
})
