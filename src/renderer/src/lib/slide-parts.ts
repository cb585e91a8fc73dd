/**
 * A slide too long for the window at its text floor is shown in parts: consecutive output steps,
 * as few parts as fit at the floor, with ← → between them (the exporter splits a figure into slides
 * the same way: evenParts, MOST_PARTS). One search for every slide that has rows (the heatmap, the
 * lines, side by side, the heads, contributions…), so each shows its parts alike.
 */
import { evenParts, MOST_PARTS } from '../../../shared/charts/fit'

/** Output steps [first, end), counted from 0. */
export type Rows = [number, number]

export interface Split {
  parts: Rows[]
  /** False when even the most parts do not all fit: they are drawn anyway, at the floor. */
  fits: boolean
}

/**
 * The most parts a slide is cut into: the exporter's MOST_PARTS, or more where that leaves parts of
 * more than three rows (a small window at the floor: a projector has no smaller text to fall back on).
 */
export const mostParts = (steps: number): number => Math.max(MOST_PARTS, Math.ceil(steps / 3))

/**
 * Steps [0, steps) in as few consecutive, even parts as all fit (`fits` says whether rows fit at the
 * floor), the whole as one part where it fits; up to `most` parts. The parts of each candidate are
 * tried in turn and the first that does not fit ends the candidate, so a sentence that fits whole
 * costs one try.
 */
export function splitToFit(steps: number, fits: (rows: Rows) => boolean, most = mostParts(steps)): Split {
  if (steps <= 0) return { parts: [[0, 0]], fits: true }
  const limit = Math.max(1, Math.min(most, steps))
  for (let k = 1; k <= limit; k++) {
    const parts = evenParts(steps, k)
    if (parts.every(fits)) return { parts, fits: true }
  }
  return { parts: evenParts(steps, limit), fits: false }
}

/**
 * Steps [0, steps) cut from the start, each part as long as still fits (`fits`), for figures whose
 * rows differ so much that even parts waste them: local attention's p_t plot, whose part holds the
 * source positions its steps look at, a few where p_t keeps near the diagonal and many where it
 * jumps. The whole first, at one try; a step that does not fit alone is a part of its own (`fits`
 * false). The tries are about the steps plus the parts.
 */
export function splitGreedy(steps: number, fits: (rows: Rows) => boolean): Split {
  if (steps <= 0) return { parts: [[0, 0]], fits: true }
  if (fits([0, steps])) return { parts: [[0, steps]], fits: true }
  const parts: Rows[] = []
  let all = true
  for (let a = 0; a < steps;) {
    let b = a + 1
    if (!fits([a, b])) all = false
    else while (b < steps && fits([a, b + 1])) b++
    parts.push([a, b])
    a = b
  }
  return { parts, fits: all }
}

/** The part that holds step `s` (0-based), or -1. */
export const partOf = (parts: readonly Rows[], s: number): number => parts.findIndex(([a, b]) => s >= a && s < b)
