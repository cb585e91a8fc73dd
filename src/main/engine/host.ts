/**
 * Entry point of the engine process (Electron utilityProcess in the app, a forked Node process
 * elsewhere). A native crash here takes down only this process; the client restarts it.
 */
import { ContractError } from './contract'
import { firstLine } from './model'
import type { EngineMethod, EngineRequest, EngineResponse } from './protocol'
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

async function handle(req: EngineRequest): Promise<unknown> {
  const [a, b] = req.args as string[]
  const method: EngineMethod = req.method
  switch (method) {
    case 'describe':
      return service.describe(a)
    case 'open':
      return service.open(a)
    case 'translate':
      return service.translate(a, b)
    case 'close':
      return service.close(a)
    case 'crash':
      if (process.env.AL_ENGINE_TEST_HOOKS === '1') process.kill(process.pid, 'SIGSEGV')
      throw new Error('The crash hook is disabled.')
  }
}

async function onMessage(req: EngineRequest): Promise<void> {
  try {
    send({ id: req.id, result: await handle(req) })
  } catch (e) {
    // A contract error is already one sentence; anything else is cut to its first line.
    send({ id: req.id, error: e instanceof ContractError ? e.message : firstLine(e) + '.' })
  }
}

if (parentPort) parentPort.on('message', (e) => void onMessage(e.data as EngineRequest))
else process.on('message', (m) => void onMessage(m as EngineRequest))
