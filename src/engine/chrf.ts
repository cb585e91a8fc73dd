/**
 * chrF as sacreBLEU 2.x computes it (Popović 2015): the F-score of character n-grams (n = 1…6,
 * β = 2), precision and recall averaged over the orders both sides have, whitespace removed.
 * Checked against sacreBLEU's published test cases in test/unit/engine/chrf.test.ts.
 */

export interface ChrfOptions {
  /** Character n-gram orders (sacreBLEU's char_order). */
  charOrder?: number
  /** Recall weighs β² times precision. */
  beta?: number
  /** Keep spaces inside the n-grams (sacreBLEU's whitespace=True). */
  whitespace?: boolean
  /** chrF++.py's ε smoothing instead of sacreBLEU's effective order. */
  epsSmoothing?: boolean
}

const DEFAULTS = { charOrder: 6, beta: 2, whitespace: false, epsSmoothing: false }
const EPS = 1e-16

/** Counts of the character n-grams of order 1…max (code points, as Python strings index). */
function charNgrams(line: string, max: number, whitespace: boolean): Map<string, number>[] {
  const chars = Array.from(whitespace ? line : line.split(/\s+/).join(''))
  const out: Map<string, number>[] = []
  for (let n = 1; n <= max; n++) {
    const m = new Map<string, number>()
    for (let i = 0; i + n <= chars.length; i++) {
      const g = chars.slice(i, i + n).join('')
      m.set(g, (m.get(g) ?? 0) + 1)
    }
    out.push(m)
  }
  return out
}

/** Per order: [hypothesis n-grams, reference n-grams, matches]. */
function matchStats(hyp: Map<string, number>[], ref: Map<string, number>[]): number[] {
  const stats: number[] = []
  hyp.forEach((h, i) => {
    let hypCount = 0
    let match = 0
    for (const [g, c] of h) {
      hypCount += c
      match += Math.min(c, ref[i].get(g) ?? 0)
    }
    let refCount = 0
    for (const c of ref[i].values()) refCount += c
    stats.push(hypCount, refCount, match)
  })
  return stats
}

/** chrF (0–100) from summed statistics, following sacreBLEU's _compute_f_score. */
export function computeChrf(stats: number[], opts: ChrfOptions = {}): number {
  const { beta, epsSmoothing } = { ...DEFAULTS, ...opts }
  const order = stats.length / 3
  const factor = beta ** 2
  let score = 0
  let avgPrec = 0
  let avgRec = 0
  let effective = 0
  for (let i = 0; i < order; i++) {
    const [nHyp, nRef, nMatch] = stats.slice(3 * i, 3 * i + 3)
    const prec = nHyp > 0 ? nMatch / nHyp : EPS
    const rec = nRef > 0 ? nMatch / nRef : EPS
    const denom = factor * prec + rec
    score += denom > 0 ? ((1 + factor) * prec * rec) / denom : EPS
    if (nHyp > 0 && nRef > 0) {
      avgPrec += prec
      avgRec += rec
      effective++
    }
  }
  if (epsSmoothing) return (100 * score) / order
  if (effective === 0) return 0
  avgPrec /= effective
  avgRec /= effective
  if (avgPrec + avgRec === 0) return 0
  return (100 * (1 + factor) * avgPrec * avgRec) / (factor * avgPrec + avgRec)
}

/** The statistics of one hypothesis against the reference that scores it best. */
export function chrfStats(hyp: string, refs: string[], opts: ChrfOptions = {}): number[] {
  const o = { ...DEFAULTS, ...opts }
  const h = charNgrams(hyp, o.charOrder, o.whitespace)
  let best: number[] = []
  let bestScore = -1
  for (const r of refs) {
    const stats = matchStats(h, charNgrams(r, o.charOrder, o.whitespace))
    const f = computeChrf(stats, o)
    if (f > bestScore) {
      bestScore = f
      best = stats
    }
  }
  return best
}

export function sentenceChrf(hyp: string, refs: string[], opts: ChrfOptions = {}): number {
  return computeChrf(chrfStats(hyp, refs, opts), opts)
}

/** Corpus chrF; `refs[k][i]` is the k-th reference of hypothesis i, as in sacreBLEU. */
export function corpusChrf(hyps: string[], refs: string[][], opts: ChrfOptions = {}): number {
  const total: number[] = []
  hyps.forEach((h, i) => {
    chrfStats(
      h,
      refs.map((stream) => stream[i]),
      opts,
    ).forEach((x, k) => (total[k] = (total[k] ?? 0) + x))
  })
  return computeChrf(total, opts)
}
