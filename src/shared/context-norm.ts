/**
 * The RNN analogue of the source share (issue 41): for each output step, how much of the output
 * layer's input came through the attention's context vector. An RNN has no residual stream or
 * value vectors for norms, ALTI, ALTI+ or rollout; what it has is one linear layer that reads the
 * context c_t next to the decoder state s_t (and, in a Bahdanau decoder, the embedding of the
 * previous word): Bahdanau's tanh(W_out [s; c; e] + b), Luong's h̃ = tanh(W_c [c; s] + b). That
 * layer's pre-activation is a sum of one part per input, W = [W_s | W_c | W_e], and, as Kobayashi
 * et al. (2020) weigh attention by the norm of what it adds, each part is weighed by its norm:
 *
 *   share_t = ‖W_c c_t‖ / (‖W_c c_t‖ + ‖W_s s_t‖ + ‖W_e e_t‖)
 *
 * The bias is left out of the sum: it is the same at every step and comes from neither the source
 * nor the prefix (as the Transformers' norm share leaves out b_O). The engine computes it
 * (src/engine/contributions/rnn.ts); training/contributions_reference_rnn.py is its reference.
 */

export const CONTEXT_NORM = 'context-norm' as const

/**
 * What one input of the layer is: the attention's context vector, the decoder state (what the
 * recurrence carries, prefix and source mixed), the previous word's embedding, or an input the
 * graph does not say (a user's model).
 */
export type ContextPartRole = 'context' | 'state' | 'embedding' | 'other'

export interface ContextNormLayer {
  /** The layer's weight as the graph names it (its initializer). */
  weight: string
  /** Its inputs in the Concat's order: what each is, the tensor's name, and its width. */
  parts: { role: ContextPartRole; name: string; width: number }[]
}

/** One sentence's analogue. Rows are output pieces (row t writes piece t; the last writes `</s>`). */
export interface ContextNorm {
  method: typeof CONTEXT_NORM
  srcTokens: string[]
  tgtTokens: string[]
  /** The decoder's input at each row: `<s>`, then the output pieces but the last. */
  prefixTokens: string[]
  layer: ContextNormLayer
  /** [T][P]: ‖W_p x_p‖ of each part p (layer.parts' order) at each row. */
  norms: number[][]
  /** [T]: the context part's norm over the sum of the parts' norms, in [0, 1]. */
  sourceShare: number[]
  /** [T][S]: the attention weights α_tj of the same pass (what c_t is the mean of). */
  weights: number[][]
}

/** The source share of a part's norms: the context's over all parts'. */
export function contextShare(norms: readonly number[], roles: readonly ContextPartRole[]): number {
  let ctx = 0
  let all = 0
  norms.forEach((n, p) => {
    all += n
    if (roles[p] === 'context') ctx += n
  })
  return all > 0 ? ctx / all : 0
}
