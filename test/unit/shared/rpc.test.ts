import { describe, expect, it } from 'vitest'
import { CancelledError, LensError } from '../../../src/shared/errors'
import { RpcClient, rpcServer, type Request, type Response } from '../../../src/shared/rpc'

type Calls = {
  add(a: number, b: number): Promise<number>
  count(to: number): Promise<string>
  wait(): Promise<void>
}

/** Client and server joined by an asynchronous in-memory transport, as a process boundary is. */
function wired() {
  const seen: Request<Calls>[] = []
  const server = rpcServer<Calls>(
    {
      add: async (_ctx, a, b) => a + b,
      count: async (ctx, to) => {
        for (let i = 1; i <= to; i++) ctx.progress({ done: i, total: to })
        return 'counted'
      },
      wait: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new CancelledError('The wait was cancelled.')))),
    },
    (msg: Response) => setImmediate(() => client.receive(msg)),
  )
  const client: RpcClient<Calls> = new RpcClient<Calls>((req) => (seen.push(req), setImmediate(() => server(req))))
  return { client, server, seen }
}

describe('one typed request/response helper for the engine and the figure worker', () => {
  it('answers each call with its own result', async () => {
    const { client } = wired()
    expect(await Promise.all([client.call('add', 1, 2), client.call('add', 40, 2)])).toEqual([3, 42])
  })

  it('reports progress before the result', async () => {
    const { client } = wired()
    const seen: number[] = []
    expect(await client.callWith({ onProgress: (p) => seen.push(p.done) }, 'count', 3)).toBe('counted')
    expect(seen).toEqual([1, 2, 3])
  })

  it('cancels: the handler sees its signal abort and the call fails with the error, its name kept', async () => {
    const { client, seen } = wired()
    const ac = new AbortController()
    const p = client.callWith({ signal: ac.signal }, 'wait')
    ac.abort()
    await expect(p).rejects.toMatchObject({ name: 'CancelledError', message: 'The wait was cancelled.' })
    expect(seen.map((r) => ('cancel' in r ? 'cancel' : r.method))).toEqual(['wait', 'cancel'])
  })

  it('a method the table does not have is refused, not run', async () => {
    const answers: Response[] = []
    const lone = rpcServer<Calls>({ add: async () => 0, count: async () => '', wait: async () => undefined }, (m) => answers.push(m))
    lone({ id: 7, method: 'toString', args: [] } as unknown as Request<Calls>)
    await new Promise((r) => setImmediate(r))
    expect(answers).toEqual([{ id: 7, error: expect.objectContaining({ message: 'There is no call named toString.' }) }])
  })

  it('failAll fails every call still waiting (the other side stopped)', async () => {
    const client = new RpcClient<Calls>(() => undefined)
    const a = client.call('add', 1, 1)
    const b = client.call('count', 2)
    expect(client.waiting()).toEqual(['add', 'count'])
    client.failAll((m) => new LensError(`stopped during ${m}`, { name: 'EngineStoppedError', code: 'engine-stopped' }))
    await expect(a).rejects.toMatchObject({ name: 'EngineStoppedError', message: 'stopped during add' })
    await expect(b).rejects.toMatchObject({ message: 'stopped during count' })
    expect(client.waiting()).toEqual([])
  })
})
