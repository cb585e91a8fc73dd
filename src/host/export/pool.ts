/**
 * A pool of one figure-rendering worker thread, started on first use and reused; it does not
 * keep the process alive while idle. Errors come back as errors with their name (a refused
 * figure is a RefusedError); a worker that dies fails the figures in progress and the next
 * figure starts a new one.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { LensError } from '../../shared/errors'
import type { AnimationSettings } from '../../shared/animation'
import type { FigureData, FigureSpec } from '../../shared/figure'
import { RpcClient, type CallOptions, type Response } from '../../shared/rpc'
import type { FigureMethods } from './worker'

/**
 * The worker from source (tests, `tsx`): worker.ts next to this file, through tsx's require hook,
 * registered inside the thread because Node 20's workers ignore `--import tsx`. Built:
 * out/main/figure-worker.js, beside the bundle or one level up when this code sits in out/main/chunks.
 */
export function spawnFigureWorker(): Worker {
  // tsx, loading this file for an ES module, sets __dirname to 'data:text': trust only an absolute one.
  const here = typeof __dirname === 'string' && isAbsolute(__dirname) ? __dirname : dirname(fileURLToPath(import.meta.url))
  const source = join(here, 'worker.ts')
  if (existsSync(source)) {
    const tsx = createRequire(source).resolve('tsx/cjs/api')
    return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)})`, { eval: true })
  }
  const built = [join(here, 'figure-worker.js'), join(here, '..', 'figure-worker.js')].find((f) => existsSync(f))
  if (!built)
    throw new LensError('The figure renderer (figure-worker.js) is missing from this installation.', { name: 'FigureWorkerError', code: 'figure-worker' })
  return new Worker(built)
}

/** The worker's bytes as a Buffer over the same memory (they were moved here, not copied). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const workerError = (message: string) => new LensError(message, { name: 'FigureWorkerError', code: 'figure-worker' })

export class FigureWorker {
  private worker: Worker | null = null
  private rpc: RpcClient<FigureMethods> | null = null

  constructor(private spawn: () => Worker = spawnFigureWorker) {}

  /** One figure file's bytes; the worker checks data and spec against the figure schema first. */
  async render(data: FigureData, spec: FigureSpec): Promise<Buffer> {
    return this.call((rpc) => rpc.call('render', data, spec))
  }

  /**
   * A figure's files: one, or a figure split into parts as PNG or SVG one per part, each with its
   * suffix ("-1", "-2", …); a PDF keeps its parts as pages.
   */
  async renderFiles(data: FigureData, spec: FigureSpec): Promise<{ suffix: string; bytes: Buffer }[]> {
    const files = await this.run((rpc) => rpc.call('renderFiles', data, spec))
    return files.map((f) => ({ suffix: f.suffix, bytes: asBuffer(f.bytes) }))
  }

  /** An animated GIF or APNG's bytes (issue 34); the worker checks the settings too. `opts` reports each frame drawn, and stops it. */
  async animate(data: FigureData, spec: FigureSpec, settings: AnimationSettings, opts: CallOptions = {}): Promise<Buffer> {
    return this.call((rpc) => rpc.callWith(opts, 'animate', data, spec, settings))
  }

  private async call(send: (rpc: RpcClient<FigureMethods>) => Promise<Uint8Array>): Promise<Buffer> {
    return asBuffer(await this.run(send))
  }

  private async run<T>(send: (rpc: RpcClient<FigureMethods>) => Promise<T>): Promise<T> {
    const rpc = this.rpc ?? this.start()
    const w = this.worker!
    // A figure in progress keeps the process alive (the CLI and tests wait for it).
    w.ref()
    try {
      return await send(rpc)
    } finally {
      if (rpc.waiting().length === 0) w.unref()
    }
  }

  /** Stops the worker; figures in progress fail. */
  async close(): Promise<void> {
    const w = this.worker
    this.fail(w, workerError('The figure renderer was shut down.'))
    await w?.terminate()
  }

  private start(): RpcClient<FigureMethods> {
    const w = this.spawn()
    const rpc = new RpcClient<FigureMethods>((req) => w.postMessage(req))
    w.on('message', (m: Response) => rpc.receive(m))
    // 'error' (an exception the worker did not catch) comes before 'exit'; whichever is first reports.
    w.on('error', (e) => this.fail(w, workerError(`The figure renderer failed: ${e.message}`)))
    w.on('exit', (code) => this.fail(w, workerError(`The figure renderer stopped (exit code ${code}).`)))
    w.unref()
    this.worker = w
    this.rpc = rpc
    return rpc
  }

  private fail(w: Worker | null, e: Error): void {
    if (!w || w !== this.worker) return
    const rpc = this.rpc
    this.worker = null
    this.rpc = null
    rpc?.failAll(() => e)
  }
}
