/**
 * The contract between the renderer and the engine. Everything here is plain data, so the same
 * types travel over Electron IPC and over the browser mode's HTTP transport.
 */
import { ATTENTION_KINDS, type AttentionKind } from './attention-kinds'
import type { BeamTree } from './teaching'

export { ATTENTION_KINDS, type AttentionKind }

/** What a model does: translate sentences, or forecast a time series (docs/model-format.md). */
export type ModelTask = 'translation' | 'forecasting'

export interface ModelSummary {
  /** Opaque handle the host hands out; the renderer never invents paths. */
  id: string
  name: string
  fileName: string
  task: ModelTask
  attention: AttentionKind
  srcLang: string
  tgtLang: string
  bundled: boolean
}

export interface TestScore {
  set: string
  sentences: number
  bleu: number
  bleu_cased: number
  by_length: { bucket: string; sentences: number; bleu: number }[]
}

/** MAE/MAPE of a forecaster over the held-out weeks, next to the seasonal-naive forecast. */
export interface ForecastScore {
  set: string
  origins: number
  mae: number
  mape: number
  seasonal_naive: { mae: number; mape: number }
  by_horizon: { steps: string; mae: number; seasonal_naive_mae: number }[]
}

/** How a forecasting model reads a series (the `al.forecast` metadata). */
export interface ForecastSpec {
  /** Steps of history the encoder reads, and steps forecast. */
  history: number
  horizon: number
  periodMinutes: number
  series: string
  unit: string
  /** Seasonal lags worth marking (one day, one week), in steps. */
  seasonalLags: number[]
}

export interface ModelInfo extends ModelSummary {
  windowD: number
  srcVocabSize: number
  tgtVocabSize: number
  trainingData: string
  licence: string
  testScore: TestScore | null
  /** Forecasting models only. */
  forecast: ForecastSpec | null
  forecastScore: ForecastScore | null
  /** Execution provider the model's sessions run on. */
  provider: string
  /** One line when the chosen provider failed to start and the model fell back to CPU. */
  providerNote: string | null
  /** Local attention only: how a source position is scored inside the window (`al.score`). */
  localScore?: LocalScore
  /** Transformer only: cross-attention layers (`al.layers`) and heads per layer (`al.heads`). */
  heads?: { layers: number; heads: number }
  /** A multilingual model (M2M100, NLLB, mBART-50): the language codes it translates between. */
  languages?: string[]
  /** A multi-target model (opus-mt with >>fra<< tokens): the target codes it offers; its source is fixed. */
  targetLanguages?: string[]
  /** The folder names no language pair: the one shown is a stand-in, and the picker asks for one. */
  needsLanguages?: boolean
  /** The repeat guard this model decodes with where a request sets none (a Hugging Face folder: its generation_config.json's). */
  defaultGuard?: { noRepeatNgram: number; maxRepeat: number }
  /** What the checks at opening found (`attention-lens check` reports the same): features that will not work, and why. */
  findings?: CheckFinding[]
  /**
   * A Hugging Face folder's precisions (fp32, fp16, q8…), most precise first, each with the size
   * of its files (encoder and decoder, external data included) and one line on what it is; and the
   * one open. The picker offers the others where there are several (src/engine/formats/hf/variants.ts).
   */
  variants?: ModelVariant[]
  dtype?: string
}

export interface ModelVariant {
  dtype: string
  bytes: number
  note: string
}

export type LocalScore = 'dot' | 'general' | 'concat'

/** What a finding concerns; an `error` finding means the app keeps that feature off for the model. */
export type CheckFeature = 'translate' | 'batch' | 'beam' | 'what-if' | 'forced' | 'attention' | 'local' | 'forecast'

export interface CheckFinding {
  /** `error`: the feature will not work; `warning`: it works, but the model looks wrong. */
  level: 'error' | 'warning'
  feature: CheckFeature
  message: string
  /** onnxruntime's own message where it caused the finding (`attention-lens check --verbose`); the message never quotes it. */
  detail?: string
  /**
   * The model's format cannot offer the feature at all (what-if on a Hugging Face folder, whose
   * graph has no input to put weights into its attention): no fault of this model. The feature is
   * off all the same (level `error`), but `check` exits 0 for it and lists it as not offered.
   */
  notOffered?: true
}

