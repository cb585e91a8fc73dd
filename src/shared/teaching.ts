/**
 * Types of the calls that serve a class: reference scores, example sentences, the beam's tree and
 * what-if attention for forecasters. Plain data, like everything in api.ts.
 */

/** A hypothesis against a reference: sacreBLEU's sentence BLEU and chrF, 0–100. */
export interface SentenceScore {
  bleu: number
  chrf: number
}

export interface ExampleQuery {
  /** The language pair of the bundled test set, e.g. "en-fr". */
  pair: string
  /** Only sentences whose source or reference contains this (case-insensitive). */
  search?: string
  /** Source length in words (a CJK character counts as a word), inclusive. */
  minLength?: number
  maxLength?: number
  /** Pick at random among the matches (a new pick each time unless `seed` is given). */
  random?: boolean
  seed?: number
  limit?: number
}

export interface ExampleSentence {
  /** Line of the test set, 0-based. */
  index: number
  source: string
  reference: string
  length: number
}

export interface ExampleList {
  pair: string
  /** Where the sentences come from, in one line. */
  testSet: string
  /** How many sentences match, of which `sentences` are shown. */
  total: number
  sentences: ExampleSentence[]
}

/**
 * One node of a beam search: the token a hypothesis took at one step. Node 0's parent is -1 (the
 * first step's tokens hang from the start of the sentence).
 */
export interface BeamNode {
  parent: number
  /** Output step, 0-based. */
  step: number
  token: string
  /** log P of this token, and of the whole hypothesis up to it. */
  logProb: number
  score: number
  /** The attention the decoder used to choose it (empty for `none`). */
  attention: number[]
  /** chosen: on the winning hypothesis; finished: ended with </s>; kept: carried to the next step; pruned: fell out of the beam. */
  status: 'chosen' | 'finished' | 'kept' | 'pruned'
}

export interface BeamTree {
  width: number
  nodes: BeamNode[]
}

export type ForecastOverrideMode = 'uniform' | 'onehot' | 'custom'

/** "What if a forecaster's attention were …": replace its weights at one step or all, forecast again. */
export interface ForecastWhatIfRequest {
  modelId: string
  timestamps: string[]
  values: number[]
  origin: number
  /** Forecast steps (0-based) to override, or 'all'. */
  steps: number[] | 'all'
  mode: ForecastOverrideMode
  /** For 'onehot': the lag (in steps back from the step forecast) to attend to. */
  lag?: number
  /** For 'custom': weights at lags (normalised by the engine over the lags inside the history). */
  lags?: { lag: number; weight: number }[]
}

/** A forecast with the model's own attention and with the override (the result type: api.ts ForecastResult, twice). */
export interface ForecastWhatIfResult<R> {
  original: R
  modified: R
}
