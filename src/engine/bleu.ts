/**
 * Corpus BLEU as sacreBLEU computes it (13a tokenisation, closest reference length, exp/floor
 * smoothing), checked against sacreBLEU's published test cases in test/unit/engine/bleu.test.ts.
 */

export interface BleuOptions {
  tokenize?: '13a' | 'none'
  lowercase?: boolean
  smooth?: 'exp' | 'floor' | 'none'
  smoothValue?: number
  effectiveOrder?: boolean
}

export interface BleuResult {
  score: number
  counts: number[]
  totals: number[]
  precisions: number[]
  bp: number
  sysLen: number
  refLen: number
}

const MAX_ORDER = 4

const RULES_13A: [RegExp, string][] = [
  [/([{-~[-` -&(-+:-@/])/g, ' $1 '],
  [/([^0-9])([.,])/g, '$1 $2 '],
  [/([.,])([^0-9])/g, ' $1 $2'],
  [/([0-9])(-)/g, '$1 $2 '],
]

/** mteval-v13a's tokeniser, as sacreBLEU's `13a`. */
export function tokenize13a(line: string): string[] {
  let s = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ')
  if (s.includes('&')) s = s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>')
  s = ` ${s} `
  for (const [rx, sub] of RULES_13A) s = s.replace(rx, sub)
  return s.split(/\s+/).filter(Boolean)
}

function ngrams(words: string[], n: number): Map<string, number> {
  const m = new Map<string, number>()
  for (let i = 0; i + n <= words.length; i++) {
    const g = words.slice(i, i + n).join('\u0001')
    m.set(g, (m.get(g) ?? 0) + 1)
  }
  return m
}

/** The sufficient statistics of one sentence against its references. */
export function sentenceStats(hyp: string, refs: string[], opts: BleuOptions = {}): { counts: number[]; totals: number[]; sysLen: number; refLen: number } {
  const prep = (s: string) => {
    const t = opts.lowercase ? s.toLowerCase() : s
    return opts.tokenize === 'none' ? t.split(/\s+/).filter(Boolean) : tokenize13a(t)
  }
  const h = prep(hyp)
  const rs = refs.map(prep)
  let refLen = -1
  let diff = -1
  for (const r of rs) {
    const d = Math.abs(h.length - r.length)
    if (diff === -1 || d < diff || (d === diff && r.length < refLen)) {
      diff = d
      refLen = r.length
    }
  }
  const counts: number[] = []
  const totals: number[] = []
  for (let n = 1; n <= MAX_ORDER; n++) {
    const maxRef = new Map<string, number>()
    for (const r of rs) for (const [g, c] of ngrams(r, n)) maxRef.set(g, Math.max(maxRef.get(g) ?? 0, c))
    let match = 0
    for (const [g, c] of ngrams(h, n)) match += Math.min(c, maxRef.get(g) ?? 0)
    counts.push(match)
    totals.push(Math.max(h.length - n + 1, 0))
  }
  return { counts, totals, sysLen: h.length, refLen: Math.max(refLen, 0) }
}

/** BLEU from summed statistics, following sacreBLEU's compute_bleu. */
export function computeBleu(counts: number[], totals: number[], sysLen: number, refLen: number, opts: BleuOptions = {}): BleuResult {
  const smooth = opts.smooth ?? 'exp'
  const smoothValue = opts.smoothValue ?? (smooth === 'floor' ? 0.1 : 0)
  const precisions = new Array<number>(MAX_ORDER).fill(0)
  const base = { counts, totals, sysLen, refLen }
  if (sysLen === 0 || refLen === 0) return { ...base, score: 0, precisions, bp: 0 }
  const bp = sysLen >= refLen ? 1 : Math.exp(1 - refLen / sysLen)
  let smoothExp = 1
  let order = MAX_ORDER
  for (let n = 1; n <= MAX_ORDER; n++) {
    if (totals[n - 1] === 0) break
    if (opts.effectiveOrder) order = n
    if (counts[n - 1] === 0) {
      if (smooth === 'exp') {
        smoothExp *= 2
        precisions[n - 1] = 100 / (smoothExp * totals[n - 1])
      } else if (smooth === 'floor') {
        precisions[n - 1] = (100 * smoothValue) / totals[n - 1]
      }
    } else {
      precisions[n - 1] = (100 * counts[n - 1]) / totals[n - 1]
    }
  }
  const logSum = precisions.slice(0, order).reduce((a, p) => a + (p === 0 ? -9999999999 : Math.log(p)), 0)
  return { ...base, score: bp * Math.exp(logSum / order), precisions, bp }
}

/**
 * Corpus BLEU. `refs` is a list of reference streams, as in sacreBLEU: refs[k][i] is the k-th
 * reference of hypothesis i.
 */
export function corpusBleu(hyps: string[], refs: string[][], opts: BleuOptions = {}): BleuResult {
  const counts = [0, 0, 0, 0]
  const totals = [0, 0, 0, 0]
  let sysLen = 0
  let refLen = 0
  hyps.forEach((h, i) => {
    const s = sentenceStats(
      h,
      refs.map((stream) => stream[i]),
      opts,
    )
    for (let n = 0; n < MAX_ORDER; n++) {
      counts[n] += s.counts[n]
      totals[n] += s.totals[n]
    }
    sysLen += s.sysLen
    refLen += s.refLen
  })
  return computeBleu(counts, totals, sysLen, refLen, opts)
}
