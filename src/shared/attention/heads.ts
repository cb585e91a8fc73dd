/**
 * Multi-head cross-attention (a Transformer's) as numbers: which heads a model has, one head's
 * [t][s] matrix, the heads' average, and how spread out and how diagonal a head is and how well it
 * agrees with a reference alignment. Plain maths for the engine, the CLI, the app and the charts
 * (src/shared/charts/heads.ts draws them).
 *
 * The numbers (also in the README):
 * - entropy: the entropy of a step's weights in bits, −Σ_s p_s log2 p_s, averaged over the steps;
 * - diagonality: the share of a step's weight on the source positions within ±1 of the
 *   proportional diagonal d_t = t·(S−1)/(T−1) (first output step on the first source token, last
 *   on the last), averaged over the steps: 1 for a head that reads along the diagonal, about 3/S
 *   for one that reads everywhere evenly;
 * - agreement with a reference alignment (another model's attention for the same source and
 *   output): Σ_s min(p_s, q_s) of the two rows, each scaled to sum to 1, averaged over the steps,
 *   which is 1 − the total variation distance of the two distributions: 1 when a head weighs the
 *   source exactly as the reference does, 0 when they never read the same token.
 */
import { diagonality } from './diagonal'
import { pieceToWord, wordAttention, wordLabels, wordSpans, type Span } from './words'

/** One cross-attention head: its layer and its index in the layer, both from 0. */
export interface HeadRef {
  layer: number
  head: number
}

/** Whether `h` names a head of a model with `shape.layers` layers of `shape.heads` heads (0-based whole numbers). */
export function isHeadOf(h: HeadRef, shape: { layers: number; heads: number }): boolean {
  const within = (i: number, n: number) => Number.isInteger(i) && i >= 0 && i < n
  return within(h.layer, shape.layers) && within(h.head, shape.heads)
}

export interface HeadStats extends HeadRef {
  /** Mean over steps of the row entropy, in bits. */
  entropy: number
  /** Mean over steps of the weight within ±1 of the proportional diagonal. */
  diagonality: number
  /** Mean over steps of Σ_s min(head, reference), rows scaled to sum to 1; null without a reference. */
  agreement: number | null
}

/** Layers and heads per layer of crossAttention[t][layer][head][s] (0 × 0 when there is none). */
export function headShape(cross: number[][][][] | null | undefined): { layers: number; heads: number } {
  const first = cross?.[0]
  return { layers: first?.length ?? 0, heads: first?.[0]?.length ?? 0 }
}

/** One head's weights as a [t][s] matrix. */
export function headMatrix(cross: number[][][][], r: HeadRef): number[][] {
  return cross.map((step) => step[r.layer]?.[r.head] ?? [])
}

/** The mean of every head's weights, [t][s]: what the default heatmap of a Transformer shows. */
export function averageHeads(cross: number[][][][]): number[][] {
  return cross.map((step) => {
    const rows = step.flat()
    const S = rows.reduce((n, r) => Math.max(n, r.length), 0)
    const out = new Array<number>(S).fill(0)
    for (const r of rows) for (let s = 0; s < S; s++) out[s] += r[s] ?? 0
    return out.map((x) => x / Math.max(1, rows.length))
  })
}

const rowSum = (row: number[]) => row.reduce((a, b) => a + (b > 0 ? b : 0), 0)

/** The entropy of one row of weights in bits, the row scaled to sum to 1 (0 for an empty row). */
export function rowEntropy(row: number[]): number {
  const z = rowSum(row)
  if (!(z > 0)) return 0
  let h = 0
  for (const w of row) {
    const p = w / z
    if (p > 0) h -= p * Math.log2(p)
  }
  return h
}

/** Mean over the steps of the row entropy, in bits. */
export function meanEntropy(m: number[][]): number {
  return m.length ? m.reduce((a, r) => a + rowEntropy(r), 0) / m.length : 0
}

/** Diagonality (defined once, in ./diagonal). */
export { diagonality }

