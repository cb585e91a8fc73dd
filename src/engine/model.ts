import type * as ort from 'onnxruntime-node'
import type { ModelSpec } from './contract'
import { K_INPUT } from './graph-surgery'
import { releaseRankers } from './ranker'
import { formatFor, modelFile, modelOptions } from './formats'
import type { BeamRule, OpenedModel, OpenOptions, PartSession, SourceEncoder } from './formats/types'

export { firstLine, ortReason } from './formats/ort-sessions'
export type { OpenOptions } from './formats/types'

/**
 * A model opened by its format (src/engine/formats): its spec and one session per part, created
 * once, reused. The decoders above see the same parts whatever the format on disk.
 */
export class LoadedModel {
  /** The inputs the step part declares: only these are fed. */
  readonly stepInputs: Set<string>
  readonly spec: ModelSpec
  readonly encoder: PartSession
  readonly step: PartSession
  readonly greedy: ort.InferenceSession | null
  readonly keys: string[]
  /** The step part returns top-k ids and log-probabilities (input `al_k`): logits stay in the graph. */
  readonly topKInGraph: boolean
  /** Set when a translation model decodes step by step in JavaScript because its graph could not be rewritten. */
  readonly surgeryNote: string | null
  readonly provider: string
  readonly providerNote: string | null
  /** The format it was opened as (formats/index.ts), and what that format says of it. */
  readonly format: string
  readonly formatDetails: string[]
  /** A format whose tokenizer adds its own special tokens encodes the source itself; else null. */
  readonly sourceEncoder: SourceEncoder | null
  readonly beamRule: BeamRule

  constructor(
    readonly path: string,
    opened: OpenedModel & { sourceEncoder?: SourceEncoder | null },
  ) {
    this.spec = opened.spec
    this.encoder = opened.encoder
    this.step = opened.step
    this.greedy = opened.greedy
    this.keys = opened.keys
    this.surgeryNote = opened.note
    this.provider = opened.provider
    this.providerNote = opened.providerNote
    this.format = opened.format
    this.formatDetails = opened.details
    this.sourceEncoder = opened.sourceEncoder ?? null
    this.beamRule = opened.beamRule ?? 'lens'
    this.stepInputs = new Set(this.step.inputNames)
    this.topKInGraph = this.stepInputs.has(K_INPUT)
  }

  static async open(path: string, provider = 'cpu', opts: OpenOptions = {}): Promise<LoadedModel> {
    const format = await formatFor(path)
    return new LoadedModel(path, await format.open(modelFile(path), provider, { ...modelOptions(path), ...opts }))
  }

  async release(): Promise<void> {
    await this.encoder.release()
    await this.step.release()
    await this.greedy?.release()
    await releaseRankers(this)
  }
}
