import type * as ort from 'onnxruntime-node'
import type { ModelSpec } from '../contract'

/**
 * One part of a model as the decoders drive it: an onnxruntime session, or an adapter that runs
 * other sessions behind the same names (a Hugging Face folder's encoder and decoders,
 * src/engine/formats/hf). Only what the engine calls on a session.
 */
export interface PartSession {
  readonly inputNames: readonly string[]
  readonly outputNames: readonly string[]
  readonly inputMetadata: readonly ort.InferenceSession.ValueMetadata[]
  run(feeds: ort.InferenceSession.FeedsType, options?: ort.InferenceSession.RunOptions): Promise<ort.InferenceSession.ReturnType>
  run(
    feeds: ort.InferenceSession.FeedsType,
    fetches: ort.InferenceSession.FetchesType,
    options?: ort.InferenceSession.RunOptions,
  ): Promise<ort.InferenceSession.ReturnType>
  release(): Promise<void>
}

/** Text to source pieces and ids, where a format's tokenizer adds its own special tokens. */
export interface SourceEncoder {
  /** `head` and `tail`: how many of the ids are the tokenizer's own before and after the text's. */
  (text: string): { pieces: string[]; ids: number[]; head: number; tail: number }
}

/** What a format hands the engine once a model is open: its spec and its sessions. */
export interface OpenedModel {
  spec: ModelSpec
  encoder: PartSession
  step: PartSession
  /** The whole greedy decode as one graph (own-format translation models after surgery), else null. */
  greedy: ort.InferenceSession | null
  /** Per-sentence step values the encoder part returns and the step part reads. */
  keys: string[]
  /** Why the decoders go step by step in JavaScript, or null. */
  note: string | null
  provider: string
  providerNote: string | null
  /** The format id (MODEL_FORMATS), shown by `check`. */
  format: string
  /** Where the attention comes from and what the format could not provide, for `check`. */
  details: string[]
  /**
   * When beam search stops: this app's rule (training/README.md), or transformers' generate
   * (early_stopping=False), which a Hugging Face model's users compare against.
   */
  beamRule?: BeamRule
}

export type BeamRule = 'lens' | 'transformers'

export interface OpenOptions {
  /**
   * Run the parts exactly as cut from the file, without the graph surgery (keys once per
   * sentence, top-k in the graph, the greedy loop): the reference the tests compare against.
   */
  plain?: boolean
  /** Multilingual models: the language codes to translate from and to (default: the folder's). */
  srcLang?: string
  tgtLang?: string
  /** A Hugging Face folder's precision to open (fp32, fp16, q8, int8, uint8, q4, q4f16, bnb4); default: the most precise that fits in memory (hf/variants.ts). */
  dtype?: string
}

/**
 * A model format: how its files are recognised, described (the spec alone, for the picker) and
 * opened (spec and sessions). The own one-file contract is one entry, a Hugging Face
 * encoder-decoder folder another (src/engine/formats/index.ts).
 */
export interface ModelFormat {
  id: string
  /** Whether this path is this format's (cheap: names and a first look, no full decode). */
  match(path: string): Promise<boolean>
  describe(path: string, opts?: OpenOptions): Promise<ModelSpec>
  open(path: string, provider: string, opts?: OpenOptions): Promise<OpenedModel>
}