/**
 * How well two alignments of the same sentence agree: per step, Σ_s min(p_s, q_s) of the two rows
 * scaled to sum to 1 (1 − their total variation distance), averaged over the steps both have. A
 * row of zeros agrees with nothing.
 */
export function agreement(a: number[][], b: number[][]): number {
  const T = Math.min(a.length, b.length)
  if (!T) return 0
  let total = 0
  for (let t = 0; t < T; t++) {
    const za = rowSum(a[t])
    const zb = rowSum(b[t])
    if (!(za > 0 && zb > 0)) continue
    const S = Math.max(a[t].length, b[t].length)
    let shared = 0
    for (let s = 0; s < S; s++) shared += Math.min(Math.max(0, a[t][s] ?? 0) / za, Math.max(0, b[t][s] ?? 0) / zb)
    total += shared
  }
  return total / T
}

/** For each token, the index of the word it is a piece of (words as `wordSpans` finds them, the figures' rule). */
export function wordOfToken(tokens: string[]): number[] {
  return pieceToWord(wordSpans(tokens))
}

/** The words the tokens spell: each word's pieces joined, their markers (@@, ▁, ##) dropped. */
export function wordsOf(tokens: string[]): string[] {
  return wordLabels(tokens)
}

/**
 * An alignment between tokens as one between words, to compare two models that split words into
 * different pieces: the figures' word rule (words.ts: a source word gets the weight of all its
 * pieces, an output word's row is the mean of its pieces' rows), so every row still sums to what
 * it did. Output words past the rows given (a shorter matrix) are left out, not left as zeros; a
 * word cut by the end of the matrix is the mean of the rows it has.
 */
export function toWordAlignment(m: number[][], tgtTokens: string[], srcTokens: string[]): number[][] {
  const rows = Math.min(m.length, tgtTokens.length)
  const tgt = wordSpans(tgtTokens)
    .filter(([a]) => a < rows)
    .map(([a, b]): Span => [a, Math.min(b, rows - 1)])
  return wordAttention(m, wordSpans(srcTokens), tgt)
}

/** A reference alignment: [t][s] over the same tokens as the heads, or (`words`) over their words. */
export interface ReferenceInput {
  name: string
  attention: number[][]
  words?: boolean
}

/** One head's numbers from its weights `m` [t][s]; agreement when a reference [t][s] is given, `m` first put in the reference's terms by `project` (tokens to words). */
export function statsOf(head: HeadRef, m: number[][], reference?: number[][] | null, project: (m: number[][]) => number[][] = (m) => m): HeadStats {
  return { ...head, entropy: meanEntropy(m), diagonality: diagonality(m), agreement: reference ? agreement(project(m), reference) : null }
}

/** Every head's numbers (statsOf), layer by layer, head by head. */
export function headStats(cross: number[][][][], reference?: number[][] | null, project: (m: number[][]) => number[][] = (m) => m): HeadStats[] {
  const { layers, heads } = headShape(cross)
  const out: HeadStats[] = []
  for (let layer = 0; layer < layers; layer++)
    for (let head = 0; head < heads; head++) out.push(statsOf({ layer, head }, headMatrix(cross, { layer, head }), reference, project))
  return out
}

/** The heads from the one that agrees best with the reference alignment to the one that agrees least (ties: the lower layer, then head, first). */
export function rankHeads(cross: number[][][][], reference: number[][], project?: (m: number[][]) => number[][]): HeadStats[] {
  return headStats(cross, reference, project).sort((x, y) => y.agreement! - x.agreement! || x.layer - y.layer || x.head - y.head)
}

/** How a head's [t][s] weights are put in a reference's terms: as they are, or between words. */
export function projection(ref: ReferenceInput | null | undefined, tgtTokens: string[], srcTokens: string[]): (m: number[][]) => number[][] {
  return ref?.words ? (m) => toWordAlignment(m, tgtTokens, srcTokens) : (m) => m
}
