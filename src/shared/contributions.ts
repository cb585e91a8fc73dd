/**
 * What the contribution methods (issue 41) compute for one sentence of a Transformer, and how
 * `attribute` and the views read one method out of it. The engine fills it
 * (src/engine/contributions); training/contributions_reference.py is its independent reference.
 *
 * Rows are output pieces: row t is decoder position t, which reads the target-prefix piece t − 1
 * (`<s>` at t = 0) and writes output piece t; the last row writes `</s>`. Source columns are the
 * source pieces, `</s>` included. Target-prefix columns are the decoder's inputs (`prefixTokens`).
 */

import type { ContextNorm } from './context-norm'

export const CONTRIBUTION_METHODS = ['norm', 'alti', 'alti+', 'rollout'] as const
export type ContributionMethod = (typeof CONTRIBUTION_METHODS)[number]

export interface Combined {
  /** [T][S]: each output piece's contributions from each source piece. */
  source: number[][]
  /** [T][T]: from each target-prefix piece (0 above the diagonal). A row of source and target sums to 1. */
  target: number[][]
  /** [T]: the sum of each source row. */
  sourceShare: number[]
}

export interface Contributions {
  srcTokens: string[]
  tgtTokens: string[]
  prefixTokens: string[]
  layers: { encoder: number; decoder: number; heads: number }
  /** ALTI of each encoder self-attention block, [L][S][S]. */
  encoderAlti: number[][][]
  /** ALTI of each decoder self-attention block, [L][T][T]. */
  selfAlti: number[][][]
  /** ALTI of each cross-attention block, [L][T][S + 1]: the last column is the residual's share. */
  crossAlti: number[][][]
  /** Value-weighted norms ‖α f(h_j)‖ of each cross-attention head, [L][H][T][S]. */
  crossNorms: number[][][][]
  /** The same for the heads' sum, [L][T][S]. */
  crossNormTotal: number[][][]
  /** [T]: Σ_l ‖attention output‖ / Σ_l (‖attention output‖ + ‖residual‖) over the cross-attention layers. */
  normSourceShare: number[]
  altiPlus: Combined
  rollout: Combined
}

/**
 * What the Contributions tab is sent: all but the per-head norms and the self-attention ALTI, which
 * it draws nowhere (`attribute --json` and the aligners read them in the engine). At opus-mt size, 80
 * output pieces, they were 3.7 of the answer's 4.9 MB of JSON, encoded and parsed on every hop
 * from the engine to the page.
 */
export type ShownContributions = Omit<Contributions, 'crossNorms' | 'selfAlti' | 'encoderAlti'>

export function shownContributions(c: Contributions): ShownContributions {
  const { srcTokens, tgtTokens, prefixTokens, layers, crossAlti, crossNormTotal, normSourceShare, altiPlus, rollout } = c
  return { srcTokens, tgtTokens, prefixTokens, layers, crossAlti, crossNormTotal, normSourceShare, altiPlus, rollout }
}

/** One method as `attribute --json` writes it: `matrix` is [target][source]. */
export interface MethodResult {
  method: ContributionMethod
  matrix: number[][]
  sourceShare: number[]
  /** ALTI+ and rollout: [target][target prefix]. */
  targetMatrix?: number[][]
  /** norm: per cross-attention layer [L][T][S], and per head [L][H][T][S]; alti: per layer [L][T][S + 1]. */
  perLayer?: number[][][]
  perHead?: number[][][][]
}

const rowNormalised = (m: number[][]) =>
  m.map((r) => {
    const s = r.reduce((a, b) => a + b, 0)
    return s > 0 ? r.map((v) => v / s) : r.map(() => 0)
  })

/**
 * One method's matrix and source share:
 * - `norm`: the cross-attention layers' value-weighted norms summed over layers, each row divided
 *   by its sum; the share is normSourceShare (what the attention adds against the residual).
 * - `alti`: the cross-attention layers' ALTI over the source, averaged over layers (not
 *   renormalised), so a row's sum is the mean share of the layers' output that came from the source.
 * - `alti+`, `rollout`: the combined matrices over all layers.
 */
