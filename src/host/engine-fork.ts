import { fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { EngineChannel } from './engine-client'
import { engineEnv } from './engine-env'
import type { EngineRequest, EngineResponse } from '../engine/protocol'

/**
 * Where the engine entry lives: next to the bundle when built (out/main/engine.js), else the
 * TypeScript source run through tsx (tests, `npm run web:dev`).
 */
export function engineEntry(): { file: string; execArgv: string[] } {
  const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url))
  const built = join(here, 'engine.js')
  if (existsSync(built)) return { file: built, execArgv: [] }
  return { file: join(here, '..', 'engine', 'host.ts'), execArgv: ['--import', 'tsx'] }
}

/** The engine as a Node child process (browser mode, CLI, tests). */
export function forkEngine(env: NodeJS.ProcessEnv = process.env): EngineChannel {
  const { file, execArgv } = engineEntry()
  const child = fork(file, [], { execArgv, env: engineEnv(env), serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return {
    // A send racing the child's death must not throw or emit an unhandled 'error' here; the
    // 'exit' handler reports the crash and the client restarts the engine.
    post: (msg: EngineRequest) => void (child.connected && child.send(msg, () => undefined)),
    onMessage: (l) => child.on('message', (m) => l(m as EngineResponse)),
    onExit: (l) => child.on('exit', (code, signal) => l(signal ? `signal ${signal}` : `exit code ${code}`)),
    kill: () => void child.kill(),
  }
}
