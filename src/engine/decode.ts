import type { Alternative, DecodeOptions, Translation, WhatIfRequest, WhatIfResult } from '../shared/api'
import { CancelledError } from '../shared/errors'
import type { LoadedModel } from './model'
import { encode, gatherRows, logitRow, row, step, tileRows, topK, type LogitRow } from './steps'
import { detokenize, tokenize } from './tokenizer'

/** Longest source the engine decodes; longer input is cut and the result says so. */
export const MAX_SOURCE_TOKENS = 200
export const MAX_BEAM = 16
const DEFAULT_TOP_K = 5

export function maxTargetLength(srcLen: number): number {
  return 2 * srcLen + 10
}

export interface EncodedSource {
  text: string
  tokens: string[]
  ids: number[]
  unknown: boolean[]
  truncated: boolean
}

const indexCache = new WeakMap<string[], Map<string, number>>()
function vocabIndex(vocab: string[]): Map<string, number> {
  let m = indexCache.get(vocab)
  if (!m) {
    m = new Map(vocab.map((w, i) => [w, i]))
    indexCache.set(vocab, m)
  }
  return m
}

/** Text to ids with `</s>` appended, cut to MAX_SOURCE_TOKENS. */
export function encodeSource(model: LoadedModel, text: string): EncodedSource {
  const { srcTokenizer, srcVocab, special } = model.spec
  let tokens = tokenize(text, srcTokenizer)
  const truncated = tokens.length > MAX_SOURCE_TOKENS
  if (truncated) tokens = tokens.slice(0, MAX_SOURCE_TOKENS)
  const index = vocabIndex(srcVocab)
  const ids = tokens.map((t) => index.get(t) ?? special.unk)
  return {
    text,
    tokens: [...tokens, srcVocab[special.eos]],
    ids: [...ids, special.eos],
    unknown: [...ids.map((id) => id === special.unk), false],
    truncated,
  }
}

/** What one output step recorded for one hypothesis. */
interface StepRecord {
  token: number
  logProb: number
  alternatives: Alternative[]
  attention: number[] | null
  scores: number[] | null
  position: number | null
  window: [number, number] | null
  gaussian: number[] | null
  align: number[] | null
}

/** The k most probable tokens of a logit row, most probable first. */
function alternativesOf(model: LoadedModel, r: LogitRow, k: number): Alternative[] {
  return topK(r.x, k).map((i) => ({ token: model.spec.tgtVocab[i] ?? '<unk>', p: Math.exp(r.x[i] - r.lse) }))
}

function record(o: Awaited<ReturnType<typeof step>>, b: number, S: number, r: LogitRow, token: number, alternatives: Alternative[]): StepRecord {
  const w = row(o.window, b, 2)
  return {
    token,
    logProb: r.x[token] - r.lse,
    alternatives,
    attention: row(o.attention, b, S),
    scores: row(o.scores, b, S),
    position: o.position ? (o.position.data as Float32Array)[b] : null,
    window: w ? [w[0], w[1]] : null,
    gaussian: row(o.gaussian, b, S),
    align: row(o.align, b, S),
  }
}

function toTranslation(
  model: LoadedModel,
  src: EncodedSource,
  steps: StepRecord[],
  extra: Pick<Translation, 'mode' | 'beam'> & Partial<Translation>,
  started: number,
): Translation {
  const { spec } = model
  const local = spec.attention.startsWith('local')
  const tokens = steps.map((s) => spec.tgtVocab[s.token] ?? '<unk>')
  const words = steps.filter((s) => s.token !== spec.special.eos).map((s) => spec.tgtVocab[s.token] ?? '<unk>')
  return {
    modelId: '',
    source: src.text,
    srcTokens: src.tokens,
    srcUnknown: src.unknown,
    tgtTokens: tokens,
    text: detokenize(words, spec.tgtTokenizer),
    attention: steps.flatMap((s) => (s.attention ? [s.attention] : [])),
    scores: steps.flatMap((s) => (s.scores ? [s.scores] : [])),
    positions: local ? steps.map((s) => s.position ?? 0) : null,
    windows: local ? steps.map((s) => s.window ?? [0, 0]) : null,
    gaussian: local ? steps.map((s) => s.gaussian ?? []) : null,
    align: local ? steps.map((s) => s.align ?? []) : null,
    encoderStates: [],
    tokenLogProbs: steps.map((s) => s.logProb),
    alternatives: steps.map((s) => s.alternatives),
    tgtUnknown: null,
    logProb: steps.reduce((a, s) => a + s.logProb, 0),
    truncated: src.truncated,
    decodeMs: performance.now() - started,
    provider: model.provider,
    ...extra,
  }
}


function checkCancel(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CancelledError('The translation was cancelled.')
}

interface LoopOptions {
  signal?: AbortSignal
  topK: number
  /** Per row: the target ids to force (ending with </s>). */
  forced?: number[][]
  /** Row-0 override weights for step t, or null to keep the model's own. */
  override?: (t: number) => Float32Array | null
}

