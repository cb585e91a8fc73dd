import { afterAll, describe, expect, it } from 'vitest'
import { EngineClient } from '../../../src/main/engine-client'
import { forkEngine } from '../../../src/main/engine-fork'
import { tiny } from '../../helpers'

describe('the engine in its own process', () => {
  const engine = new EngineClient(() => forkEngine({ ...process.env, AL_ENGINE_TEST_HOOKS: '1' }))
  afterAll(() => engine.dispose())

  it('opens a model and translates through the process boundary', async () => {
    const info = await engine.call('open', tiny('bahdanau'))
    expect(info.attention).toBe('bahdanau')
    const t = await engine.call('translate', tiny('bahdanau'), 'A dog runs.')
    expect(t.attention.length).toBe(t.tgtTokens.length)
  })

  it('reports a contract error as one readable sentence', async () => {
    await expect(engine.call('open', '/nonexistent/model.onnx')).rejects.toThrow('The file /nonexistent/model.onnx does not exist.')
  })

  it('survives a native crash: the call fails with a message, the engine restarts with the model reopened', async () => {
    const events: string[] = []
    const off = engine.onEvent((e) => events.push(e.message))
    await expect(engine.call('crash')).rejects.toThrow(/The engine process stopped \(signal SIGSEGV\) during crash; it was restarted\./)
    expect(engine.restarts).toBe(1)
    expect(events).toHaveLength(1)
    const t = await engine.call('translate', tiny('bahdanau'), 'A dog runs.')
    expect(t.tgtTokens.length).toBeGreaterThan(0)
    off()
  })
})
