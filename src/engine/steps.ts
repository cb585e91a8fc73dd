import * as ort from './onnxruntime'
import { K_INPUT, TOPK_IDS, TOPK_LOGP } from './graph-surgery'
import { neverGenerated, type DecodingRules, type HeadGrid } from './contract'
import type { LoadedModel } from './model'
import { keepRows } from './state-rows'
import { withTopK } from './ranker'

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
  /** Per-sentence step values computed by the encoder part (src/engine/graph-surgery.ts), by name. */
  keys: Record<string, ort.Tensor>
  lengths: number[]
}

/** Source ids padded into one [B, S] batch, and its mask. */
export function sourceBatch(model: LoadedModel, idLists: number[][]): { ids: ort.Tensor; mask: ort.Tensor; S: number } {
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
  return { ids: new ort.Tensor('int64', ids, [B, S]), mask: new ort.Tensor('float32', mask, [B, S]), S }
}

export async function encode(model: LoadedModel, idLists: number[][]): Promise<Encoded> {
  const { ids, mask, S } = sourceBatch(model, idLists)
  const feeds: Record<string, ort.Tensor> = { src_ids: ids }
  if (model.encoder.inputNames.includes('src_mask')) feeds.src_mask = mask
  const o = await model.encoder.run(feeds)
  const keys = Object.fromEntries(model.keys.map((k) => [k, o[k] as ort.Tensor]))
  return { B: idLists.length, S, memLen: o.encoder_out.dims[1], memory: o.encoder_out, mask, init: o.decoder_init, keys, lengths: idLists.map((l) => l.length) }
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
  return keepRows(t, new ort.Tensor('float32', out, [t.dims[0] * times, ...t.dims.slice(1)]))
}

/**
 * Picks rows of a [B, ...] float tensor, in the given order (beam back-pointers). Rows already in
 * order come back as the same tensor: a transformer's state is a key/value cache of every position
 * so far (thousands of floats per row), not worth copying when no hypothesis moved.
 */
export function gatherRows(t: ort.Tensor, rows: number[]): ort.Tensor {
  if (rows.length === t.dims[0] && rows.every((r, i) => r === i)) return t
  const src = t.data as Float32Array
  const rowSize = src.length / t.dims[0]
  const out = new Float32Array(rows.length * rowSize)
  rows.forEach((r, i) => out.set(src.subarray(r * rowSize, (r + 1) * rowSize), i * rowSize))
  return keepRows(t, new ort.Tensor('float32', out, [rows.length, ...t.dims.slice(1)]))
}

export interface StepInput {
  prev: number[]
  state: ort.Tensor
  memory: ort.Tensor
  mask: ort.Tensor
  keys: Record<string, ort.Tensor>
  t: number
  /** How many of the best tokens to rank per row (top-k in the graph). */
  k: number
  /** Fetch the full [B, V] logits too (forced decoding reads the forced token's). */
  logits?: boolean
  /** Row-major [B, memLen] weights and a per-row switch, or null for the model's own attention. */
  override?: { weights: Float32Array; on: Float32Array } | null
  /**
   * Transformer only: row-major [B, L, H] `head_gate` and `head_override`, or null for the
   * defaults (every gate 1, no head overridden).
   */
  heads?: { gate: Float32Array; override: Float32Array } | null
}

const fetchCache = new WeakMap<LoadedModel, string[]>()
/** Every step output but the logits: a model with top-k in the graph leaves them there. */
function withoutLogits(model: LoadedModel): string[] {
  let f = fetchCache.get(model)
  if (!f) {
    f = model.step.outputNames.filter((n) => n !== 'logits')
    fetchCache.set(model, f)
  }
  return f
}

export async function step(model: LoadedModel, x: StepInput): Promise<ort.InferenceSession.ReturnType> {
  const B = x.prev.length
  const memLen = x.memory.dims[1]
  const feeds: Record<string, ort.Tensor> = { ...x.keys }
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
  const grid = model.spec.heads
  if (grid) {
    const dims = [B, grid.layers, grid.heads]
    const n = B * grid.layers * grid.heads
    if (want.has('head_gate')) feeds.head_gate = new ort.Tensor('float32', x.heads?.gate ?? new Float32Array(n).fill(1), dims)
    if (want.has('head_override')) feeds.head_override = new ort.Tensor('float32', x.heads?.override ?? new Float32Array(n), dims)
  }
  if (!model.topKInGraph) return withTopK(model, await model.step.run(feeds), clampK(model, x.k))
  feeds[K_INPUT] = new ort.Tensor('int64', BigInt64Array.of(BigInt(clampK(model, x.k))), [1])
  return x.logits ? model.step.run(feeds) : model.step.run(feeds, withoutLogits(model))
}