/**
 * Step-by-step decoding of a batch of sentences, greedy or forced, with every step recorded.
 * Finished rows keep running with padding-free inputs until the batch ends; their steps are
 * simply not recorded (cheaper than reshaping the batch on a 2-core laptop).
 */
async function decodeBatch(model: LoadedModel, srcs: EncodedSource[], opts: LoopOptions): Promise<{ steps: StepRecord[][]; memory: number[][][] }> {
  const { special } = model.spec
  const enc = await encode(model, srcs.map((s) => s.ids))
  const B = enc.B
  const limits = srcs.map((s, b) => opts.forced?.[b].length ?? maxTargetLength(s.ids.length))
  const out: StepRecord[][] = srcs.map(() => [])
  const done = new Array<boolean>(B).fill(false)
  let prev = new Array<number>(B).fill(special.bos)
  let state = enc.init
  const maxT = Math.max(...limits)
  for (let t = 0; t < maxT && done.includes(false); t++) {
    checkCancel(opts.signal)
    const w = opts.override?.(t) ?? null
    const o = await step(model, {
      prev,
      state,
      memory: enc.memory,
      mask: enc.mask,
      t,
      override: w ? { weights: w, on: Float32Array.of(1) } : null,
    })
    state = o.next_state
    const next = [...prev]
    for (let b = 0; b < B; b++) {
      if (done[b]) continue
      const r = logitRow(o.logits, b)
      const alternatives = alternativesOf(model, r, opts.topK)
      // The greedy choice is the most probable alternative (ties broken the same way).
      const token = opts.forced ? opts.forced[b][t] : topK(r.x, 1)[0]
      out[b].push(record(o, b, enc.lengths[b], r, token, alternatives))
      next[b] = token
      if (token === special.eos || out[b].length >= limits[b]) done[b] = true
    }
    prev = next
  }
  return { steps: out, memory: srcs.map((_, b) => memoryRows(enc, b)) }
}

/** Encoder states of sentence b as rows (its real tokens only; one row for `none`). */
function memoryRows(enc: Awaited<ReturnType<typeof encode>>, b: number): number[][] {
  const [, L, M] = enc.memory.dims
  const data = enc.memory.data as Float32Array
  const n = L === 1 ? 1 : enc.lengths[b]
  return Array.from({ length: n }, (_, s) => Array.from(data.subarray((b * L + s) * M, (b * L + s + 1) * M)))
}

export async function greedyBatch(model: LoadedModel, texts: string[], topKCount = DEFAULT_TOP_K, signal?: AbortSignal): Promise<Translation[]> {
  const started = performance.now()
  const srcs = texts.map((t) => encodeSource(model, t))
  const { steps, memory } = await decodeBatch(model, srcs, { topK: topKCount, signal })
  return srcs.map((s, b) => toTranslation(model, s, steps[b], { mode: 'greedy', beam: 1, encoderStates: memory[b] }, started))
}

interface Hyp {
  steps: StepRecord[]
  state: number
  score: number
  done: boolean
}

/** Beam search over one sentence; the beam is one batch of K rows. */
async function beamDecode(model: LoadedModel, src: EncodedSource, K: number, alpha: number, k: number, signal?: AbortSignal): Promise<{ steps: StepRecord[]; memory: number[][] }> {
  const { special } = model.spec
  const enc = await encode(model, [src.ids])
  const S = src.ids.length
  const maxLen = maxTargetLength(S)
  const tiles = new Map<number, { memory: ReturnType<typeof tileRows>; mask: ReturnType<typeof tileRows> }>()
  const tiled = (n: number) => {
    if (!tiles.has(n)) tiles.set(n, { memory: tileRows(enc.memory, n), mask: tileRows(enc.mask, n) })
    return tiles.get(n)!
  }
  const norm = (h: Hyp) => h.score / Math.pow(Math.max(h.steps.length, 1), alpha)
  let alive: Hyp[] = [{ steps: [], state: 0, score: 0, done: false }]
  let state = enc.init
  const finished: Hyp[] = []
  for (let t = 0; t < maxLen && alive.length > 0; t++) {
    checkCancel(signal)
    const { memory, mask } = tiled(alive.length)
    const o = await step(model, { prev: alive.map((h) => h.steps.at(-1)?.token ?? special.bos), state, memory, mask, t })
    const candidates: Hyp[] = []
    alive.forEach((h, b) => {
      const r = logitRow(o.logits, b)
      const alternatives = alternativesOf(model, r, k)
      for (const tok of topK(r.x, K)) {
        candidates.push({ steps: [...h.steps, record(o, b, S, r, tok, alternatives)], state: b, score: h.score + r.x[tok] - r.lse, done: tok === special.eos })
      }
    })
    candidates.sort((a, b) => b.score - a.score)
    const next: Hyp[] = []
    for (const c of candidates) {
      if (next.length === K) break
      if (c.done) finished.push(c)
      else next.push(c)
    }
    // Log-probabilities only fall, so a live hypothesis can at best keep its score and reach the
    // length limit; drop those that cannot beat the best finished one that way. Like most beam
    // decoders, also stop once K hypotheses have finished.
    const bestFinished = finished.length ? Math.max(...finished.map(norm)) : -Infinity
    alive = finished.length >= K ? [] : next.filter((h) => h.score / Math.pow(maxLen, alpha) > bestFinished)
    if (alive.length > 0) state = gatherRows(o.next_state, alive.map((h) => h.state))
  }
  const pool = finished.length ? finished : alive
  pool.sort((a, b) => norm(b) - norm(a))
  return { steps: pool[0]?.steps ?? [], memory: memoryRows(enc, 0) }
}

