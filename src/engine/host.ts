/**
 * Entry point of the engine process (Electron utilityProcess in the app, a forked Node process
 * elsewhere). A native crash here takes down only this process; the client restarts it.
 */
import { encodeError, LensError, type EncodedError } from '../shared/errors'
import { rpcServer, type RpcHandlers } from '../shared/rpc'
import { firstLine } from './model'
import { Priority } from './priority'
import { FORWARDED, type EngineMethods, type EngineRequest, type EngineResponse, type Forwarded } from './protocol'
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

/** Interactive calls (a keystroke's translation) go before batch runs (BLEU by length). */
const priority = new Priority()
const INTERACTIVE = new Set<string>(['translate', 'forced', 'whatIf', 'compare', 'forecast', 'forecastWhatIf'])

/** Each forwarded service method, as it is (interactive ones ahead of batch work). */
function forwarded(): Pick<RpcHandlers<EngineMethods>, Forwarded> {
  const out: Record<string, (ctx: unknown, ...args: never[]) => Promise<unknown>> = {}
  for (const name of FORWARDED) {
    const method = service[name].bind(service) as (...args: never[]) => Promise<unknown>
    out[name] = INTERACTIVE.has(name) ? (_ctx, ...args) => priority.interactiveCall(() => method(...args)) : (_ctx, ...args) => method(...args)
  }
  // One handler per name of FORWARDED, each with that service method's own signature.
  return out as unknown as Pick<RpcHandlers<EngineMethods>, Forwarded>
}

const handlers: RpcHandlers<EngineMethods> = {
  ...forwarded(),
  providers: async () => service.providers(),
  translate: (ctx, p, text, opts) => priority.interactiveCall(() => service.translate(p, text, opts, ctx.signal)),
  evaluate: (ctx, p, srcs, refs, cacheDir) =>
    service.evaluate(p, srcs, refs, { cacheDir, signal: ctx.signal, turn: (batch) => priority.turn(batch), onProgress: ctx.progress }),
  alignBoard: (ctx, paths, input) => service.alignBoard(paths, input, { signal: ctx.signal, onProgress: ctx.progress }),
  ablation: (ctx, p, srcs, refs) => service.ablation(p, srcs, refs, { signal: ctx.signal, onProgress: ctx.progress }),
  occlusion: (ctx, p, text) => priority.interactiveCall(() => service.occlusion(p, text, ctx.signal)),
  contributions: (ctx, p, req) => priority.interactiveCall(() => service.contributions(p, req, ctx.signal)),
  crash: async () => {
    if (process.env.AL_ENGINE_TEST_HOOKS === '1') process.kill(process.pid, 'SIGSEGV')
    throw new Error('The crash hook is disabled')
  },
}

/**
 * The error as it leaves the process, keeping its name: a contract error and a cancellation are
 * already one sentence; anything else (onnxruntime's multi-line errors) is cut to its first line.
 */
function engineError(e: unknown): EncodedError {
  if (e instanceof LensError) return encodeError(e)
  return { ...encodeError(e), message: firstLine(e) + '.' }
}

const serve = rpcServer(handlers, send, { encode: engineError })
if (parentPort) parentPort.on('message', (e) => serve(e.data as EngineRequest))
else process.on('message', (m) => serve(m as EngineRequest))
