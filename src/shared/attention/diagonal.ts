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