export function methodResult(c: ShownContributions & Partial<Pick<Contributions, 'crossNorms'>>, method: ContributionMethod): MethodResult {
  const S = c.srcTokens.length
  const T = c.tgtTokens.length
  switch (method) {
    case 'norm': {
      const sum = Array.from({ length: T }, (_, t) => Array.from({ length: S }, (_, j) => c.crossNormTotal.reduce((a, l) => a + l[t][j], 0)))
      return {
        method,
        matrix: rowNormalised(sum),
        sourceShare: c.normSourceShare,
        perLayer: c.crossNormTotal,
        ...(c.crossNorms ? { perHead: c.crossNorms } : {}),
      }
    }
    case 'alti': {
      const L = c.crossAlti.length
      const matrix = Array.from({ length: T }, (_, t) => Array.from({ length: S }, (_, j) => c.crossAlti.reduce((a, l) => a + l[t][j], 0) / L))
      return { method, matrix, sourceShare: matrix.map((r) => r.reduce((a, b) => a + b, 0)), perLayer: c.crossAlti }
    }
    case 'alti+':
      return { method, matrix: c.altiPlus.source, sourceShare: c.altiPlus.sourceShare, targetMatrix: c.altiPlus.target }
    case 'rollout':
      return { method, matrix: c.rollout.source, sourceShare: c.rollout.sourceShare, targetMatrix: c.rollout.target }
  }
}

/** Why each Transformer method does not apply to an RNN, in one sentence each (the route's answer says so). */
export const RNN_NOT_APPLICABLE: Record<ContributionMethod, string> = {
  norm: 'value-weighted norms need per-head value vectors W_O W_V h_j, which an RNN does not have',
  alti: 'ALTI decomposes a residual stream through attention blocks and layer norms, which an RNN does not have',
  'alti+': 'ALTI+ combines ALTI over Transformer layers, which an RNN does not have',
  rollout: 'rollout multiplies attention matrices across layers with the residual as identity; an RNN has one attention and no residual',
}

/** What the app's `contributions:run` asks: the sentence, and the output to attribute (absent: the model's greedy output). */
export interface ContributionsRequest {
  modelId: string
  text: string
  /** The output pieces to force through (the translation on show, its `</s>` included or not); absent: greedy. */
  pieces?: string[]
}

/** What every answer of `contributions:run` holds beside its numbers. */
interface ResultBase {
  modelId: string
  /** Whether the output was forced through (the pieces asked) or the model's greedy output. */
  forced: boolean
  /** [T][S]: the attention weights of this forward pass (a Transformer's: the mean over layers and heads), what the heatmap shows. */
  raw: number[][]
  /** Seconds: the tapped forward pass in onnxruntime, and the whole call in the engine. */
  seconds: { run: number; total: number }
}

/** A Transformer's answer: every method's numbers for one forward pass (`method`: the Transformer methods, read with methodResult). */
export interface TransformerContributionsResult extends ShownContributions, ResultBase {
  method: 'transformer'
}

/** An RNN's answer: the context-norm analogue (context-norm.ts), and why each Transformer method does not apply. */
export interface ContextNormResult extends ContextNorm, ResultBase {
  notApplicable: Record<ContributionMethod, string>
}

/** The app's answer, by the methods the model allows. */
export type ContributionsResult = TransformerContributionsResult | ContextNormResult

/** The engine's answer, before the host names the model. */
export type EngineContributionsResult = ContributionsResult extends infer R ? (R extends unknown ? Omit<R, 'modelId'> : never) : never

/** The one error the route answers for a model the methods cannot read (an RNN without attention, a graph the taps do not recognise). */
export const CONTRIBUTIONS_NOT_OFFERED = 'contributions-not-offered'

/** A Transformer's answer as such; an RNN's (the context-norm analogue) is an error here. */
export function transformerResult<R extends EngineContributionsResult | ContributionsResult>(r: R): Extract<R, { method: 'transformer' }> {
  if (r.method !== 'transformer') throw new Error(`the answer holds the ${r.method} analogue, not the Transformer methods`)
  return r as Extract<R, { method: 'transformer' }>
}
