import type { EngineMethod, EngineMethods, EngineRequest, EngineResponse } from '../engine/protocol'

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

/**
 * Talks to the engine process and keeps it alive: when it dies (a native crash while loading a
 * hostile file, say) every pending call fails with a readable message, a new process starts, and
 * the models that were open are opened again.
 */
export class EngineClient {
  private channel!: EngineChannel
  private nextId = 1
  private pending = new Map<number, Pending>()
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
      if ('error' in msg) p.reject(new Error(msg.error))
      else p.resolve(msg.result)
    })
    ch.onExit((reason) => {
      if (ch !== this.channel || this.closed) return
      const what = [...this.pending.values()].map((p) => p.method)
      const message = `The engine process stopped (${reason})${what.length ? ` during ${what[0]}` : ''}; it was restarted.`
      for (const p of this.pending.values()) p.reject(new Error(message))
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
        for (const path of this.opened) void this.call('open', path).catch(() => this.opened.delete(path))
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
    if (this.closed) return Promise.reject(new Error('The engine is shut down.'))
    if (opts.signal?.aborted) return Promise.reject(new Error(`The ${method === 'evaluate' ? 'evaluation' : 'translation'} was cancelled.`))
    const id = this.nextId++
    opts.signal?.addEventListener('abort', () => this.channel.post({ cancel: id }), { once: true })
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, onProgress: opts.onProgress })
      this.channel.post({ id, method, args })
    }).then((r) => {
      if (method === 'open') this.opened.add(args[0] as string)
      if (method === 'close') this.opened.delete(args[0] as string)
      if (method === 'setProvider') this.provider = args[0] as string
      return r as ReturnType<EngineMethods[M]>
    })
  }

  onEvent(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  dispose(): void {
    this.closed = true
    for (const p of this.pending.values()) p.reject(new Error('The engine is shut down.'))
    this.pending.clear()
    this.channel.kill()
  }
}
