import type { Translation } from '../../shared/api'
import type { ModelDescription } from './service'

/** Messages between the engine client and the engine process. */
export interface EngineMethods {
  describe(path: string): ModelDescription
  open(path: string): ModelDescription & { provider: string }
  translate(path: string, text: string): Translation
  close(path: string): void
  /** Test hook, honoured only when AL_ENGINE_TEST_HOOKS=1: kills the process with SIGSEGV, like a native crash. */
  crash(): void
}
export type EngineMethod = keyof EngineMethods

export interface EngineRequest {
  id: number
  method: EngineMethod
  args: unknown[]
}

export type EngineResponse = { id: number; result: unknown } | { id: number; error: string }
