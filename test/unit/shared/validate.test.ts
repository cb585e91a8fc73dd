import { describe, expect, it } from 'vitest'
import { decodeError, encodeError, CancelledError, LensError, RefusedError } from '../../../src/shared/errors'
import { DEFAULT_FIGURE } from '../../../src/shared/figure'
import { dispatch, events, parseArgs, routes, type Channel, type Handlers } from '../../../src/shared/routes'

const corpusFigure = { view: 'corpus', corpus: { pair: 'en-fr', testSet: 'Multi30K', results: [] } }

describe('every API call checks its arguments against its route', () => {
  it('routes and events have distinct channels and method names', () => {
    const methods = [...Object.values(routes), ...Object.values(events)].map((r) => r.method)
    expect(new Set(methods).size).toBe(methods.length)
    for (const c of Object.keys(events)) expect(Object.keys(routes)).not.toContain(c)
  })

  it('accepts what the renderer sends', () => {
    expect(parseArgs('translate:run', [{ modelId: 'bundled:x.onnx', text: 'A dog.', beam: 4 }])).toEqual([
      { modelId: 'bundled:x.onnx', text: 'A dog.', beam: 4 },
    ])
    expect(() => parseArgs('whatif:run', [{ modelId: 'm', text: 't', steps: 'all', mode: 'onehot', sourceIndex: 2, weights: undefined }])).not.toThrow()
    expect(() => parseArgs('providers:set', ['webgpu'])).not.toThrow()
    expect(() => parseArgs('export:figure', [corpusFigure, { ...DEFAULT_FIGURE, format: 'svg' }])).not.toThrow()
  })

  it.each([
    ['models:open', [42], /^The models:open call was refused: 0: Invalid type/],
    ['models:open', ['a', 'b'], /refused/],
    ['translate:run', [{ modelId: 'm', text: 'x', beam: 99 }], /refused: 0\.beam:/],
    ['translate:run', [{ modelId: 'm', text: 'x', path: '/etc/passwd' }], /refused: 0\.path:/],
    ['translate:run', [{ modelId: 'm', text: 'x'.repeat(100_001) }], /refused: 0\.text:/],
    ['whatif:run', [{ modelId: 'm', text: 't', steps: 'some', mode: 'uniform' }], /refused: 0\.steps:/],
    ['providers:set', ['../../lib'], /refused/],
    ['export:figure', [{ view: 'piechart' }, DEFAULT_FIGURE], /refused: 0\.view:/],
    ['export:figure', [corpusFigure, { ...DEFAULT_FIGURE, format: 'gif' }], /refused: 1\.format:/],
    ['export:copy', [corpusFigure, { ...DEFAULT_FIGURE, colormap: 'jet' }], /refused: 1\.colormap:/],
  ])('%s %j is refused in one sentence, as a RefusedError', (channel, args, message) => {
    let thrown: unknown
    try {
      parseArgs(channel as Channel, args)
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(RefusedError)
    expect((thrown as Error).name).toBe('RefusedError')
    expect((thrown as Error).message).toMatch(message)
  })

  it('dispatch refuses a channel that is not in the table, and never runs a handler with refused arguments', async () => {
    let ran = false
    const handlers = { 'models:open': async () => void (ran = true) } as unknown as Handlers
    await expect(dispatch(handlers, 'fs:read', [])).rejects.toThrow(/^There is no call named fs:read\.$/)
    await expect(dispatch(handlers, 'models:open', [42])).rejects.toMatchObject({ name: 'RefusedError' })
    expect(ran).toBe(false)
    await dispatch(handlers, 'models:open', ['bundled:x.onnx'])
    expect(ran).toBe(true)
  })
})

describe('errors keep their name across a boundary', () => {
  it('a CancelledError comes back as a CancelledError', () => {
    const back = decodeError(JSON.parse(JSON.stringify(encodeError(new CancelledError('The translation was cancelled.')))))
    expect(back).toBeInstanceOf(CancelledError)
    expect(back.name).toBe('CancelledError')
    expect(back.message).toBe('The translation was cancelled.')
  })

  it('any other error keeps its name, code and details', () => {
    const back = decodeError(encodeError(new LensError('No.', { name: 'ContractError', code: 'contract', details: { at: 1 } })))
    expect(back).toMatchObject({ name: 'ContractError', code: 'contract', message: 'No.', details: { at: 1 } })
    expect(decodeError(encodeError(new TypeError('x'))).name).toBe('TypeError')
  })
})
