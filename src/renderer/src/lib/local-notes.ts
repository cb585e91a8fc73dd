import { type LocalKind } from '../../../shared/charts/local'
import { diagonalAt } from '../../../shared/attention/diagonal'

/**
 * What the local-attention text says about p_t, worked out from the positions on show, so the
 * words match the chart: whether p_t sits on the dashed diagonal, runs above or below it, and
 * which first or last step looks somewhere odd.
 */
export interface LocalFacts {
  /** Mean |p_t − diagonal| and mean (p_t − diagonal): above (> 0) or below the diagonal. */
  distance: number
  offset: number
  /** local-m's pace: p_t grows by this per step (the training data's length ratio). */
  pace: number | null
  /** The first or last step whose p_t is further than D from the diagonal. */
  odd: { step: number; position: number; diagonal: number; where: 'first' | 'last' }[]
  /** local-m: steps whose p_t is held at the last source position (its pace would run past the end). */
  capped: number
}

/** Within this many source positions of the diagonal, p_t "sits on" it. */
export const ON_DIAGONAL = 0.5

export function localFacts(kind: LocalKind, positions: number[], S: number, D: number): LocalFacts {
  const T = positions.length
  const diag = positions.map((_, t) => diagonalAt(t, T, S))
  const distance = T ? positions.reduce((a, p, t) => a + Math.abs(p - diag[t]), 0) / T : 0
  const offset = T ? positions.reduce((a, p, t) => a + (p - diag[t]), 0) / T : 0
  const last = S - 1
  const capped = kind === 'monotonic' ? positions.filter((p) => Math.abs(p - last) < 1e-6).length : 0
  const free = positions.filter((p) => p < last - 1e-6)
  const pace = kind === 'monotonic' && free.length >= 2 ? free[1] - free[0] : null
  const odd: LocalFacts['odd'] = []
  if (kind === 'predictive' && T > 0) {
    const far = (t: number) => Math.abs(positions[t] - diag[t]) > Math.max(D, 1)
    if (far(0)) odd.push({ step: 0, position: positions[0], diagonal: diag[0], where: 'first' })
    if (T > 1 && far(T - 1)) odd.push({ step: T - 1, position: positions[T - 1], diagonal: diag[T - 1], where: 'last' })
  }
  return { distance, offset, pace, odd, capped: capped > 1 ? capped : 0 }
}
