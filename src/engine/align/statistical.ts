import type { WordPair } from './gold'
import { trainIbm1, type Ibm1Options } from './ibm1'
import { normalizeWord } from './corpus'
import type { Link } from './pharaoh'
import { growDiagFinalAnd } from './symmetrize'

export interface StatisticalProgress {
  direction: 'forward' | 'backward'
  iteration: number
  iterations: number
}

export interface StatisticalOptions extends Omit<Ibm1Options, 'onIteration'> {
  onProgress?: (p: StatisticalProgress) => void
}

export interface StatisticalResult {
  /** Per pair to align: grow-diag-final-and of the two directions. */
  links: Link[][]
  forward: Link[][]
  backward: Link[][]
}

class Vocabulary {
  private readonly ids = new Map<string, number>()
  id(w: string): number {
    let i = this.ids.get(w)
    if (i === undefined) {
      i = this.ids.size + 1 // 0 is NULL
      this.ids.set(w, i)
    }
    return i
  }
}

/**
 * The statistical aligner: fast_align's model (ibm1.ts) trained on the training corpus plus the
 * pairs to align (the usual practice: the pairs' own co-occurrences count too), once per direction,
 * the two Viterbi alignments of the pairs to align symmetrised by grow-diag-final-and.
 */
export async function alignStatistically(pairs: readonly WordPair[], training: readonly WordPair[], opts: StatisticalOptions = {}): Promise<StatisticalResult> {
  const sv = new Vocabulary()
  const tv = new Vocabulary()
  const all = [...pairs.map((p) => ({ src: p.src.map(normalizeWord), tgt: p.tgt.map(normalizeWord) })), ...training]
  const src = all.map((p) => Int32Array.from(p.src, (w) => sv.id(w)))
  const tgt = all.map((p) => Int32Array.from(p.tgt, (w) => tv.id(w)))
  const n = pairs.length
  const ibm = (direction: StatisticalProgress['direction']): Ibm1Options => ({
    ...opts,
    onIteration: (iteration, iterations) => opts.onProgress?.({ direction, iteration, iterations }),
  })
  // Forward: each target word picks a source word; backward: each source word picks a target word.
  const fwdModel = await trainIbm1(src, tgt, ibm('forward'))
  const fwd = fwdModel.viterbi().slice(0, n)
  const bwdModel = await trainIbm1(tgt, src, ibm('backward'))
  const bwd = bwdModel.viterbi().slice(0, n)
  const forward = fwd.map((a) => a.flatMap((i, j) => (i >= 0 ? [{ i, j, sure: true }] : [])))
  const backward = bwd.map((a) => a.flatMap((j, i) => (j >= 0 ? [{ i, j, sure: true }] : [])))
  const links = pairs.map((p, k) => growDiagFinalAnd(forward[k], backward[k], p.src.length, p.tgt.length))
  return { links, forward, backward }
}
