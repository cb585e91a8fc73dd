import * as ort from 'onnxruntime-node'
import type { LoadedModel } from './model'

/**
 * The encoder and step sessions driven with batches. A batch row is a sentence (greedy, corpus
 * evaluation) or a hypothesis (beam search). Inputs a session does not declare are not fed.
 */
export interface Encoded {
  B: number
  /** Padded source length. */
  S: number
  /** Encoder states per row: S, or 1 for the no-attention model's fixed context. */
  memLen: number
  memory: ort.Tensor
  mask: ort.Tensor
  init: ort.Tensor
  lengths: number[]
}

export async function encode(model: LoadedModel, idLists: number[][]): Promise<Encoded> {
  const B = idLists.length
  const S = Math.max(...idLists.map((l) => l.length))
  const ids = new BigInt64Array(B * S).fill(BigInt(model.spec.special.pad))
  const mask = new Float32Array(B * S)
  idLists.forEach((l, b) => {
    l.forEach((id, s) => {
      ids[b * S + s] = BigInt(id)
      mask[b * S + s] = 1
    })
  })
  const maskT = new ort.Tensor('float32', mask, [B, S])
  const o = await model.encoder.run({ src_ids: new ort.Tensor('int64', ids, [B, S]), src_mask: maskT })
  return { B, S, memLen: o.encoder_out.dims[1], memory: o.encoder_out, mask: maskT, init: o.decoder_init, lengths: idLists.map((l) => l.length) }
}

/** Repeats each row of a [B, ...] float tensor `times` times (beam search tiles one sentence). */
export function tileRows(t: ort.Tensor, times: number): ort.Tensor {
  const src = t.data as Float32Array
  const rowSize = src.length / t.dims[0]
  const out = new Float32Array(src.length * times)
  for (let b = 0; b < t.dims[0]; b++) {
    const row = src.subarray(b * rowSize, (b + 1) * rowSize)
    for (let k = 0; k < times; k++) out.set(row, (b * times + k) * rowSize)
  }
  return new ort.Tensor('float32', out, [t.dims[0] * times, ...t.dims.slice(1)])
}

/** Picks rows of a [B, ...] float tensor, in the given order (beam back-pointers). */
export function gatherRows(t: ort.Tensor, rows: number[]): ort.Tensor {
  const src = t.data as Float32Array
  const rowSize = src.length / t.dims[0]
  const out = new Float32Array(rows.length * rowSize)
  rows.forEach((r, i) => out.set(src.subarray(r * rowSize, (r + 1) * rowSize), i * rowSize))
  return new ort.Tensor('float32', out, [rows.length, ...t.dims.slice(1)])
}

export interface StepInput {
  prev: number[]
  state: ort.Tensor
  memory: ort.Tensor
  mask: ort.Tensor
  t: number
  /** Row-major [B, memLen] weights and a per-row switch, or null for the model's own attention. */
  override?: { weights: Float32Array; on: Float32Array } | null
}

export async function step(model: LoadedModel, x: StepInput): Promise<ort.InferenceSession.ReturnType> {
  const B = x.prev.length
  const memLen = x.memory.dims[1]
  const feeds: Record<string, ort.Tensor> = {}
  const want = model.stepInputs
  if (want.has('prev_token')) feeds.prev_token = new ort.Tensor('int64', BigInt64Array.from(x.prev, BigInt), [B])
  if (want.has('state')) feeds.state = x.state
  if (want.has('encoder_states')) feeds.encoder_states = x.memory
  if (want.has('src_mask')) feeds.src_mask = x.mask
  if (want.has('step')) feeds.step = new ort.Tensor('float32', new Float32Array(B).fill(x.t), [B])
  if (want.has('attn_override')) {
    feeds.attn_override = new ort.Tensor('float32', x.override?.weights ?? new Float32Array(B * memLen), [B, memLen])
  }
  if (want.has('override_on')) feeds.override_on = new ort.Tensor('float32', x.override?.on ?? new Float32Array(B), [B])
  return model.step.run(feeds)
}

/**
 * Row b of a [B, V] logits tensor, without copying, and its log-sum-exp: log P(i) = x[i] − lse.
 * Ranking the raw logits ranks the probabilities, so no normalised copy is ever made.
 */
export interface LogitRow {
  x: Float32Array
  lse: number
}

export function logitRow(logits: ort.Tensor, b: number): LogitRow {
  const V = logits.dims[1]
  const x = (logits.data as Float32Array).subarray(b * V, (b + 1) * V)
  let m = -Infinity
  for (let i = 0; i < V; i++) if (x[i] > m) m = x[i]
  let s = 0
  for (let i = 0; i < V; i++) s += Math.exp(x[i] - m)
  return { x, lse: m + Math.log(s) }
}

/** Indices of the k largest values, largest first. */
export function topK(x: Float32Array, k: number): number[] {
  const best: number[] = []
  for (let i = 0; i < x.length; i++) {
    if (best.length < k || x[i] > x[best[best.length - 1]]) {
      let j = Math.min(best.length, k - 1)
      best[j] = i
      while (j > 0 && x[best[j]] > x[best[j - 1]]) {
        ;[best[j], best[j - 1]] = [best[j - 1], best[j]]
        j--
      }
    }
  }
  return best
}

/** Row b of a [B, N] output, cut to `len` entries, as a plain array. */
export function row(t: ort.Tensor | undefined, b: number, len: number): number[] | null {
  if (!t) return null
  const n = t.dims[t.dims.length - 1]
  return Array.from((t.data as Float32Array).subarray(b * n, b * n + len))
}
