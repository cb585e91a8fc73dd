/**
 * One way to call across a process or thread boundary (the engine process, the figure worker):
 * a table of methods whose argument and result types both sides share, requests
 * `{id, method, args}` typed by that table, answers `{id, result}` / `{id, error}` with the error's
 * name kept (src/shared/errors.ts), progress reports, and cancel. The transport only moves
 * messages: `RpcClient` for the caller, `rpcServer` for the side that answers.
 */
import { decodeError, encodeError, type EncodedError } from './errors'

/** The calls one side answers: each takes its arguments and answers a promise. */
export type Methods = { [name: string]: (...args: never[]) => Promise<unknown> }

type Name<M extends Methods> = keyof M & string
export type ArgsOf<M extends Methods, K extends Name<M>> = Parameters<M[K]>
export type ResultOf<M extends Methods, K extends Name<M>> = Awaited<ReturnType<M[K]>>

export interface Progress {
  done: number
  total: number
}

/** A call, typed by the method table; or the cancel of call `cancel`. */
export type Request<M extends Methods> = { [K in Name<M>]: { id: number; method: K; args: ArgsOf<M, K> } }[Name<M>] | { cancel: number }

/** The answer to call `id`: its result, its error, or (any number of times before either) its progress. */
export type Response<R = unknown> = { id: number; result: R } | { id: number; error: EncodedError } | { id: number; progress: Progress }

export interface CallOptions {
  signal?: AbortSignal
  onProgress?: (p: Progress) => void
}

interface Pending {
  method: string
  resolve(v: unknown): void
  reject(e: Error): void
  onProgress?: (p: Progress) => void
}

/** The caller's side: `post` sends a request over the transport; `receive` takes every answer. */
export class RpcClient<M extends Methods> {
  private nextId = 1
  private pending = new Map<number, Pending>()

  constructor(private post: (req: Request<M>) => void) {}

  call<K extends Name<M>>(method: K, ...args: ArgsOf<M, K>): Promise<ResultOf<M, K>> {
    return this.callWith({}, method, ...args)
  }

  /** A call that reports progress, or can be cancelled (the other side gets a cancel message). */
  callWith<K extends Name<M>>(opts: CallOptions, method: K, ...args: ArgsOf<M, K>): Promise<ResultOf<M, K>> {
    const id = this.nextId++
    opts.signal?.addEventListener('abort', () => this.pending.has(id) && this.post({ cancel: id }), { once: true })
    return new Promise<ResultOf<M, K>>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, onProgress: opts.onProgress })
      // Built from the method table's own types: the union member for method K.
      this.post({ id, method, args } as Request<M>)
    })
  }

  receive(msg: Response): void {
    const p = this.pending.get(msg.id)
    if (!p) return
    if ('progress' in msg) return p.onProgress?.(msg.progress)
    this.pending.delete(msg.id)
    if ('error' in msg) p.reject(decodeError(msg.error))
    else p.resolve(msg.result)
  }

  /** The methods of the calls still waiting, oldest first. */
  waiting(): string[] {
    return [...this.pending.values()].map((p) => p.method)
  }

  /** Fails every call still waiting (the other side stopped). */
  failAll(error: (method: string) => Error): void {
    const all = [...this.pending.values()]
    this.pending.clear()
    for (const p of all) p.reject(error(p.method))
  }
}

/** What a handler gets besides its arguments: the call's cancel signal and a progress reporter. */
export interface CallContext {
  signal: AbortSignal
  progress(p: Progress): void
}

export type RpcHandlers<M extends Methods> = { [K in Name<M>]: (ctx: CallContext, ...args: ArgsOf<M, K>) => Promise<ResultOf<M, K>> }

/**
 * The answering side: one handler per method. Returns the function that takes each request;
 * `send` carries each answer back (with the buffers `transfer` picks from a result, moved rather
 * than copied), and `encode` turns a thrown error into its message (encodeError by default).
 */
export function rpcServer<M extends Methods>(
  handlers: RpcHandlers<M>,
  send: (msg: Response, transfer: ArrayBuffer[]) => void,
  opts: { encode?: (e: unknown) => EncodedError; transfer?: (result: unknown) => ArrayBuffer[] } = {},
): (req: Request<M>) => void {
  const running = new Map<number, AbortController>()
  const encode = opts.encode ?? encodeError
  return (req) => {
    if ('cancel' in req) return void running.get(req.cancel)?.abort()
    const ac = new AbortController()
    running.set(req.id, ac)
    const ctx: CallContext = { signal: ac.signal, progress: (progress) => send({ id: req.id, progress }, []) }
    const handler = Object.hasOwn(handlers, req.method) ? handlers[req.method] : undefined
    void (async () => {
      try {
        if (!handler) throw new Error(`There is no call named ${String(req.method)}.`)
        const result: unknown = await handler(ctx, ...req.args)
        send({ id: req.id, result }, opts.transfer?.(result) ?? [])
      } catch (e) {
        send({ id: req.id, error: encode(e) }, [])
      } finally {
        running.delete(req.id)
      }
    })()
  }
}
