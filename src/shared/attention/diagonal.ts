/** The proportional diagonal p = t·(S−1)/(T−1): step t of T over S source positions, first on first and last on last. */
export function diagonalAt(t: number, T: number, S: number): number {
  return T > 1 ? (t * (S - 1)) / (T - 1) : 0
}

/** Mean |p_t − diagonal| over the output steps: how far a local model strays from monotonic reading. */
export function meanDistanceFromDiagonal(positions: number[], S: number): number {
  const T = positions.length
  if (!T) return 0
  return positions.reduce((a, p, t) => a + Math.abs(p - diagonalAt(t, T, S)), 0) / T
}

/**
 * Diagonality, the one measure of how diagonal attention is, everywhere the app shows it (the
 * heads grid, the heatmap's head numbers, Alignment score's per-head grid, BLEU by length): the
 * share of a step's weight on the source positions within ±1 of the proportional diagonal
 * d_t = t·(S−1)/(T−1), the row scaled to sum to 1, averaged over the steps. 1 for attention that
 * reads along the diagonal, about 3/S for attention spread evenly.
 */
export function nearDiagonalShare(row: number[], t: number, T: number): number {
  let z = 0
  let near = 0
  const d = diagonalAt(t, T, row.length)
  row.forEach((w, s) => {
    if (!(w > 0)) return
    z += w
    if (Math.abs(s - d) <= 1 + 1e-9) near += w
  })
  return z > 0 ? near / z : 0
}

/** Diagonality of one [t][s] matrix: the mean over its steps of `nearDiagonalShare`. */
export function diagonality(m: number[][]): number {
  const T = m.length
  return T ? m.reduce((a, row, t) => a + nearDiagonalShare(row, t, T), 0) / T : 0
}

/** Diagonality as every table writes it: two decimals. */
export const formatDiagonality = (x: number) => x.toFixed(2)

/** Its name, the same in every tab. */
export const DIAGONALITY_NAME: Record<'en' | 'zh', string> = { en: 'diagonality', zh: '对角性' }
