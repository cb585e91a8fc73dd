/**
 * What the Alignment panel shows (issue 24): a gold set scored against every open model of its
 * pair, head by head for a Transformer, beside a statistical aligner and awesome-align's file, and
 * one sentence's occlusion beside its attention. Computed in the engine (src/engine/align/).
 */

/** One link: source word i, target word j (0-based), sure or only possible. */
export interface Link {
  i: number
  j: number
  sure: boolean
}

/** Percentages, 0–100. */
export interface AerScore {
  aer: number
  precision: number
  recall: number
}

/** One aligner's links on the gold set, and how they score. */
export interface ScoredLinks {
  score: AerScore
  /** Per sentence. */
  sentenceAer: number[]
  links: Link[][]
}

export interface BoardModel extends ScoredLinks {
  modelId: string
  name: string
  attention: string
  /** Per sentence, [target words][source words]: the model's attention over the gold's words (null: a target word past the model's length limit). */
  matrices: (number[] | null)[][]
  /** Transformer: per head, [layer][head], over the gold set; null for one attention. */
  heads: { aer: number[][]; entropy: number[][]; diagonality: number[][]; layerAer: number[] } | null
  /**
   * A bundled Transformer: each contribution method (issue 41: value-weighted norms, ALTI, ALTI+,
   * rollout) read as the weights are, its argmax links at the usual step and their AER, and its AER
   * read at the shifted step; absent where the methods cannot read the model (an RNN, a Hugging Face folder).
   */
  contributions?: (ScoredLinks & { method: 'norm' | 'alti' | 'alti+' | 'rollout'; shifted: AerScore })[]
}

export interface AlignmentBoard {
  pair: string
  goldName: string
  sentences: { src: string[]; tgt: string[]; gold: Link[] }[]
  models: BoardModel[]
  statistical: ScoredLinks & { corpus: string }
  awesome: (ScoredLinks & { name: string }) | null
}

/** A file the user picked: its name and text. */
export interface PickedText {
  name: string
  text: string
}

export interface AlignmentRequest {
  modelIds: string[]
  pairs: PickedText
  gold: PickedText
  awesome?: PickedText
}

/** Occlusion of one sentence beside its attention (src/engine/align/occlusion.ts). */
export interface OcclusionResult {
  srcWords: string[]
  /** The model's greedy output, `</s>` last. */
  tgtTokens: string[]
  logProbs: number[]
  /** [output token][source word]: log p(token | source) − log p(token | source without the word). */
  importance: number[][]
  /** [output token][source word]: the model's attention, pieces summed, `</s>` left out and renormalised. */
  attention: number[][]
  /** Per output token: Kendall's τ-b of importance against attention (null where either is flat). */
  tau: (number | null)[]
  /** Per output token: the most important word is the most attended one. */
  top1: boolean[]
  meanTau: number | null
  top1Rate: number
}

/** BLEU of the greedy output and the reference's mean log-probability per token (nats), under one attention. */
export interface AblationCell {
  bleu: number
  refLogProb: number
}

/** Corpus attention ablation (src/engine/align/ablation.ts) of one model. */
export interface AblationRow {
  modelId: string
  name: string
  attention: string
  own: AblationCell
  /** Null where the model's attention cannot be replaced (`why` says so). */
  uniform: AblationCell | null
  permuted: AblationCell | null
  why: string | null
  /** Occlusion over the first sentences of the same set: mean Kendall τ and top-1 agreement per output token (null: no attention). */
  occlusion: { sentences: number; meanTau: number | null; top1Rate: number } | null
}

export interface AblationRequest {
  modelIds: string[]
  /** The first `limit` sentences of the set. */
  limit: number
  source?: PickedText
  reference?: PickedText
}

export interface AblationTable {
  pair: string
  testSet: string
  /** Sentences scored, of `available` in the set. */
  sentences: number
  available: number
  rows: AblationRow[]
}

/** Progress of the Alignment panel's long runs (the scoreboard, the ablation), in steps of the run. */
export interface AlignmentProgress {
  task: 'board' | 'ablation'
  done: number
  total: number
  /** The model being run, when the step belongs to one: its name, and which of how many. */
  model?: { name: string; index: number; count: number }
  /** Inside the board's current model: gold pairs forced through it, heads scored (a 192-head model takes seconds), then a Transformer's contribution methods' pass over the pairs. */
  step?: { what: 'pairs' | 'heads' | 'methods'; done: number; total: number }
}