/** k can rank every token that can be generated, no more. */
export function clampK(model: LoadedModel, k: number): number {
  return Math.max(1, Math.min(k, model.spec.tgtVocab.length - neverGenerated(model.spec).length))
}

/** The k best tokens of one row, best first, no special token but `</s>` among them, and their log-probabilities. */
export interface RowTop {
  ids: number[]
  logp: number[]
}

/**
 * Row b's k best tokens: read from the top-k outputs (the step graph's, or onnxruntime's ranking of
 * the logits a step returned: ranker.ts), or (logits of another shape) ranked here over the logits with the tokens never generated (`<unk>`, `<pad>`, `<s>`…, contract.ts
 * `neverGenerated`) set to −∞ first — the same rule (training/README.md, "Decoding rules shared
 * with the app"): log-probabilities are renormalised over the other tokens.
 */
export function rowTop(model: LoadedModel, o: ort.InferenceSession.ReturnType, b: number, k: number): RowTop {
  const ids = o[TOPK_IDS]
  if (ids) {
    const K = ids.dims[1]
    const n = Math.min(k, K)
    const idData = ids.data as BigInt64Array
    const lp = o[TOPK_LOGP].data as Float32Array
    return { ids: Array.from({ length: n }, (_, i) => Number(idData[b * K + i])), logp: Array.from(lp.subarray(b * K, b * K + n)) }
  }
  const r = logitRow(o.logits, b, neverGenerated(model.spec))
  const best = topK(r.x, clampK(model, k))
  return { ids: best, logp: best.map((i) => r.x[i] - r.lse) }
}

/** Where a free step stands, for a format's own decoding rules (DecodingRules). */
export interface RuleStep {
  /** The tokens generated so far in this row (the decoder start not among them). */
  history: readonly number[]
  /** The step, from 0. */
  t: number
  /** The last step the length limit allows. */
  last: boolean
  /**
   * Which scores transformers' logits processors see: the raw logits (greedy: argmax of the
   * processed logits) or the log-probabilities (beam search, whose scores are not renormalised after).
   */
  scores: 'logits' | 'logp'
}

/**
 * Row b's k best tokens under a format's own rules (a Hugging Face folder's generation_config.json),
 * as transformers' logits processors apply them: repetition_penalty over the sequence so far (the
 * decoder start included), min_length (no `</s>` before it), forced_eos_token_id at the last step.
 * The step's forced first token is the step part's own (parts.ts). Without a rule in force it is rowTop.
 */
export function ruledTop(model: LoadedModel, o: ort.InferenceSession.ReturnType, b: number, k: number, r: DecodingRules, at: RuleStep): RowTop {
  const { eos, bos } = model.spec.special
  const penalty = r.repetitionPenalty !== 1
  const short = at.t < r.minLength - 1
  const forceEos = at.last && r.forcedEos !== null
  if (!o.logits || (!penalty && !short && !forceEos)) return rowTop(model, o, b, k)
  const V = o.logits.dims[1]
  const x = (o.logits.data as Float32Array).slice(b * V, (b + 1) * V)
  for (const id of neverGenerated(model.spec)) if (id >= 0 && id < V) x[id] = -Infinity
  if (at.scores === 'logp') {
    const lse = logSumExp(x, [])
    for (let i = 0; i < V; i++) x[i] -= lse
  }
  if (penalty) {
    for (const id of new Set([bos, ...at.history])) {
      if (id < 0 || id >= V) continue
      const v = x[id]
      x[id] = v < 0 ? v * r.repetitionPenalty : v / r.repetitionPenalty
    }
  }
  if (short && eos < V) x[eos] = -Infinity
  if (forceEos) {
    x.fill(-Infinity)
    x[r.forcedEos!] = 0
  }
  const lse = at.scores === 'logits' ? logSumExp(x, []) : 0
  const best = topK(x, clampK(model, k))
  return { ids: best, logp: best.map((i) => x[i] - lse) }
}