export interface DecodeOptions extends GuardOptions {
  /** 1 = greedy; 2–16 = beam search. */
  beam?: number
  /** Length normalisation exponent α: hypotheses are ranked by log P / length^α. */
  lengthPenalty?: number
  /** How many alternatives to keep per output position. */
  topK?: number
  /** Ship the encoder states (the step-through and with/without views draw them); default true. */
  encoderStates?: boolean
}

/**
 * The repeat guards of a free decode (src/shared/repeat-guard.ts): each a whole number, 0 = off;
 * absent = the model's default (3 and 3; a Hugging Face folder's generation_config.json: none unless
 * it sets no_repeat_ngram_size). Forced decoding is never guarded.
 */
export interface GuardOptions {
  /** No n-gram of this many target pieces twice in the output (Hugging Face's `no_repeat_ngram_size`). */
  noRepeatNgram?: number
  /** No piece more than this many times in a row. */
  maxRepeat?: number
  /**
   * Plain argmax (or beam): no guard, and none of a folder's generation_config.json rules
   * (forced_eos_token_id, min_length, repetition_penalty) but its forced first token, which picks the target language.
   */
  raw?: boolean
}

export interface TranslateRequest extends DecodeOptions {
  modelId: string
  text: string
}

/** Score the user's (or a reference) translation instead of decoding one. */
export interface ForcedRequest {
  modelId: string
  text: string
  target: string
}

/** `silence`: the chosen head's output is multiplied by 0 (transformer only, needs `head`). */
export type OverrideMode = 'uniform' | 'onehot' | 'diagonal' | 'custom' | 'silence'

/** "What if attention were …": replace the weights at some steps and decode again (both runs with the same repeat guards). */
export interface WhatIfRequest extends GuardOptions {
  modelId: string
  text: string
  /** Output steps (0-based) to override, or 'all'. */
  steps: number[] | 'all'
  mode: OverrideMode
  /** For 'onehot': the source position to attend to. */
  sourceIndex?: number
  /** For 'custom': one weight per source token (normalised by the engine). */
  weights?: number[]
  /** Transformer only: override (or silence) this one cross-attention head; absent = every head. */
  head?: { layer: number; head: number }
  /** The beam of the translation on show (1 or absent: greedy): both runs decode with it, so "original" is that translation. */
  beam?: number
}

export interface WhatIfResult {
  original: Translation
  modified: Translation
  /** changed[t]: the modified output's token t is not in the longest sequence it shares with the original (the LCS rule With / without uses). */
  changed: boolean[]
}

export interface Alternative {
  token: string
  p: number
}

/** One decoded sentence with everything the attention views draw. Rows are output steps. */
export interface Translation {
  modelId: string
  source: string
  srcTokens: string[]
  /** Source tokens the vocabulary lacks (shown as <unk> to the model). */
  srcUnknown: boolean[]
  /** Output tokens, one per decoder step; the last one is usually `</s>`. */
  tgtTokens: string[]
  text: string
  /**
   * attention[t][s]: weight of source token s at output step t. Empty for `none`. Transformer:
   * the heads' average as used (a silenced head left out; every head silenced: a row of zeros).
   */
  attention: number[][]
  /** Raw scores e_tj before the softmax. Empty for `none`; a transformer has none: one empty row ([]) per step. */
  scores: number[][]
  /** Encoder states h_j, one row per source token (for `none`: one row, the fixed context). */
  encoderStates: number[][]
  /** Local attention only: the in-window softmax before the Gaussian, per step. */
  align: number[][] | null
  /** Local attention only: p_t, the window [p_t-D, p_t+D] and the Gaussian factor per step. */
  positions: number[] | null
  windows: [number, number][] | null
  gaussian: number[][] | null
  /**
   * Transformer only: every cross-attention head's weights, crossAttention[t][layer][head][s]
   * (after overrides, before the head gate); `attention` is their average as used. Layer 0 is the
   * lowest decoder layer; each row has the sentence's S source positions. Present for greedy,
   * beam (the chosen hypothesis' own steps), forced and what-if translations; absent from a
   * transformer's batched evaluation and from every other kind.
   */
  crossAttention?: number[][][][]
  tokenLogProbs: number[]
  /** The top-k tokens the model considered at each step, most probable first. */
  alternatives: Alternative[][]
  /**
   * Per output step: the model's own first choice where the repeat guard blocked it (the step took
   * the best token the guard let through; `alternatives` still rank the model's own choices), null
   * where the model's own choice stood. Absent when the guard blocked nothing (or was off).
   */
  blocked?: (string | null)[]
  /** For forced decoding: target tokens the vocabulary lacks. */
  tgtUnknown: boolean[] | null
  /**
   * Per output position: the source word copied in place of `<unk>` (unknown-word replacement),
   * the source position attended to most and its weight; null where the model's own token stands.
   */
  replaced?: ({ source: string; sourceIndex: number; attention: number } | null)[]
  mode: 'greedy' | 'beam' | 'forced' | 'what-if'
  beam: number
  /** Beam search only: every hypothesis the search tried, as a tree (src/shared/teaching.ts). */
  beamTree?: BeamTree
  /**
   * Set when the tokens are whole words merged from subword pieces (src/shared/attention/word-translation.ts):
   * each source word's and each output word's [first, last] piece, so a word still addresses its pieces.
   */
  words?: { src: [number, number][]; tgt: [number, number][] }
  /** Sum of the chosen tokens' log-probabilities. */
  logProb: number
  truncated: boolean
  decodeMs: number
  provider: string
}

