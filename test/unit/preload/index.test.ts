import { beforeAll, describe, expect, it, vi } from 'vitest'
import { CancelledError } from '../../../src/shared/errors'
import { events, routes, type IpcBridge } from '../../../src/shared/routes'
import { fromBridge } from '../../../src/renderer/src/lib/ipc-api'

/** The preload under a mocked `electron`: what it exposes, what it sends, what it hands back. */
const fake = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  invoke: vi.fn(async (..._args: unknown[]): Promise<unknown> => ({ result: null })),
  listeners: new Map<string, Set<(...a: unknown[]) => void>>(),
}))

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => fake.exposed.set(key, api) },
  ipcRenderer: {
    invoke: fake.invoke,
    on: (channel: string, l: (...a: unknown[]) => void) => fake.listeners.set(channel, (fake.listeners.get(channel) ?? new Set()).add(l)),
    removeListener: (channel: string, l: (...a: unknown[]) => void) => fake.listeners.get(channel)?.delete(l),
  },
  webUtils: { getPathForFile: (file: { name: string }) => `/home/user/Downloads/${file.name}` },
}))

const emit = (channel: string, payload: unknown) => fake.listeners.get(channel)?.forEach((l) => l({ sender: {} }, payload))
let bridge: IpcBridge

describe('preload', () => {
  beforeAll(async () => {
    await import('../../../src/preload/index')
    bridge = fake.exposed.get('lensIpc') as IpcBridge
  })

  it('exposes one function per route and per event, and nothing else (no ipcRenderer)', () => {
    expect([...fake.exposed.keys()]).toEqual(['lensIpc'])
    const methods = [...Object.values(routes), ...Object.values(events)].map((r) => r.method).sort()
    expect(Object.keys(bridge).sort()).toEqual(methods)
    for (const m of methods) expect(typeof (bridge as unknown as Record<string, unknown>)[m]).toBe('function')
  })

  it('sends each call on its route channel with its arguments, and answers the envelope', async () => {
    const req = { modelId: 'bundled:a.onnx', text: 'A dog.' }
    fake.invoke.mockResolvedValueOnce({ result: { text: 'Un chien.' } })
    expect(await bridge.translate(req)).toEqual({ result: { text: 'Un chien.' } })
    expect(fake.invoke).toHaveBeenLastCalledWith('translate:run', req)
    for (const [channel, route] of Object.entries(routes)) {
      if (channel === 'models:open-dropped') continue
      await (bridge as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[route.method]('x')
      expect(fake.invoke).toHaveBeenLastCalledWith(channel, 'x')
    }
  })

  it('a dropped file goes to main as its path, which only the preload can read', async () => {
    await bridge.openDroppedFile({ name: 'mine.onnx' } as File)
    expect(fake.invoke).toHaveBeenLastCalledWith('models:open-dropped', '/home/user/Downloads/mine.onnx')
  })

  it('on the page, an {error} envelope becomes an Error with its name: a CancelledError is one', async () => {
    const api = fromBridge(bridge)
    fake.invoke.mockResolvedValueOnce({ error: { name: 'CancelledError', code: 'cancelled', message: 'The translation was cancelled.' } })
    const cancelled = await api.translate({ modelId: 'm', text: 't' }).catch((e: unknown) => e)
    expect(cancelled).toBeInstanceOf(CancelledError)
    expect(cancelled).toMatchObject({ name: 'CancelledError', message: 'The translation was cancelled.' })
    fake.invoke.mockResolvedValueOnce({ error: { name: 'ContractError', code: 'contract', message: 'The file is not an ONNX model.' } })
    await expect(api.openDroppedFile({ name: 'x.onnx' } as File)).rejects.toMatchObject({
      name: 'ContractError',
      code: 'contract',
      message: 'The file is not an ONNX model.',
    })
    fake.invoke.mockResolvedValueOnce({ result: [{ id: 'bundled:a.onnx' }] })
    expect(await api.listModels()).toEqual([{ id: 'bundled:a.onnx' }])
    expect(api.transport).toBe('electron')
  })

  it('events reach the listener until it unsubscribes', () => {
    const seen: unknown[] = []
    const off = bridge.onEngineStatus((s) => seen.push(s))
    const menu = vi.fn()
    const offMenu = fromBridge(bridge).onMenuOpenModel(menu)
    emit('engine:status', { state: 'restarted', message: 'It stopped.' })
    emit('menu:open-model', undefined)
    expect(seen).toEqual([{ state: 'restarted', message: 'It stopped.' }])
    expect(menu).toHaveBeenCalledTimes(1)
    off()
    offMenu()
    emit('engine:status', { state: 'restarted', message: 'Again.' })
    emit('menu:open-model', undefined)
    expect(seen).toHaveLength(1)
    expect(menu).toHaveBeenCalledTimes(1)
    expect(fake.listeners.get('engine:status')?.size).toBe(0)
  })
})
