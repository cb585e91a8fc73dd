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

/**
 * The V8 flags for the JIT and the heap that the host was started with (`node
 * --max-old-space-size=8192 out/main/web.js`, the tests' JIT_FLAGS): the engine, where the work is,
 * takes them too. fork() passes the parent's execArgv only where it is given none, and the engine's
 * own (tsx's loader) are given.
 */
export const tuningFlags = (argv: readonly string[] = process.execArgv): string[] =>
  argv.filter((a) => /^--(interrupt-budget|max-old-space-size|max-semi-space-size)=\d+$/.test(a))

/** The engine as a Node child process (browser mode, CLI, tests). */
export function forkEngine(env: NodeJS.ProcessEnv = process.env): EngineChannel {
  const { file, execArgv } = engineEntry()
  const child = fork(file, [], {
    execArgv: [...tuningFlags(), ...execArgv],
    env: engineEnv(env),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return {
    // A send racing the child's death must not throw or emit an unhandled 'error' here; the
    // 'exit' handler reports the crash and the client restarts the engine.
    post: (msg: EngineRequest) => void (child.connected && child.send(msg, () => undefined)),
    onMessage: (l) => child.on('message', (m) => l(m as EngineResponse)),
    onExit: (l) => child.on('exit', (code, signal) => l(signal ? `signal ${signal}` : `exit code ${code}`)),
    kill: () => void child.kill(),
  }
}
