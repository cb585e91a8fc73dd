import { MAX_OPEN_MODELS } from '../engine/limits'
import type { EngineMethods, EngineRequest, EngineResponse } from '../engine/protocol'
import { CancelledError, EngineStoppedError, LensError } from '../shared/errors'
import { RpcClient, type ArgsOf, type CallOptions, type ResultOf } from '../shared/rpc'

/** A running engine process, whatever started it (child_process.fork or utilityProcess). */
export interface EngineChannel {
  post(msg: EngineRequest): void
  onMessage(listener: (msg: EngineResponse) => void): void
  onExit(listener: (reason: string) => void): void
  kill(): void
}

export type EngineEvent = { kind: 'restarted'; message: string }

type Method = keyof EngineMethods

/** What LensHost needs of the engine (a fake in tests). */
export type Engine = Pick<EngineClient, 'call' | 'callWith' | 'onEvent'>

const shutDown = () => new LensError('The engine is shut down.', { name: 'EngineShutDownError', code: 'engine-shut-down' })

/**
 * Talks to the engine process and keeps it alive: when it dies (a native crash while loading a
 * hostile file, say) every pending call fails with a readable message, a new process starts, and
 * the models that were open are opened again.
 */
export class EngineClient {
  private channel!: EngineChannel
  /** The calls to the process running now; a restarted process gets a new one. */
  private rpc!: RpcClient<EngineMethods>
  /** Models opened and not closed since, least recently opened first; the engine keeps no more than MAX_OPEN_MODELS. */
  private opened = new Set<string>()
  private listeners = new Set<(e: EngineEvent) => void>()
  private closed = false
  private provider: string | null = null
  private recentCrashes: number[] = []
  restarts = 0

  constructor(private spawn: () => EngineChannel) {
    this.start()
  }

  private start(): void {
    const ch = this.spawn()
    const rpc = new RpcClient<EngineMethods>((req: EngineRequest) => ch.post(req))
    this.channel = ch
    this.rpc = rpc
    ch.onMessage((msg) => rpc.receive(msg))
    ch.onExit((reason) => {
      if (ch !== this.channel || this.closed) return
      const what = rpc.waiting()
      const message = `The engine process stopped (${reason})${what.length ? ` during ${what[0]}` : ''}; it was restarted.`
      rpc.failAll(() => new EngineStoppedError(message, { reason, during: what[0] ?? null }))
      this.restarts++
      // An engine that dies again and again (a broken install) is not restarted in a tight loop.
      const now = Date.now()
      this.recentCrashes = [...this.recentCrashes.filter((t) => now - t < 60_000), now]
      const delay = this.recentCrashes.length > 3 ? Math.min(30_000, 1000 * 2 ** (this.recentCrashes.length - 3)) : 0
      setTimeout(() => {
        if (this.closed) return
        this.start()
        if (this.provider) void this.call('setProvider', this.provider).catch(() => undefined)
        for (const path of this.inUse()) void this.call('open', path).catch(() => this.opened.delete(path))
        for (const l of this.listeners) l({ kind: 'restarted', message })
      }, delay)
    })
  }

  call<M extends Method>(method: M, ...args: ArgsOf<EngineMethods, M>): Promise<ResultOf<EngineMethods, M>> {
    return this.callWith({}, method, ...args)
  }

  /** A call that reports progress and can be cancelled (corpus evaluation, a translation). */
  async callWith<M extends Method>(opts: CallOptions, method: M, ...args: ArgsOf<EngineMethods, M>): Promise<ResultOf<EngineMethods, M>> {
    if (this.closed) throw shutDown()
    if (opts.signal?.aborted) throw new CancelledError(`The ${method === 'evaluate' ? 'evaluation' : 'translation'} was cancelled.`)
    // Closed as soon as asked: a crash before the answer must not bring it back.
    if (method === 'close') this.opened.delete(args[0] as string)
    const r = await this.rpc.callWith(opts, method, ...args)
    if (method === 'open') this.markOpen(args[0] as string)
    if (method === 'setProvider') this.provider = args[0] as string
    return r
  }

  private markOpen(path: string): void {
    this.opened.delete(path)
    this.opened.add(path)
    // The engine evicts beyond its limit; those are not "in use" and are not reopened after a crash.
    for (const p of this.opened) if (this.opened.size > MAX_OPEN_MODELS) this.opened.delete(p)
  }

  /** The models a restarted engine opens again: opened, not closed, the most recent few. */
  inUse(): string[] {
    return [...this.opened]
  }

  onEvent(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  dispose(): void {
    this.closed = true
    this.rpc.failAll(shutDown)
    this.channel.kill()
  }
}
