import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { modelFile } from '../shared/model-id'
import { join } from 'node:path'
import type { BucketScore, EvalProgress, EvalResult } from '../shared/api'
import { CancelledError } from '../shared/errors'
import { guardOn } from '../shared/repeat-guard'
import type { GuardOptions } from '../shared/api'
import { nearDiagonalShare } from '../shared/attention/diagonal'
import { corpusBleu } from './bleu'
import { checkedGuard, greedyBatch } from './decode'
import type { LoadedModel } from './model'
import { tokenize } from './tokenizer'

/** Source-length buckets (in source tokens), as in the model cards. */
export const BUCKETS: [number, number][] = [
  [1, 10],
  [11, 15],
  [16, 20],
  [21, 25],
  [26, Infinity],
]
export const bucketName = ([lo, hi]: [number, number]) => (hi === Infinity ? `${lo}+` : `${lo}-${hi}`)

export interface EvalOptions {
  batchSize?: number
  onProgress?: (p: EvalProgress) => void
  signal?: AbortSignal
  /** Folder for cached results, keyed by the model file's hash and the test set. */
  cacheDir?: string
  /**
   * Awaited before each batch with the batch size: the engine holds batch work here while
   * interactive calls run, and answers how many sentences the next batch may hold (fewer while
   * someone is typing, so a keystroke never waits behind a batch of 32).
   */
  turn?: (batch: number) => Promise<number>
  /** The repeat guard of the greedy decodes (settings not given: the model's defaults, decode.ts defaultGuard); raw for `eval --raw`. */
  guard?: GuardOptions
}

export async function fileHash(path: string): Promise<string> {
  const file = modelFile(path)
  if (!(await stat(file)).isDirectory()) {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('hex')
  }
  // A model folder (src/engine/formats/hf): its files' names, sizes and times, and the language
  // pair the id names; hashing a few hundred MB of weights before every evaluation would cost seconds.
  const h = createHash('sha256').update(path)
  const entries = (await readdir(file, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())
  for (const e of entries.map((e) => join(e.parentPath, e.name)).sort()) {
    const s = await stat(e)
    h.update(`${e.slice(file.length)}\0${s.size}\0${s.mtimeMs}\n`)
  }
  return h.digest('hex')
}

export function byLength(model: LoadedModel, srcs: string[], hyps: string[], refs: string[]): BucketScore[] {
  const out: BucketScore[] = []
  for (const b of BUCKETS) {
    const idx = srcs.map((s, i) => [tokenize(s, model.spec.srcTokenizer).length, i] as const).filter(([n]) => n >= b[0] && n <= b[1])
    if (idx.length === 0) continue
    const score = corpusBleu(
      idx.map(([, i]) => hyps[i]),
      [idx.map(([, i]) => refs[i])],
      { lowercase: true },
    ).score
    out.push({ bucket: bucketName(b), sentences: idx.length, bleu: round(score) })
  }
  return out
}

const round = (x: number) => Math.round(x * 100) / 100

/**
 * How spread out and how diagonal attention is over a corpus: the mean entropy of a row (bits),
 * and the diagonality (src/shared/attention/diagonal.ts: the share of a row's weight within ±1 of
 * the proportional diagonal), both averaged over every row of every sentence.
 */
export class AttentionStats {
  private rows = 0
  private entropySum = 0
  private nearDiagonal = 0

  add(attention: number[][]): void {
    const T = attention.length
    for (let t = 0; t < T; t++) {
      const row = attention[t]
      const S = row.length
      let h = 0
      for (let s = 0; s < S; s++) {
        const a = row[s]
        if (a > 0) h -= a * Math.log2(a)
      }
      this.entropySum += h
      this.nearDiagonal += nearDiagonalShare(row, t, T)
      this.rows++
    }
  }

  entropy(): number | null {
    return this.rows ? round(this.entropySum / this.rows) : null
  }

  diagonality(): number | null {
    return this.rows ? Math.round((this.nearDiagonal / this.rows) * 1000) / 1000 : null
  }
}

/** Translates a test set in length-sorted batches and scores it. */
export async function evaluateCorpus(model: LoadedModel, srcs: string[], refs: string[], opts: EvalOptions = {}): Promise<EvalResult> {
  if (srcs.length !== refs.length) {
    throw new Error(`The source has ${srcs.length} lines but the reference has ${refs.length}.`)
  }
  const guard = checkedGuard(opts.guard ?? {}, model)
  const raw = !!opts.guard?.raw
  // The raw decodes keep the key they had before the guard existed (a folder's own rules off: another key).
  const guarded = (guardOn(guard) ? `\0guard-${guard.noRepeatNgram}-${guard.maxRepeat}` : '') + (raw && model.spec.generation ? '\0raw' : '')
  const key = createHash('sha256')
    .update(await fileHash(model.path))
    .update('\0' + srcs.join('\n') + '\0' + refs.join('\n') + '\0greedy-v4' + guarded)
    .digest('hex')
  const cacheFile = opts.cacheDir ? join(opts.cacheDir, `${key}.json`) : null
  if (cacheFile) {
    const hit = await readFile(cacheFile, 'utf8').then(
      (t) => JSON.parse(t) as EvalResult,
      () => null,
    )
    if (hit) return { ...hit, cached: true }
  }
  const started = performance.now()
  const batch = Math.max(1, opts.batchSize ?? 32)
  const order = srcs.map((_, i) => i).sort((a, b) => srcs[a].length - srcs[b].length)
  const hyps = new Array<string>(srcs.length)
  const stats = new AttentionStats()
  for (let i = 0; i < order.length;) {
    const size = Math.max(1, Math.min(batch, (await opts.turn?.(batch)) ?? batch))
    if (opts.signal?.aborted) throw new CancelledError('The evaluation was cancelled.')
    const idx = order.slice(i, i + size)
    const out = await greedyBatch(
      model,
      idx.map((j) => srcs[j]),
      // BLEU and the attention statistics read the head average only.
      { topK: 1, encoderStates: false, crossAttention: false, signal: opts.signal, guard, raw },
    )
    idx.forEach((j, k) => (hyps[j] = out[k].text))
    for (const t of out) stats.add(t.attention)
    i += idx.length
    opts.onProgress?.({ done: i, total: order.length })
  }
  const seconds = (performance.now() - started) / 1000
  const result: EvalResult = {
    model: model.spec.name,
    fileName: model.path.split(/[\\/]/).pop() ?? '',
    sentences: srcs.length,
    bleu: round(corpusBleu(hyps, [refs], { lowercase: true }).score),
    bleuCased: round(corpusBleu(hyps, [refs]).score),
    byLength: byLength(model, srcs, hyps, refs),
    seconds: round(seconds),
    sentencesPerSecond: round(srcs.length / seconds),
    attentionEntropy: stats.entropy(),
    diagonality: stats.diagonality(),
    cached: false,
    hypotheses: hyps,
  }
  if (cacheFile) {
    await mkdir(opts.cacheDir!, { recursive: true })
    const tmp = `${cacheFile}.${process.pid}.tmp`
    await writeFile(tmp, JSON.stringify(result))
    await rename(tmp, cacheFile)
  }
  return result
}
