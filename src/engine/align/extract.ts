import type { Link } from './pharaoh'
import { linkKey } from './pharaoh'

/**
 * Attention [target words][source words] → links. A row that is null (a target word the decoder
 * never reached) proposes no link.
 */
export type Method = { kind: 'argmax' } | { kind: 'threshold'; value: number }

export const ARGMAX: Method = { kind: 'argmax' }

/** `argmax` or `threshold=0.3`. */
export function parseMethod(raw: string): Method | null {
  if (raw === 'argmax') return ARGMAX
  const m = /^threshold=(\d*\.?\d+)$/.exec(raw)
  if (m && Number(m[1]) <= 1) return { kind: 'threshold', value: Number(m[1]) }
  return null
}

/** Index of the largest value (the first on a tie), or -1 for an empty row. */
export function argmax(row: readonly number[]): number {
  let best = -1
  for (let i = 0; i < row.length; i++) if (best < 0 || row[i] > row[best]) best = i
  return best
}

export function extractLinks(attention: readonly (readonly number[] | null)[], method: Method = ARGMAX): Link[] {
  const out: Link[] = []
  attention.forEach((row, j) => {
    if (!row) return
    if (method.kind === 'argmax') {
      const i = argmax(row)
      if (i >= 0) out.push({ i, j, sure: true })
    } else row.forEach((a, i) => a >= method.value && out.push({ i, j, sure: true }))
  })
  return out
}

/**
 * Links of a model of the reverse direction: its attention is [source words][target words] (it
 * reads our target and writes our source), so each row proposes a target word for a source word.
 */
export function reverseLinks(attention: readonly (readonly number[] | null)[], method: Method = ARGMAX): Link[] {
  return extractLinks(attention, method).map((l) => ({ i: l.j, j: l.i, sure: true }))
}

/** Links in both: the bidirectional intersection (high precision, lower recall). */
export function intersectLinks(a: readonly Link[], b: readonly Link[]): Link[] {
  const inB = new Set(b.map((l) => linkKey(l.i, l.j)))
  return a.filter((l) => inB.has(linkKey(l.i, l.j)))
}
