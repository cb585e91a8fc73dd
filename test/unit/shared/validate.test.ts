import { describe, expect, it } from 'vitest'
import { Channels } from '../../../src/shared/api'
import { ARGS, checkArgs } from '../../../src/shared/validate'

describe('every API call checks its arguments', () => {
  it('has a schema for every channel that carries a call', () => {
    const events = new Set<string>([Channels.engineStatus, Channels.menuOpenModel, Channels.corpusProgress])
    for (const c of Object.values(Channels)) if (!events.has(c)) expect(ARGS[c], c).toBeDefined()
  })

  it('accepts what the renderer sends', () => {
    expect(() => checkArgs(Channels.translateRun, [{ modelId: 'bundled:x.onnx', text: 'A dog.', beam: 4 }])).not.toThrow()
    expect(() => checkArgs(Channels.whatIfRun, [{ modelId: 'm', text: 't', steps: 'all', mode: 'onehot', sourceIndex: 2, weights: undefined }])).not.toThrow()
    expect(() => checkArgs(Channels.providersSet, ['webgpu'])).not.toThrow()
  })

  it.each([
    [Channels.modelsOpen, [42], /^The models:open call was refused: 0: Invalid type/],
    [Channels.modelsOpen, ['a', 'b'], /refused/],
    [Channels.translateRun, [{ modelId: 'm', text: 'x', beam: 99 }], /refused: 0\.beam:/],
    [Channels.translateRun, [{ modelId: 'm', text: 'x', path: '/etc/passwd' }], /refused: 0\.path:/],
    [Channels.translateRun, [{ modelId: 'm', text: 'x'.repeat(100_001) }], /refused: 0\.text:/],
    [Channels.whatIfRun, [{ modelId: 'm', text: 't', steps: 'some', mode: 'uniform' }], /refused: 0\.steps:/],
    [Channels.providersSet, ['../../lib'], /refused/],
    ['fs:read', [], /^There is no call named fs:read\.$/],
  ])('%s %j is refused in one sentence', (channel, args, message) => {
    expect(() => checkArgs(channel, args as unknown[])).toThrow(message)
  })
})