export async function translate(model: LoadedModel, text: string, opts: DecodeOptions = {}, signal?: AbortSignal): Promise<Translation> {
  const beam = Math.round(opts.beam ?? 1)
  if (!(beam >= 1 && beam <= MAX_BEAM)) throw new Error(`The beam size must be between 1 and ${MAX_BEAM}.`)
  const k = Math.min(Math.max(Math.round(opts.topK ?? DEFAULT_TOP_K), 1), 20)
  const alpha = opts.lengthPenalty ?? 1
  if (!(Number.isFinite(alpha) && alpha >= 0 && alpha <= 3)) throw new Error('The length penalty must be a number from 0 to 3.')
  if (beam === 1) return (await greedyBatch(model, [text], k, signal))[0]
  const started = performance.now()
  const src = encodeSource(model, text)
  const { steps, memory } = await beamDecode(model, src, beam, alpha, k, signal)
  return toTranslation(model, src, steps, { mode: 'beam', beam, encoderStates: memory }, started)
}

/** The alignment and log-probabilities of a given target, token by token. */
export async function forcedDecode(model: LoadedModel, text: string, target: string): Promise<Translation> {
  const started = performance.now()
  const { tgtTokenizer, tgtVocab, special } = model.spec
  const src = encodeSource(model, text)
  const toks = tokenize(target, tgtTokenizer).slice(0, maxTargetLength(src.ids.length) - 1)
  const index = vocabIndex(tgtVocab)
  const ids = [...toks.map((t) => index.get(t) ?? special.unk), special.eos]
  const { steps, memory } = await decodeBatch(model, [src], { topK: DEFAULT_TOP_K, forced: [ids] })
  const unknown = [...ids.slice(0, -1).map((id) => id === special.unk), false]
  return toTranslation(model, src, steps[0], { mode: 'forced', beam: 1, tgtUnknown: unknown, encoderStates: memory[0] }, started)
}

/** The weights a what-if run puts at one step, over S source positions. */
export function overrideWeights(req: Pick<WhatIfRequest, 'mode' | 'sourceIndex' | 'weights'>, t: number, S: number, T: number): Float32Array {
  const w = new Float32Array(S)
  switch (req.mode) {
    case 'uniform':
      w.fill(1 / S)
      break
    case 'onehot': {
      const i = req.sourceIndex ?? -1
      if (!(Number.isInteger(i) && i >= 0 && i < S)) throw new Error(`The one-hot source position must be between 0 and ${S - 1}.`)
      w[i] = 1
      break
    }
    case 'diagonal':
      w[Math.min(S - 1, Math.round((t * (S - 1)) / Math.max(T - 1, 1)))] = 1
      break
    case 'custom': {
      const given = req.weights ?? []
      if (given.length !== S || given.some((x) => !(Number.isFinite(x) && x >= 0))) {
        throw new Error(`Hand-edited weights need ${S} non-negative numbers, one per source token.`)
      }
      const sum = given.reduce((a, b) => a + b, 0)
      if (sum <= 0) throw new Error('Hand-edited weights must not all be zero.')
      given.forEach((x, i) => (w[i] = x / sum))
      break
    }
  }
  return w
}

/** Decodes twice, with the model's own attention and with the override, and marks what changed. */
export async function whatIf(model: LoadedModel, req: WhatIfRequest): Promise<WhatIfResult> {
  if (model.spec.attention === 'none') throw new Error('This model has no attention to override.')
  if (!model.stepInputs.has('attn_override') || !model.stepInputs.has('override_on')) {
    throw new Error('This model\'s decoder step has no attn_override/override_on inputs, so its attention cannot be overridden.')
  }
  const original = (await greedyBatch(model, [req.text]))[0]
  const started = performance.now()
  const src = encodeSource(model, req.text)
  const S = src.ids.length
  const T = original.tgtTokens.length
  const chosen = req.steps === 'all' ? null : new Set(req.steps)
  const { steps, memory } = await decodeBatch(model, [src], {
    topK: DEFAULT_TOP_K,
    override: (t) => (chosen === null || chosen.has(t) ? overrideWeights(req, t, S, T) : null),
  })
  const modified = toTranslation(model, src, steps[0], { mode: 'what-if', beam: 1, encoderStates: memory[0] }, started)
  const n = Math.max(original.tgtTokens.length, modified.tgtTokens.length)
  const changed = Array.from({ length: n }, (_, t) => original.tgtTokens[t] !== modified.tgtTokens[t])
  return { original, modified, changed }
}
