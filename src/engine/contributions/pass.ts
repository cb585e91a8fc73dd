import type { Contributions } from '../../shared/contributions'
import type { ModelSpec } from '../contract'
import { combine, rolloutCross, rolloutSelf, type AltiOptions, type crossNorms } from './math'

/**
 * What every model the contribution methods read shares (a bundled Transformer, index.ts; a
 * Hugging Face folder, hf.ts): one tapped forward pass, and the methods computed from it.
 */

/** One sentence's tapped forward pass. */
export interface Pass {
  srcIds: number[]
  /** Output ids with the final `</s>`. */
  tgtIds: number[]
  S: number
  T: number
  /** Per decoder layer, the cross-attention weights [H][T][S]. */
  dec: { cross: ArrayLike<number>[][] }[]
  /** Seconds spent in onnxruntime. */
  runSeconds: number
}

export interface Attributor<P extends Pass = Pass> {
  readonly spec: ModelSpec
  encodeSource(text: string): { tokens: string[]; ids: number[] }
  encodeTarget(text: string, srcLen: number): number[]
  run(srcIds: number[], target: number[] | null): Promise<P>
  contributions(tp: P, opts?: AltiOptions): Contributions
  release(): Promise<void>
}

/** The per-block results put together: the norms' source share, ALTI+ and rollout. */
export function assemble(p: {
  srcTokens: string[]
  tgtTokens: string[]
  prefixTokens: string[]
  heads: number
  encoderAlti: number[][][]
  selfAlti: number[][][]
  crossAlti: number[][][]
  norms: ReturnType<typeof crossNorms>[]
  /** Per decoder layer, each position's residual into the cross-attention [T][d]. */
  crossResidual: ArrayLike<number>[][]
  /** The raw weights [L][H][N][N]: the encoder's, the decoder's self- and cross-attention. */
  weights: { encoder: ArrayLike<number>[][][]; self: ArrayLike<number>[][][]; cross: ArrayLike<number>[][][] }
}): Contributions {
  const T = p.tgtTokens.length
  // the attention's whole output (without b_O) against the residual it is added to, over the layers
  const normSourceShare = Array.from({ length: T }, (_, t) => {
    let num = 0
    let den = 0
    p.norms.forEach((n, l) => {
      const x = p.crossResidual[l][t]
      let xx = 0
      for (let k = 0; k < x.length; k++) xx += x[k] * x[k]
      num += n.outNorm[t]
      den += n.outNorm[t] + Math.sqrt(xx)
    })
    return den > 0 ? num / den : 0
  })
  return {
    srcTokens: p.srcTokens,
    tgtTokens: p.tgtTokens,
    prefixTokens: p.prefixTokens,
    layers: { encoder: p.encoderAlti.length, decoder: p.selfAlti.length, heads: p.heads },
    encoderAlti: p.encoderAlti,
    selfAlti: p.selfAlti,
    crossAlti: p.crossAlti,
    crossNorms: p.norms.map((n) => n.perHead),
    crossNormTotal: p.norms.map((n) => n.total),
    normSourceShare,
    altiPlus: combine(p.encoderAlti, p.selfAlti, p.crossAlti),
    rollout: combine(p.weights.encoder.map(rolloutSelf), p.weights.self.map(rolloutSelf), p.weights.cross.map(rolloutCross)),
  }
}