/**
 * The log-probability of a given token in row b (forced decoding; the step ran with `logits`):
 * renormalised over the tokens the decoders can pick, as they rank them; a token they never pick
 * (a forced `<unk>`) gets its probability under the model's full distribution.
 */
export function tokenLogProb(model: LoadedModel, o: ort.InferenceSession.ReturnType, b: number, token: number): number {
  const masked = neverGenerated(model.spec)
  const V = o.logits.dims[1]
  const x = (o.logits.data as Float32Array).subarray(b * V, (b + 1) * V)
  return x[token] - logSumExp(x, masked.includes(token) ? [] : masked)
}

/**
 * log Σ exp(x[i]) over the tokens not in `skip`. Called once a step over the whole vocabulary
 * (58k for opus-mt), so the loops stay plain: the skipped tokens are set to −∞ in a copy rather
 * than looked up per token.
 */
function logSumExp(x: Float32Array, skip: readonly number[]): number {
  let v = x
  if (skip.some((i) => i >= 0 && i < x.length && x[i] !== -Infinity)) {
    v = x.slice()
    for (const i of skip) if (i >= 0 && i < v.length) v[i] = -Infinity
  }
  let m = -Infinity
  for (let i = 0; i < v.length; i++) if (v[i] > m) m = v[i]
  if (m === -Infinity) return -Infinity
  let s = 0
  for (let i = 0; i < v.length; i++) s += Math.exp(v[i] - m)
  return m + Math.log(s)
}

/**
 * Row b of a [B, V] logits tensor with the `masked` tokens set to −∞ (in place: the tensor is this
 * step's own output), and its log-sum-exp: log P(i) = x[i] − lse.
 */
export interface LogitRow {
  x: Float32Array
  lse: number
}

export function logitRow(logits: ort.Tensor, b: number, masked: readonly number[]): LogitRow {
  const V = logits.dims[1]
  const x = (logits.data as Float32Array).subarray(b * V, (b + 1) * V)
  for (const id of masked) if (id >= 0 && id < V) x[id] = -Infinity
  return { x, lse: logSumExp(x, []) }
}

/** Indices of the k largest values, largest first (the lower index first on ties). */
export function topK(x: Float32Array, k: number): number[] {
  const best: number[] = []
  // The k-th best so far: most of a 58k vocabulary is below it, so one comparison each.
  let floor = -Infinity
  for (let i = 0; i < x.length; i++) {
    const v = x[i]
    if (best.length < k || v > floor) {
      let j = Math.min(best.length, k - 1)
      best[j] = i
      while (j > 0 && v > x[best[j - 1]]) {
        ;[best[j], best[j - 1]] = [best[j - 1], best[j]]
        j--
      }
      if (best.length === k) floor = x[best[k - 1]]
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

/**
 * Row b of a [B, L, H, S] `cross_attention` output as [L][H][len] (each head cut to the row's real
 * source positions). The layers and heads must be those the model declares: otherwise each head
 * would be read from another's place, so a mismatch is an error, not a guess.
 */
export function headRows(t: ort.Tensor | undefined, b: number, len: number, grid: HeadGrid | null): number[][][] | null {
  if (!t || !grid) return null
  const d = t.dims
  // The greedy loop's scan output is [T·B, L, H, S] once flattened: b indexes it the same way.
  if (d.length < 4 || d[d.length - 3] !== grid.layers || d[d.length - 2] !== grid.heads) {
    throw new Error(
      `The model's cross_attention is [B, ${d.slice(-3).join(', ')}], but its al.layers and al.heads say [B, ${grid.layers}, ${grid.heads}, S]: declare the layers and heads the graph has.`,
    )
  }
  const S = d[d.length - 1]
  const data = t.data as Float32Array
  const base = b * grid.layers * grid.heads * S
  return Array.from({ length: grid.layers }, (_, l) =>
    Array.from({ length: grid.heads }, (_, h) => {
      const at = base + (l * grid.heads + h) * S
      return Array.from(data.subarray(at, at + len))
    }),
  )
}