/** A regular series of timestamped values (a bundled one, or a CSV the user loaded). */
export interface SeriesData {
  name: string
  /** ISO timestamps as written in the file, one per value. */
  timestamps: string[]
  values: number[]
  /** Index of the first held-out value (the bundled series), or null for a user's series. */
  heldOutStart: number | null
}

export interface ForecastRequest {
  modelId: string
  /** The part of the series the forecast needs: at least `history` values before `origin`. */
  timestamps: string[]
  values: number[]
  /** Index (in these arrays) of the first forecast step. */
  origin: number
}

/** One forecast with everything the forecasting view draws. Rows of matrices are forecast steps. */
export interface ForecastResult {
  modelId: string
  /** The history the encoder read (timestamps and values) and the forecast steps. */
  historyTimes: string[]
  history: number[]
  times: string[]
  forecast: number[]
  /** The actual values where the series has them, else null. */
  actual: (number | null)[]
  /** Same time last week (lag 336 for half-hourly data), from the history. */
  seasonalNaive: (number | null)[]
  /** attention[t][j]: weight of history step j for forecast step t. Empty for `none`. */
  attention: number[][]
  scores: number[][]
  positions: number[] | null
  windows: [number, number][] | null
  gaussian: number[][] | null
  align: number[][] | null
  /** Errors against the actual values, when all of them are known (else null). */
  mae: number | null
  mape: number | null
  naiveMae: number | null
  naiveMape: number | null
  unit: string
  periodMinutes: number
  seasonalLags: number[]
  decodeMs: number
  provider: string
}

/** MAE/MAPE of a forecaster over many origins of a series, next to the seasonal-naive forecast. */
export interface ForecastEval {
  origins: number
  steps: number
  mae: number
  mape: number
  naiveMae: number
  naiveMape: number
  seconds: number
}

export interface EngineStatus {
  state: 'ready' | 'restarted'
  message: string
}

export interface BucketScore {
  bucket: string
  sentences: number
  bleu: number
}

/** Corpus BLEU of one model on one test set (sacreBLEU 13a, greedy decoding). */
export interface EvalResult {
  model: string
  fileName: string
  sentences: number
  bleu: number
  bleuCased: number
  byLength: BucketScore[]
  seconds: number
  sentencesPerSecond: number
  /** Mean entropy of an attention row, in bits (null for the no-attention model). */
  attentionEntropy: number | null
  /** 1 − mean distance of the attention mass from the diagonal (1 = perfectly diagonal). */
  diagonality: number | null
  cached: boolean
  hypotheses: string[]
}

export interface CorpusRequest {
  modelIds: string[]
  /** The user's test set: a source file and its reference translations, line by line. Without them, the pair's bundled test set. */
  source?: TestSetFile
  reference?: TestSetFile
}

export interface TestSetFile {
  name: string
  text: string
}

export interface CorpusProgress extends EvalProgress {
  modelId: string
  /** Index of this model in the request, and how many there are. */
  index: number
  count: number
}

export interface CorpusResult {
  pair: string
  testSet: string
  results: (EvalResult & { modelId: string; attention: AttentionKind })[]
}

export interface EvalProgress {
  done: number
  total: number
}

export interface ProviderInfo {
  /** onnxruntime's name: cpu, webgpu, cuda, tensorrt, dml, coreml */
  name: string
  label: string
  bundled: boolean
  /** Bundled, or its provider library is installed. */
  installed: boolean
}

export interface RecentFile {
  id: string
  name: string
  fileName: string
}
