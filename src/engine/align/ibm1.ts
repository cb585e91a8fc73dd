import { pause } from './pause'

const CANCELLED = 'The statistical aligner was cancelled.'

/**
 * IBM Model 1 with fast_align's diagonal prior (Dyer, Chahuneau & Smith 2013, "A Simple, Fast, and
 * Effective Reparameterization of IBM Model 2"): each word f_j of the generated side is aligned to
 * a word e_i of the conditioning side or to NULL, with
 *   p(a_j = 0) = p0,   p(a_j = i) = (1 − p0) · exp(−λ |i/m − j/n|) / Z(j, m, n),
 * and p(f_j | e_i) a lexical table trained by EM. fast_align's defaults: p0 = 0.08, λ = 4 (kept
 * fixed here; fast_align can also optimise λ), plain maximum-likelihood M steps.
 *
 * Sentences are words already mapped to integer ids; every (e, f) pair that co-occurs gets one slot
 * in a flat parameter array, and each sentence keeps the slots of its (i, j) cells, so an EM
 * iteration is array arithmetic only.
 */
export interface Ibm1Options {
  iterations?: number
  p0?: number
  tension?: number
  signal?: AbortSignal
  /** Called after each iteration. */
  onIteration?: (done: number, total: number) => void
}

export interface Ibm1Model {
  /** Most probable alignment of each sentence: for each f position, its e position or -1 for NULL. */
  viterbi(): number[][]
}

/** Diagonal-prior weights of the m source positions for target position j (1-based in the formula). */
function prior(out: Float64Array, j: number, m: number, n: number, tension: number): void {
  let z = 0
  for (let i = 0; i < m; i++) {
    const w = Math.exp(-tension * Math.abs((i + 1) / m - (j + 1) / n))
    out[i] = w
    z += w
  }
  for (let i = 0; i < m; i++) out[i] /= z
}

const NULL = 0

/**
 * es[k], fs[k]: the ids of sentence k's conditioning and generated words (ids from 1; 0 is NULL).
 * Yields to the event loop now and then, so a cancel request or a progress message gets through.
 */
export async function trainIbm1(es: readonly Int32Array[], fs: readonly Int32Array[], opts: Ibm1Options = {}): Promise<Ibm1Model> {
  const iterations = opts.iterations ?? 5
  const p0 = opts.p0 ?? 0.08
  const tension = opts.tension ?? 4
  const K = es.length
  // Slots: one per co-occurring (e, f), NULL included as e = 0.
  const slotOf = new Map<number, number>()
  const eOfSlot: number[] = []
  const offsets = new Int32Array(K + 1)
  let cells = 0
  for (let k = 0; k < K; k++) {
    offsets[k] = cells
    cells += (es[k].length + 1) * fs[k].length
  }
  offsets[K] = cells
  const slots = new Int32Array(cells)
  let maxF = 1
  for (const f of fs) for (const x of f) if (x >= maxF) maxF = x + 1
  for (let k = 0; k < K; k++) {
    const e = es[k]
    const f = fs[k]
    let c = offsets[k]
    for (let j = 0; j < f.length; j++) {
      for (let i = -1; i < e.length; i++) {
        const ei = i < 0 ? NULL : e[i]
        const key = ei * maxF + f[j]
        let s = slotOf.get(key)
        if (s === undefined) {
          s = eOfSlot.length
          slotOf.set(key, s)
          eOfSlot.push(ei)
        }
        slots[c++] = s
      }
    }
    if (k % 4096 === 4095) await pause(opts.signal, CANCELLED)
  }
  const eOf = Int32Array.from(eOfSlot)
  let maxE = 1
  for (const e of eOf) if (e >= maxE) maxE = e + 1
  // Uniform start: every f equally likely under every e (the first E step then follows the prior alone).
  const t = new Float64Array(eOf.length).fill(1)
  const counts = new Float64Array(eOf.length)
  const totals = new Float64Array(maxE)
  const maxM = Math.max(1, ...es.map((e) => e.length))
  const pri = new Float64Array(maxM)
  const post = new Float64Array(maxM + 1)
  for (let it = 0; it < iterations; it++) {
    counts.fill(0)
    for (let k = 0; k < K; k++) {
      const m = es[k].length
      const n = fs[k].length
      let c = offsets[k]
      for (let j = 0; j < n; j++) {
        prior(pri, j, m, n, tension)
        let z = (post[0] = p0 * t[slots[c]])
        for (let i = 0; i < m; i++) z += post[i + 1] = (1 - p0) * pri[i] * t[slots[c + 1 + i]]
        if (z > 0) for (let i = 0; i <= m; i++) counts[slots[c + i]] += post[i] / z
        c += m + 1
      }
      if (k % 4096 === 4095) await pause(opts.signal, CANCELLED)
    }
    totals.fill(0)
    for (let s = 0; s < counts.length; s++) totals[eOf[s]] += counts[s]
    for (let s = 0; s < counts.length; s++) t[s] = totals[eOf[s]] > 0 ? counts[s] / totals[eOf[s]] : 0
    opts.onIteration?.(it + 1, iterations)
  }
  return {
    viterbi() {
      return es.map((e, k) => {
        const m = e.length
        const n = fs[k].length
        const out: number[] = []
        let c = offsets[k]
        for (let j = 0; j < n; j++) {
          prior(pri, j, m, n, tension)
          let best = -1
          let bestP = p0 * t[slots[c]]
          for (let i = 0; i < m; i++) {
            const p = (1 - p0) * pri[i] * t[slots[c + 1 + i]]
            if (p > bestP) [best, bestP] = [i, p]
          }
          out.push(best)
          c += m + 1
        }
        return out
      })
    },
  }
}
