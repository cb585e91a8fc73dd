import { MAX_OPEN_MODELS } from '../engine/limits'
import type { EngineMethod, EngineMethods, EngineRequest, EngineResponse } from '../engine/protocol'
import { CancelledError, decodeError, EngineStoppedError, LensError } from '../shared/errors'

/** A running engine process, whatever started it (child_process.fork or utilityProcess). */
export interface EngineChannel {
  post(msg: EngineRequest): void
  onMessage(listener: (msg: EngineResponse) => void): void
  onExit(listener: (reason: string) => void): void
  kill(): void
}

export type EngineEvent = { kind: 'restarted'; message: string }

interface Pending {
  method: EngineMethod
  resolve(v: unknown): void
  reject(e: Error): void
  onProgress?: (p: { done: number; total: number }) => void
}

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
  private nextId = 1
  private pending = new Map<number, Pending>()
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
    this.channel = ch
    ch.onMessage((msg) => {
      const p = this.pending.get(msg.id)
      if (!p) return
      if ('progress' in msg) return p.onProgress?.(msg.progress)
      this.pending.delete(msg.id)
      if ('error' in msg) p.reject(decodeError(msg.error))
      else p.resolve(msg.result)
    })
    ch.onExit((reason) => {
      if (ch !== this.channel || this.closed) return
      const what = [...this.pending.values()].map((p) => p.method)
      const message = `The engine process stopped (${reason})${what.length ? ` during ${what[0]}` : ''}; it was restarted.`
      for (const p of this.pending.values()) p.reject(new EngineStoppedError(message, { reason, during: what[0] ?? null }))
      this.pending.clear()
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

  call<M extends EngineMethod>(method: M, ...args: Parameters<EngineMethods[M]>): Promise<ReturnType<EngineMethods[M]>> {
    return this.callWith({}, method, ...args)
  }

  /** A call that reports progress and can be cancelled (corpus evaluation). */
  callWith<M extends EngineMethod>(
    opts: { onProgress?: Pending['onProgress']; signal?: AbortSignal },
    method: M,
    ...args: Parameters<EngineMethods[M]>
  ): Promise<ReturnType<EngineMethods[M]>> {
    if (this.closed) return Promise.reject(shutDown())
    if (opts.signal?.aborted) return Promise.reject(new CancelledError(`The ${method === 'evaluate' ? 'evaluation' : 'translation'} was cancelled.`))
    // Closed as soon as asked: a crash before the answer must not bring it back.
    if (method === 'close') this.opened.delete(args[0] as string)
    const id = this.nextId++
    opts.signal?.addEventListener('abort', () => this.channel.post({ cancel: id }), { once: true })
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, onProgress: opts.onProgress })
      this.channel.post({ id, method, args })
    }).then((r) => {
      if (method === 'open') this.markOpen(args[0] as string)
      if (method === 'setProvider') this.provider = args[0] as string
      return r as ReturnType<EngineMethods[M]>
    })
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
    for (const p of this.pending.values()) p.reject(shutDown())
    this.pending.clear()
    this.channel.kill()
  }
}
