/**
 * Kendall's τ-b between two rankings of the same items (ties counted as neither concordant nor
 * discordant, and corrected for): 1 = same order, −1 = reversed, null when either has no order at
 * all (every value tied, or fewer than two items).
 */
export function kendallTau(a: readonly number[], b: readonly number[]): number | null {
  const n = Math.min(a.length, b.length)
  let concordant = 0
  let discordant = 0
  let tiesA = 0
  let tiesB = 0
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const da = Math.sign(a[i] - a[j])
      const db = Math.sign(b[i] - b[j])
      if (da === 0 && db === 0) continue
      if (da === 0) tiesA++
      else if (db === 0) tiesB++
      else if (da === db) concordant++
      else discordant++
    }
  const denom = Math.sqrt((concordant + discordant + tiesA) * (concordant + discordant + tiesB))
  return denom === 0 ? null : (concordant - discordant) / denom
}
