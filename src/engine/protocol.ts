import type { DecodeOptions, EvalResult, ForecastEval, ForecastResult, ProviderInfo, Translation, WhatIfRequest, WhatIfResult } from '../shared/api'
import type { EncodedError } from '../shared/errors'
import type { OcclusionResult } from '../shared/alignment'
import type { BoardInput, BuiltBoard } from './align/board'
import type { ForecastOverrideRequest, ModelDescription } from './service'
import type { ForecastWhatIfResult } from '../shared/teaching'

/** The calls the engine process answers (see host.ts). */
export interface EngineMethods {
  describe(path: string): ModelDescription
  open(path: string): ModelDescription & { provider: string; providerNote: string | null }
  providers(): ProviderInfo[]
  setProvider(name: string): void
  translate(path: string, text: string, opts?: DecodeOptions): Translation
  translateBatch(path: string, texts: string[]): Translation[]
  forced(path: string, text: string, target: string): Translation
  whatIf(path: string, req: WhatIfRequest): WhatIfResult
  compare(paths: string[], text: string, opts?: DecodeOptions): Translation[]
  /** Corpus evaluation; sends progress messages and stops on a cancel message. */
  evaluate(path: string, srcs: string[], refs: string[], cacheDir?: string): EvalResult
  /** The Alignment panel's scoreboard; sends progress messages and stops on a cancel message. */
  alignBoard(paths: string[], input: BoardInput): BuiltBoard
  occlusion(path: string, text: string): OcclusionResult
  forecast(path: string, series: { timestamps: string[]; values: number[] }, origin: number): ForecastResult
  forecastWhatIf(
    path: string,
    series: { timestamps: string[]; values: number[] },
    origin: number,
    req: ForecastOverrideRequest,
  ): ForecastWhatIfResult<ForecastResult>
  evaluateForecast(path: string, series: { timestamps: string[]; values: number[] }, origins: number[]): ForecastEval
  /** Releases the model's sessions; the next call that needs it opens it again. */
  close(path: string): void
  /** Test hook, honoured only when AL_ENGINE_TEST_HOOKS=1: kills the process with SIGSEGV, like a native crash. */
  crash(): void
}
export type EngineMethod = keyof EngineMethods

export type EngineRequest = { id: number; method: EngineMethod; args: unknown[] } | { cancel: number }

export type EngineResponse = { id: number; result: unknown } | { id: number; error: EncodedError } | { id: number; progress: { done: number; total: number } }
