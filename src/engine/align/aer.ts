import type { AerScore } from '../../shared/alignment'
import type { Link } from './pharaoh'
import { linkKey } from './pharaoh'

/**
 * Alignment Error Rate (Och & Ney 2003), with A the hypothesis links, S the sure and P the possible
 * gold links (S ⊆ P): AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|), precision = |A∩P| / |A|,
 * recall = |A∩S| / |S|. A hypothesis link's kind is ignored (every link of A counts as proposed).
 * Over a set, the counts are summed first (as awesome-align's and fast_align's scorers do), so a
 * long sentence weighs more than a short one.
 */
export interface AerCounts {
  /** |A| */
  hyp: number
  /** |S| */
  sure: number
  /** |A ∩ S| */
  hitSure: number
  /** |A ∩ P| */
  hitPossible: number
}

export type { AerScore }

export function aerCounts(gold: readonly Link[], hyp: readonly Link[]): AerCounts {
  const sure = new Set<number>()
  const possible = new Set<number>()
  for (const l of gold) {
    const k = linkKey(l.i, l.j)
    possible.add(k)
    if (l.sure) sure.add(k)
  }
  const a = new Set(hyp.map((l) => linkKey(l.i, l.j)))
  let hitSure = 0
  let hitPossible = 0
  for (const k of a) {
    if (sure.has(k)) hitSure++
    if (possible.has(k)) hitPossible++
  }
  return { hyp: a.size, sure: sure.size, hitSure, hitPossible }
}

export function addCounts(xs: readonly AerCounts[]): AerCounts {
  const s: AerCounts = { hyp: 0, sure: 0, hitSure: 0, hitPossible: 0 }
  for (const c of xs) {
    s.hyp += c.hyp
    s.sure += c.sure
    s.hitSure += c.hitSure
    s.hitPossible += c.hitPossible
  }
  return s
}

/** The rates of some counts, in percent; an empty hypothesis has precision 0 and AER 100 unless S is empty too. */
export function aerOf(c: AerCounts): AerScore {
  const denom = c.hyp + c.sure
  return {
    aer: denom === 0 ? 0 : 100 * (1 - (c.hitSure + c.hitPossible) / denom),
    precision: c.hyp === 0 ? 0 : (100 * c.hitPossible) / c.hyp,
    recall: c.sure === 0 ? 0 : (100 * c.hitSure) / c.sure,
  }
}

/** Per sentence and over the set. */
export function scoreSet(gold: readonly (readonly Link[])[], hyp: readonly (readonly Link[])[]): { set: AerScore; sentences: AerScore[] } {
  if (gold.length !== hyp.length) throw new Error(`The gold has ${gold.length} sentence pairs but the hypothesis ${hyp.length}.`)
  const counts = gold.map((g, n) => aerCounts(g, hyp[n]))
  return { set: aerOf(addCounts(counts)), sentences: counts.map(aerOf) }
}

/** `AER 12.34 P 56.78 R 90.12` */
export const formatAer = (s: AerScore): string => `AER ${s.aer.toFixed(2)} P ${s.precision.toFixed(2)} R ${s.recall.toFixed(2)}`
