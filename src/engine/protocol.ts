/**
 * The calls the engine process answers (host.ts), typed end to end through src/shared/rpc.ts.
 * Most are the inference service's own methods, forwarded as they are: such a call is its name in
 * FORWARDED and its method on InferenceService, nothing else. The rest take the call's cancel
 * signal or report progress, and are written out in host.ts.
 */
import type { DecodeOptions, EvalResult, ProviderInfo, Translation } from '../shared/api'
import type { OcclusionResult } from '../shared/alignment'
import type { ContributionsRequest, EngineContributionsResult } from '../shared/contributions'
import type { Request, Response } from '../shared/rpc'
import type { BoardInput, BuiltBoard } from './align/board'
import type { AblationResult, InferenceService } from './service'

/** Service methods the engine answers with the same arguments and result. */
export const FORWARDED = [
  'describe',
  'open',
  'setProvider',
  'translateBatch',
  'forced',
  'whatIf',
  'compare',
  'forecast',
  'forecastWhatIf',
  'evaluateForecast',
  'close',
] as const
export type Forwarded = (typeof FORWARDED)[number]

export type EngineMethods = Pick<InferenceService, Forwarded> & {
  providers(): Promise<ProviderInfo[]>
  /** Stops when the caller cancels. */
  translate(path: string, text: string, opts?: DecodeOptions): Promise<Translation>
  /** Corpus evaluation; reports progress and stops when the caller cancels. */
  evaluate(path: string, srcs: string[], refs: string[], cacheDir?: string): Promise<EvalResult>
  /** The Alignment panel's scoreboard; reports progress and stops when the caller cancels. */
  alignBoard(paths: string[], input: BoardInput): Promise<BuiltBoard>
  /** Corpus attention ablation of one model; reports progress and stops when the caller cancels. */
  ablation(path: string, srcs: string[], refs: string[]): Promise<AblationResult>
  /** Stops when the caller cancels. */
  occlusion(path: string, text: string): Promise<OcclusionResult>
  /** Every contribution method for one sentence (issue 41); stops when the caller cancels. */
  contributions(path: string, req: Omit<ContributionsRequest, 'modelId'>): Promise<EngineContributionsResult>
  /** Test hook, honoured only when AL_ENGINE_TEST_HOOKS=1: kills the process with SIGSEGV, like a native crash. */
  crash(): Promise<void>
}
export type EngineMethod = keyof EngineMethods

export type EngineRequest = Request<EngineMethods>
export type EngineResponse = Response
