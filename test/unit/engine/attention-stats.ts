import type { Translation } from '../../../src/shared/api'

/**
 * What training/attention_stats.py measures, from the app's own greedy translations (the same
 * definitions, so the golden tests pin the numbers the cards and training/README.md report).
 */
export class AttentionStats {
  private eos = 0
  private eosSteps = 0
  private readonly corr: number[] = []
  private distance = 0
  private steps = 0

  add(t: Translation): void {
    const rows = t.attention
    const n = t.srcTokens.length
    if (rows.length === 0) return
    // The steps before the last: at the step that writes </s>, looking at the source </s> is expected.
    for (const row of rows.slice(0, -1)) this.eos += row[n - 1]
    this.eosSteps += rows.length - 1
    if (!t.positions) return
    const centres = rows.map((row) => {
      const mass = row.reduce((a, w) => a + w, 0)
      return row.reduce((a, w, j) => a + j * w, 0) / Math.max(mass, 1e-12)
    })
    t.positions.forEach((p, i) => (this.distance += Math.abs(p - centres[i])))
    this.steps += rows.length
    const r = rows.length >= 3 ? pearson(t.positions, centres) : null
    if (r !== null) this.corr.push(r)
  }

  /** Mean weight on the source </s> over the steps before the last. */
  get eosMass(): number {
    return this.eos / this.eosSteps
  }

  /** Median over sentences of the correlation between p_t and the attention's centre of mass. */
  get medianCorrelation(): number {
    const s = [...this.corr].sort((a, b) => a - b)
    const m = s.length >> 1
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
  }

  /** Mean |p_t − centre of mass| over all steps, in source positions. */
  get meanDistance(): number {
    return this.distance / this.steps
  }
}

function pearson(x: number[], y: number[]): number | null {
  const mx = x.reduce((a, v) => a + v, 0) / x.length
  const my = y.reduce((a, v) => a + v, 0) / y.length
  let sxy = 0
  let sxx = 0
  let syy = 0
  x.forEach((v, i) => {
    sxy += (v - mx) * (y[i] - my)
    sxx += (v - mx) ** 2
    syy += (y[i] - my) ** 2
  })
  return sxx < 1e-12 || syy < 1e-12 ? null : sxy / Math.sqrt(sxx * syy)
}
