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
import { decodeError, LensError } from '../../shared/errors'
import type { FigureData, FigureSpec } from '../../shared/figure'
import type { FigureJob, FigureReply } from './worker'

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

interface Job {
  resolve(bytes: Buffer): void
  reject(e: Error): void
}

const workerError = (message: string) => new LensError(message, { name: 'FigureWorkerError', code: 'figure-worker' })

export class FigureWorker {
  private worker: Worker | null = null
  private jobs = new Map<number, Job>()
  private nextId = 1

  constructor(private spawn: () => Worker = spawnFigureWorker) {}

  /** One figure file's bytes; the worker checks data and spec against the figure schema first. */
  render(data: FigureData, spec: FigureSpec): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      try {
        const w = this.worker ?? this.start()
        const id = this.nextId++
        this.jobs.set(id, { resolve, reject })
        // A figure in progress keeps the process alive (the CLI and tests wait for it).
        w.ref()
        w.postMessage({ id, data, spec } satisfies FigureJob)
      } catch (e) {
        reject(e as Error)
      }
    })
  }

  /** Stops the worker; figures in progress fail. */
  async close(): Promise<void> {
    const w = this.worker
    this.fail(w, workerError('The figure renderer was shut down.'))
    await w?.terminate()
  }

  private start(): Worker {
    const w = this.spawn()
    w.on('message', (m: FigureReply) => {
      const job = this.jobs.get(m.id)
      if (!job) return
      this.jobs.delete(m.id)
      if ('error' in m) job.reject(decodeError(m.error))
      else job.resolve(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength))
      if (this.jobs.size === 0) w.unref()
    })
    // 'error' (an exception the worker did not catch) comes before 'exit'; whichever is first reports.
    w.on('error', (e) => this.fail(w, workerError(`The figure renderer failed: ${e.message}`)))
    w.on('exit', (code) => this.fail(w, workerError(`The figure renderer stopped (exit code ${code}).`)))
    w.unref()
    this.worker = w
    return w
  }

  private fail(w: Worker | null, e: Error): void {
    if (!w || w !== this.worker) return
    this.worker = null
    for (const job of this.jobs.values()) job.reject(e)
    this.jobs.clear()
  }
}
