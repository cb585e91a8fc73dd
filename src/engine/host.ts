/**
 * Entry point of the engine process (Electron utilityProcess in the app, a forked Node process
 * elsewhere). A native crash here takes down only this process; the client restarts it.
 */
import { encodeError, LensError, type EncodedError } from '../shared/errors'
import { firstLine } from './model'
import type { EngineMethods, EngineRequest, EngineResponse } from './protocol'
import { Priority } from './priority'
import { InferenceService } from './service'

interface ParentPort {
  on(event: 'message', listener: (e: { data: unknown }) => void): void
  postMessage(msg: unknown): void
}

const service = new InferenceService(process.env.AL_PROVIDER || 'cpu')
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort

function send(msg: EngineResponse): void {
  if (parentPort) parentPort.postMessage(msg)
  else process.send!(msg)
}

type Handlers = { [M in keyof EngineMethods]: (...args: Parameters<EngineMethods[M]>) => Promise<ReturnType<EngineMethods[M]>> }

const running = new Map<number, AbortController>()
/** Interactive calls (a keystroke's translation) go before batch runs (BLEU by length). */
const priority = new Priority()
const interactive = <T>(work: () => Promise<T>) => priority.interactiveCall(work)
let current = 0 // the id of the request being dispatched, for progress messages

/** Runs work that a cancel message for the current request id can stop. */
function cancellable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const id = current
  const ac = new AbortController()
  running.set(id, ac)
  return work(ac.signal).finally(() => running.delete(id))
}

const handlers: Handlers = {
  describe: (p) => service.describe(p),
  open: (p) => service.open(p),
  providers: async () => service.providers(),
  setProvider: (name) => service.setProvider(name),
  translate: (p, text, opts) => cancellable((signal) => interactive(() => service.translate(p, text, opts, signal))),
  translateBatch: (p, texts) => service.translateBatch(p, texts),
  forced: (p, text, target) => interactive(() => service.forced(p, text, target)),
  whatIf: (p, req) => interactive(() => service.whatIf(p, req)),
  compare: (paths, text, opts) => interactive(() => service.compare(paths, text, opts)),
  evaluate: (p, srcs, refs, cacheDir) => {
    const id = current
    const turn = () => priority.turn()
    return cancellable((signal) => service.evaluate(p, srcs, refs, { cacheDir, signal, turn, onProgress: (progress) => send({ id, progress }) }))
  },
  alignBoard: (paths, input) => {
    const id = current
    return cancellable((signal) => service.alignBoard(paths, input, { signal, onProgress: (progress) => send({ id, progress }) }))
  },
  occlusion: (p, text) => cancellable((signal) => interactive(() => service.occlusion(p, text, signal))),
  forecast: (p, series, origin) => interactive(() => service.forecast(p, series, origin)),
  forecastWhatIf: (p, series, origin, req) => interactive(() => service.forecastWhatIf(p, series, origin, req)),
  evaluateForecast: (p, series, origins) => service.evaluateForecast(p, series, origins),
  close: (p) => service.close(p),
  crash: async () => {
    if (process.env.AL_ENGINE_TEST_HOOKS === '1') process.kill(process.pid, 'SIGSEGV')
    throw new Error('The crash hook is disabled')
  },
}

function handle(req: Extract<EngineRequest, { method: string }>): Promise<unknown> {
  current = req.id
  const fn = handlers[req.method] as ((...a: unknown[]) => Promise<unknown>) | undefined
  if (!fn) return Promise.reject(new Error(`Unknown engine call ${String(req.method)}`))
  return fn(...req.args)
}

async function onMessage(req: EngineRequest): Promise<void> {
  if ('cancel' in req) {
    running.get(req.cancel)?.abort()
    return
  }
  try {
    send({ id: req.id, result: await handle(req) })
  } catch (e) {
    send({ id: req.id, error: engineError(e) })
  }
}

/**
 * The error as it leaves the process, keeping its name: a contract error and a cancellation are
 * already one sentence; anything else (onnxruntime's multi-line errors) is cut to its first line.
 */
function engineError(e: unknown): EncodedError {
  if (e instanceof LensError) return encodeError(e)
  return { ...encodeError(e), message: firstLine(e) + '.' }
}

if (parentPort) parentPort.on('message', (e) => void onMessage(e.data as EngineRequest))
else process.on('message', (m) => void onMessage(m as EngineRequest))
