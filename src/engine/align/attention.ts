import { KINDS } from '../../shared/attention-kinds'
import { wordAttention, type Span } from '../../shared/attention/words'
import { CancelledError } from '../../shared/errors'
import { decodeSteps, encodePieces, maxTargetLength, targetIds } from '../decode'
import type { LoadedModel } from '../model'
import type { WordPair } from './gold'
import { wordPieces } from './pieces'

/**
 * A model's attention over a gold pair's own words: the gold target forced through the model (the
 * reference mode's forced decoding, batched), each gold word tokenized on its own (pieces.ts).
 */
export interface PairAttention {
  srcSpans: Span[]
  tgtSpans: Span[]
  /** Per forced step (target pieces, then `</s>`): the model's attention over the source pieces and `</s>`. */
  rows: number[][]
  /** Transformer: per forced step, [layer][head][source piece]; else null. */
  cross: number[][][][] | null
}

/** Which attention to read: the model's own (a Transformer's all-heads average), a layer's average, or one head. */
export type Reading = { kind: 'average' } | { kind: 'layer'; layer: number } | { kind: 'head'; layer: number; head: number }

export interface ReadOptions {
  reading?: Reading
  /**
   * Read each target word at the step that *reads* it (its pieces fed as the previous token)
   * rather than the step that predicts it: for a Transformer often the better aligner.
   */
  shifted?: boolean
}

export interface ForceOptions {
  batchSize?: number
  signal?: AbortSignal
  onProgress?: (done: number, total: number) => void
}

/** Forces every pair's target through the model, in length-sorted batches. */
export async function pairAttentions(model: LoadedModel, pairs: readonly WordPair[], opts: ForceOptions = {}): Promise<PairAttention[]> {
  const { spec } = model
  if (!KINDS[spec.attention].attends) throw new Error(`${spec.name} has no attention to align with.`)
  const unkSrc = spec.srcVocab[spec.special.unk]
  const unkTgt = spec.tgtVocab[spec.special.unk]
  const prepared = pairs.map((p) => {
    const src = wordPieces(p.src, spec.srcTokenizer, unkSrc)
    const tgt = wordPieces(p.tgt, spec.tgtTokenizer, unkTgt)
    const encoded = encodePieces(model, src.pieces, p.src.join(' '))
    // As forcedDecode: at most the steps the model allows, the last of them `</s>`; decodeSteps
    // feeds a forced first token (a target language) before them and leaves its step out.
    const room = maxTargetLength(encoded.ids.length, spec.maxTarget) - 1
    const forced = [...targetIds(model, tgt.pieces.slice(0, room)), spec.special.eos]
    return { src, tgt, encoded, forced }
  })
  const order = prepared.map((_, n) => n).sort((a, b) => prepared[a].forced.length - prepared[b].forced.length)
  const batch = Math.max(1, opts.batchSize ?? 32)
  const out = new Array<PairAttention>(pairs.length)
  for (let k = 0; k < order.length; k += batch) {
    if (opts.signal?.aborted) throw new CancelledError('The alignment was cancelled.')
    const idx = order.slice(k, k + batch)
    const { steps } = await decodeSteps(
      model,
      idx.map((n) => prepared[n].encoded),
      { topK: 1, forced: idx.map((n) => prepared[n].forced), signal: opts.signal, crossAttention: !!spec.heads },
      false,
    )
    idx.forEach((n, b) => {
      const s = steps[b]
      // A format's own tokens before the source's (a language tag, BART's <s>) are not words: their
      // columns are left out, so the spans index the pieces as they do the gold's words.
      const head = prepared[n].encoded.head
      const cut = <T>(r: T[]) => (head ? r.slice(head) : r)
      out[n] = {
        srcSpans: prepared[n].src.spans,
        tgtSpans: prepared[n].tgt.spans,
        rows: s.map((r) => cut(r.capture.attention ?? [])),
        cross: spec.heads ? s.map((r) => r.capture.cross!.map((l) => l.map(cut))) : null,
      }
    })
    opts.onProgress?.(Math.min(k + batch, order.length), order.length)
  }
  return out
}

/** One step's weights under a reading. */
function stepRow(p: PairAttention, t: number, reading: Reading): number[] {
  if (reading.kind === 'average' || !p.cross) return p.rows[t]
  const layers = p.cross[t]
  if (reading.kind === 'head') return layers[reading.layer][reading.head]
  const heads = layers[reading.layer]
  return heads[0].map((_, s) => heads.reduce((a, h) => a + h[s], 0) / heads.length)
}

/**
 * [target words][source words]: source pieces summed and target pieces averaged
 * (src/shared/attention/words.ts, the figures' word-mode rule), the `</s>` column left out and
 * each row renormalised over the words, so it is again a distribution. A target word whose steps
 * the decoder did not reach (a target cut at the model's length limit) has a null row.
 */
export function wordMatrix(p: PairAttention, opts: ReadOptions = {}): (number[] | null)[] {
  const reading = opts.reading ?? { kind: 'average' }
  const shift = opts.shifted ? 1 : 0
  const steps = p.rows.length
  const pieceRows: number[][] = []
  const lastPiece = p.tgtSpans.length ? p.tgtSpans[p.tgtSpans.length - 1][1] : -1
  for (let t = 0; t <= lastPiece && t + shift < steps; t++) pieceRows.push(stepRow(p, t + shift, reading))
  const reached = p.tgtSpans.filter(([, b]) => b < pieceRows.length).length
  const words = wordAttention(pieceRows, p.srcSpans, p.tgtSpans.slice(0, reached))
  return p.tgtSpans.map((_, j) => {
    if (j >= reached) return null
    const row = words[j]
    const sum = row.reduce((a, b) => a + b, 0)
    return sum > 0 ? row.map((x) => x / sum) : row.map(() => 1 / row.length)
  })
}

/** Every reading of a model: its own attention, and for a Transformer each layer's average and each head. */
export function readingsOf(heads: { layers: number; heads: number } | null): Reading[] {
  const out: Reading[] = [{ kind: 'average' }]
  if (!heads) return out
  for (let l = 0; l < heads.layers; l++) out.push({ kind: 'layer', layer: l })
  for (let l = 0; l < heads.layers; l++) for (let h = 0; h < heads.heads; h++) out.push({ kind: 'head', layer: l, head: h })
  return out
}

/** "average", "layer 2", "head 2:3" (counted from 1, as the app and --head name them). */
export function readingName(r: Reading): string {
  if (r.kind === 'average') return 'average'
  if (r.kind === 'layer') return `layer ${r.layer + 1}`
  return `head ${r.layer + 1}:${r.head + 1}`
}
