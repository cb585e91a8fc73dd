import * as ort from './onnxruntime'
import type { Alternative, DecodeOptions, GuardOptions, Translation, WhatIfRequest, WhatIfResult } from '../shared/api'
import { KINDS } from '../shared/attention-kinds'
import { beamTreeOf } from './beam-tree'
import { CancelledError } from '../shared/errors'
import { K_INPUT, LOOP_INPUTS, SEQ, seqName } from './graph-surgery'
import { differing } from '../shared/differing'
import { isHeadOf } from '../shared/attention/heads'
import { comparableTokens } from '../shared/end-token'
import {
  bannedTokens,
  DEFAULT_REPEAT_GUARD,
  firstAllowed,
  firstBanned,
  guardOf,
  guardOn,
  MAX_GUARD_SETTING,
  NO_REPEAT_GUARD,
  validSetting,
  type RepeatGuard,
} from '../shared/repeat-guard'
import type { LoadedModel } from './model'
import { clampK, encode, gatherRows, headRows, row, rowTop, ruledTop, sourceBatch, step, tileRows, tokenLogProb, type Encoded, type RowTop } from './steps'
import { ContractError, type DecodingRules } from './contract'
import { pairQuestion } from '../shared/language-names'
import { detokenize, tokenize } from './tokenizer'
import { replaceUnknowns } from './unk-replace'

/** Longest source the engine decodes; longer input is cut and the result says so. */
export const MAX_SOURCE_TOKENS = 200
export const MAX_BEAM = 16
const DEFAULT_TOP_K = 5

/**
 * The most output steps for a source of `srcLen` ids (its `</s>` included): 2·S + 10, and never
 * more than `cap`, a transformer's `al.max_target` (as far as the model promises to go; a step
 * with a cache of fixed size has no slot beyond it).
 */
export function maxTargetLength(srcLen: number, cap: number | null = null): number {
  const n = 2 * srcLen + 10
  return cap === null ? n : Math.min(n, cap)
}

/**
 * maxTargetLength for this model, and never more than its own config allows (a Hugging Face
 * folder's max_new_tokens, or max_length − 1: generate()'s limit).
 */
export function stepLimit(model: LoadedModel, srcLen: number): number {
  const n = maxTargetLength(srcLen, model.spec.maxTarget)
  const own = model.spec.generation?.maxNewTokens
  return own ? Math.min(n, own) : n
}

/** The repeat guard a model decodes with where a request sets none: its own config's, or the app's. */
export const defaultGuard = (model: LoadedModel): RepeatGuard => ({ ...(model.spec.generation?.guard ?? DEFAULT_REPEAT_GUARD) })

/** The format's own decoding rules of a free decode; none when raw (plain argmax; the forced first token stays, in the step). */
const rulesOf = (model: LoadedModel, raw?: boolean): DecodingRules | null => (raw ? null : (model.spec.generation ?? null))

/**
 * A target forced through the model as transformers' teacher forcing feeds it: after the forced
 * first token (forced_bos_token_id, a multilingual model's target language) where the model has
 * one and the target does not start with it. `lead` is 1 where it was put in.
 */
export function withForcedFirst(model: LoadedModel, ids: number[]): { ids: number[]; lead: number } {
  const first = model.spec.generation?.forcedFirst ?? null
  return first !== null && ids[0] !== first ? { ids: [first, ...ids], lead: 1 } : { ids, lead: 0 }
}

export interface EncodedSource {
  text: string
  tokens: string[]
  ids: number[]
  unknown: boolean[]
  truncated: boolean
  /** How many of the tokens are the format's own before the text's (a language tag, BART's `<s>`) and after it (`</s>`). */
  head: number
  tail: number
}

const indexCache = new WeakMap<string[], Map<string, number>>()
/** A vocabulary's piece → id map, built once per vocabulary (a 256k-piece map costs more than a sentence's work). */
export function vocabIndex(vocab: string[]): Map<string, number> {
  let m = indexCache.get(vocab)
  if (!m) {
    m = new Map(vocab.map((w, i) => [w, i]))
    indexCache.set(vocab, m)
  }
  return m
}

/** A model that needs a language pair chosen first (ModelSpec.needsLanguages) decodes nothing until then. */
function askPair(model: LoadedModel): void {
  const { spec } = model
  if (spec.needsLanguages) throw new ContractError(pairQuestion(spec.name, spec.languages ?? spec.targetLanguages ?? []))
}

/** Text to ids with `</s>` appended, cut to MAX_SOURCE_TOKENS. */
export function encodeSource(model: LoadedModel, text: string): EncodedSource {
  askPair(model)
  if (model.sourceEncoder) return encodeOwn(model, text)
  return encodePieces(model, tokenize(text, model.spec.srcTokenizer), text)
}

/**
 * A format whose tokenizer adds its own special tokens (a Hugging Face folder: BART's `<s>`, an
 * M2M100 language token, `</s>`): its pieces and ids as it makes them, the body cut to
 * MAX_SOURCE_TOKENS between them.
 */
function encodeOwn(model: LoadedModel, text: string): EncodedSource {
  const own = model.sourceEncoder!(text)
  const { head, tail } = own
  let { pieces, ids } = own
  const truncated = ids.length - head - tail > MAX_SOURCE_TOKENS
  if (truncated) {
    const cut = <T>(xs: T[]) => [...xs.slice(0, head + MAX_SOURCE_TOKENS), ...xs.slice(xs.length - tail)]
    pieces = cut(pieces)
    ids = cut(ids)
  }
  return { text, tokens: pieces, ids, unknown: ids.map((id) => id === model.spec.special.unk), truncated, head, tail }
}

const endsCache = new WeakMap<LoadedModel, { pieces: string[]; ids: number[]; head: number; tail: number }>()
/** The special tokens a format's own encoder puts around every text (a language tag, `<s>`, `</s>`). */
function ownEnds(model: LoadedModel) {
  let e = endsCache.get(model)
  if (!e) {
    e = model.sourceEncoder!('')
    endsCache.set(model, e)
  }
  return e
}

/**
 * Source pieces to ids with `</s>` appended, cut to MAX_SOURCE_TOKENS: the pieces of a text, or
 * pieces made otherwise (an aligner tokenizes each gold word on its own).
 */
export function encodePieces(model: LoadedModel, pieces: string[], text: string): EncodedSource {
  askPair(model)
  const { srcVocab, special } = model.spec
  let tokens = pieces
  const truncated = tokens.length > MAX_SOURCE_TOKENS
  if (truncated) tokens = tokens.slice(0, MAX_SOURCE_TOKENS)
  const index = vocabIndex(srcVocab)
  const ids = tokens.map((t) => index.get(t) ?? special.unk)
  if (model.sourceEncoder) {
    // The format's own special tokens around the pieces, as around a text (encodeOwn).
    const e = ownEnds(model)
    const around = <T>(xs: T[], ends: T[]) => [...ends.slice(0, e.head), ...xs, ...ends.slice(ends.length - e.tail)]
    return {
      text,
      tokens: around(tokens, e.pieces),
      ids: around(ids, e.ids),
      unknown: around(
        ids.map((id) => id === special.unk),
        e.ids.map(() => false),
      ),
      truncated,
      head: e.head,
      tail: e.tail,
    }
  }
  return {
    head: 0,
    tail: 1,
    text,
    tokens: [...tokens, srcVocab[special.eos]],
    ids: [...ids, special.eos],
    unknown: [...ids.map((id) => id === special.unk), false],
    truncated,
  }
}

/** What one decoder step recorded for one batch row; hypotheses grown from the same row share it. */
interface RowCapture {
  alternatives: Alternative[]
  attention: number[] | null
  scores: number[] | null
  position: number | null
  window: [number, number] | null
  gaussian: number[] | null
  align: number[] | null
  /** Transformer: every head's weights, [layer][head][s]; null where not captured (batched evaluation). */
  cross: number[][][] | null
  /** The model's own first choice where the repeat guard blocked it (this row's history banned it), else null. */
  blocked?: number | null
}

/** One output step of one hypothesis. */
interface StepRecord {
  token: number
  logProb: number
  capture: RowCapture
}

/** The tokens of some steps: a hypothesis' history, as the repeat guard reads it. */
const tokensOf = (steps: readonly StepRecord[]) => steps.map((s) => s.token)

function alternativesOf(model: LoadedModel, top: RowTop, k: number): Alternative[] {
  const n = Math.min(k, top.ids.length)
  return Array.from({ length: n }, (_, i) => ({ token: model.spec.tgtVocab[top.ids[i]] ?? '<unk>', p: Math.exp(top.logp[i]) }))
}

function capture(model: LoadedModel, o: ort.InferenceSession.ReturnType, b: number, S: number, top: RowTop, k: number, cross = true): RowCapture {
  const w = row(o.window, b, 2)
  return {
    cross: cross ? headRows(o.cross_attention, b, S, model.spec.heads) : null,
    alternatives: alternativesOf(model, top, k),
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
  const kind = KINDS[spec.attention]
  const local = kind.window !== null
  const transformer = kind.heads
  const attention = steps.flatMap((s) => (s.capture.attention ? [s.capture.attention] : []))
  const replaced = replaceUnknowns(
    steps.map((s) => s.token === spec.special.unk),
    attention,
    src.tokens,
    spec.srcTokenizer,
  )
  const tokens = steps.map((s, t) => replaced[t]?.source ?? spec.tgtVocab[s.token] ?? '<unk>')
  // An <unk> nothing could replace (a model without attention) is left out of the text, and so is
  // a forced first token (a target language tag, BART's <s>): generate()'s output decoded with skip_special_tokens.
  const tag = spec.generation?.forcedFirst ?? null
  const words = tokens.filter(
    (_, t) =>
      steps[t].token !== spec.special.eos && !(steps[t].token === spec.special.unk && !replaced[t]) && !(t === 0 && tag !== null && steps[0].token === tag),
  )
  const blocked = steps.map((s) => (s.capture.blocked == null ? null : (spec.tgtVocab[s.capture.blocked] ?? '<unk>')))
  return {
    modelId: '',
    source: src.text,
    srcTokens: src.tokens,
    srcUnknown: src.unknown,
    tgtTokens: tokens,
    text: detokenize(words, spec.tgtTokenizer),
    attention,
    // A transformer exports no scores (each head has its own): one empty row per step.
    scores: transformer ? steps.map(() => []) : steps.flatMap((s) => (s.capture.scores ? [s.capture.scores] : [])),
    positions: local ? steps.map((s) => s.capture.position ?? 0) : null,
    windows: local ? steps.map((s) => s.capture.window ?? [0, 0]) : null,
    gaussian: local ? steps.map((s) => s.capture.gaussian ?? []) : null,
    align: local ? steps.map((s) => s.capture.align ?? []) : null,
    encoderStates: [],
    tokenLogProbs: steps.map((s) => s.logProb),
    alternatives: steps.map((s) => s.capture.alternatives),
    ...(blocked.some((b) => b !== null) ? { blocked } : {}),
    tgtUnknown: null,
    replaced,
    logProb: steps.reduce((a, s) => a + s.logProb, 0),
    truncated: src.truncated,
    decodeMs: performance.now() - started,
    provider: model.provider,
    ...(transformer && steps.every((s) => s.capture.cross) ? { crossAttention: steps.map((s) => s.capture.cross!) } : {}),
    ...extra,
  }
}

function checkCancel(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CancelledError('The translation was cancelled.')
}

interface StepLoopOptions {
  signal?: AbortSignal
  topK: number
  /** Per row: the target ids to force (ending with </s>). */
  forced?: number[][]
  /** What a what-if run changes at step t (row 0), or null to keep the model's own. */
  override?: (t: number) => StepOverride | null
  /** Capture a transformer's per-head weights (default true; batched evaluation skips them). */
  crossAttention?: boolean
  /** The repeat guard of the free (not forced) rows; default none. */
  guard?: RepeatGuard
  /** Free rows without the format's own decoding rules (plain argmax). */
  raw?: boolean
}

/** One step's what-if inputs for row 0 (see `whatIf`). */
interface StepOverride {
  /** `attn_override`, or null where only the heads' gates change. */
  weights: Float32Array | null
  /** `override_on`: 1 = every head (every layer) uses `weights`. */
  on: number
  /** Transformer: `head_gate` and `head_override` [L·H], or null for the defaults. */
  heads: { gate: Float32Array; override: Float32Array } | null
}

interface Decoded {
  steps: StepRecord[][]
  /** Encoder states per sentence, when asked for. */
  memory: number[][][] | null
}

/**
 * Step-by-step decoding of a batch of sentences, greedy or forced, with every step recorded: one
 * `session.run` per step. Forced decoding and what-if run here; greedy runs here only for a
 * model whose graph could not be rewritten, for a sentence the repeat guard changes (guardedLoop),
 * and as the reference the tests compare the loop to.
 * Finished rows keep running until the batch ends; their steps are simply not recorded.
 */
export async function decodeSteps(model: LoadedModel, srcs: EncodedSource[], opts: StepLoopOptions, states = true): Promise<Decoded> {
  const { special } = model.spec
  const enc = await encode(
    model,
    srcs.map((s) => s.ids),
  )
  const B = enc.B
  // A forced row gets the model's forced first token before it, as in transformers' teacher
  // forcing (its step, which the caller did not ask for, is left out of the result).
  const leads = opts.forced?.map((ids) => withForcedFirst(model, ids))
  const forced = leads?.map((l) => l.ids)
  const rules = forced ? null : rulesOf(model, opts.raw)
  const limits = srcs.map((s, b) => forced?.[b].length ?? stepLimit(model, s.ids.length))
  const cross = opts.crossAttention ?? true
  const out: StepRecord[][] = srcs.map(() => [])
  const done = new Array<boolean>(B).fill(false)
  let prev = new Array<number>(B).fill(special.bos)
  let state = enc.init
  const maxT = Math.max(...limits)
  const guard = forced ? NO_REPEAT_GUARD : (opts.guard ?? NO_REPEAT_GUARD)
  const guarded = guardOn(guard)
  for (let t = 0; t < maxT && done.includes(false); t++) {
    checkCancel(opts.signal)
    const w = opts.override?.(t) ?? null
    // What the guard bans in each row now; the step ranks that many more tokens, so k of them stay.
    const bans = guarded ? out.map((steps, b) => (done[b] ? null : bannedTokens(tokensOf(steps), guard))) : null
    const ranked = opts.topK + (bans ? Math.max(0, ...bans.map((x) => x?.size ?? 0)) : 0)
    const o = await step(model, {
      prev,
      state,
      memory: enc.memory,
      mask: enc.mask,
      keys: enc.keys,
      t,
      k: ranked,
      logits: !!forced,
      override: w?.weights ? { weights: w.weights, on: Float32Array.of(w.on) } : null,
      heads: w?.heads ?? null,
    })
    state = o.next_state
    const next = [...prev]
    for (let b = 0; b < B; b++) {
      if (done[b]) continue
      const top = rules
        ? ruledTop(model, o, b, ranked, rules, { history: tokensOf(out[b]), t, last: t === limits[b] - 1, scores: 'logits' })
        : rowTop(model, o, b, ranked)
      // The greedy choice is the most probable alternative (ties broken the same way) the repeat
      // guard lets through; where it bans every one ranked, the model's own choice stands.
      const ban = bans?.[b]
      const rank = Math.max(0, ban ? firstAllowed(top.ids, ban) : 0)
      const token = forced ? forced[b][t] : top.ids[rank]
      const logProb = forced ? tokenLogProb(model, o, b, token) : top.logp[rank]
      const cap = capture(model, o, b, enc.lengths[b], top, opts.topK, cross)
      if (rank > 0) cap.blocked = top.ids[0]
      out[b].push({ token, logProb, capture: cap })
      next[b] = token
      if (token === special.eos || out[b].length >= limits[b]) done[b] = true
    }
    prev = next
  }
  const steps = leads ? out.map((s, b) => s.slice(leads[b].lead)) : out
  return { steps, memory: states ? srcs.map((_, b) => memoryRows(enc.memory, enc.lengths[b], b)) : null }
}

/**
 * Greedy decoding of a batch in one `session.run` of the model's loop graph
 * (src/engine/graph-surgery.ts, `greedyLoopGraph`): the steps come back as [T, B, …] scan outputs
 * and each row is cut where the step-by-step decoder would have stopped it (its `</s>` or its limit).
 */
async function decodeLoop(model: LoadedModel, srcs: EncodedSource[], k: number, states: boolean, cross: boolean): Promise<Decoded> {
  const session = model.greedy!
  const { eos } = model.spec.special
  const { ids, mask } = sourceBatch(
    model,
    srcs.map((s) => s.ids),
  )
  const B = srcs.length
  const limits = srcs.map((s) => stepLimit(model, s.ids.length))
  const kk = clampK(model, k)
  const feeds: Record<string, ort.Tensor> = {
    src_ids: ids,
    [K_INPUT]: new ort.Tensor('int64', BigInt64Array.of(BigInt(kk)), [1]),
    [LOOP_INPUTS.limits]: new ort.Tensor('int64', BigInt64Array.from(limits, BigInt), [B]),
    [LOOP_INPUTS.maxSteps]: new ort.Tensor('int64', BigInt64Array.of(BigInt(Math.max(...limits))), []),
  }
  if (session.inputNames.includes('src_mask')) feeds.src_mask = mask
  const skipped = new Set([...(states ? [] : ['encoder_out']), ...(cross ? [] : [seqName('cross_attention')])])
  const o = await session.run(
    feeds,
    session.outputNames.filter((n) => !skipped.has(n)),
  )
  const T = o[SEQ.tokens].dims[0]
  const tokens = o[SEQ.tokens].data as BigInt64Array
  const logp = o[SEQ.logp].data as Float32Array
  const topIds = o[SEQ.ids].data as BigInt64Array
  const seq = (c: string) => o[seqName(c)] as ort.Tensor | undefined
  const [attention, scores, position, window, gaussian, align, crossAttention] = [
    'attention',
    'scores',
    'position',
    'window',
    'gaussian',
    'align',
    'cross_attention',
  ].map(seq)
  const steps = srcs.map((s, b) => {
    const S = s.ids.length
    const out: StepRecord[] = []
    for (let t = 0; t < T; t++) {
      const r = t * B + b
      const top: RowTop = { ids: [], logp: [] }
      for (let i = 0; i < kk; i++) {
        top.ids.push(Number(topIds[r * kk + i]))
        top.logp.push(logp[r * kk + i])
      }
      const w = row(window, r, 2)
      const token = Number(tokens[r])
      out.push({
        token,
        logProb: top.logp[0],
        capture: {
          alternatives: alternativesOf(model, top, k),
          attention: row(attention, r, S),
          scores: row(scores, r, S),
          position: position ? (position.data as Float32Array)[r] : null,
          window: w ? [w[0], w[1]] : null,
          gaussian: row(gaussian, r, S),
          align: row(align, r, S),
          cross: headRows(crossAttention, r, S, model.spec.heads),
        },
      })
      if (token === eos || t + 1 >= limits[b]) break
    }
    return out
  })
  const memory = states && o.encoder_out ? srcs.map((s, b) => memoryRows(o.encoder_out, s.ids.length, b)) : null
  return { steps, memory }
}

/**
 * The loop graph's greedy output under the repeat guard. The graph has no guard in it; but the
 * guarded decoder departs from the model's own choice only at a step where that choice is banned,
 * so an output with no banned step (firstBanned, the usual case) is already the guarded one. The
 * sentences with one are decoded again step by step with the guard (decodeSteps); the loop's
 * encoder states stand for them, being the same.
 */
async function guardedLoop(
  model: LoadedModel,
  srcs: EncodedSource[],
  k: number,
  states: boolean,
  cross: boolean,
  guard: RepeatGuard,
  signal?: AbortSignal,
): Promise<Decoded> {
  const loop = await decodeLoop(model, srcs, k, states, cross)
  const again = srcs.flatMap((_, b) => (firstBanned(tokensOf(loop.steps[b]), guard) >= 0 ? [b] : []))
  if (again.length === 0) return loop
  const redone = await decodeSteps(
    model,
    again.map((b) => srcs[b]),
    { topK: k, signal, crossAttention: cross, guard },
    false,
  )
  again.forEach((b, i) => (loop.steps[b] = redone.steps[i]))
  return loop
}

/** Encoder states of sentence b as rows (its real tokens only; one row for `none`). */
function memoryRows(memory: ort.Tensor, length: number, b: number): number[][] {
  const [, L, M] = memory.dims
  const data = memory.data as Float32Array
  const n = L === 1 ? 1 : length
  return Array.from({ length: n }, (_, s) => Array.from(data.subarray((b * L + s) * M, (b * L + s + 1) * M)))
}

export interface GreedyOptions {
  topK?: number
  signal?: AbortSignal
  /** Return each sentence's encoder states (default true). */
  encoderStates?: boolean
  /** Return a transformer's per-head weights, `crossAttention` (default true). */
  crossAttention?: boolean
  /** The repeat guard (default: the model's, defaultGuard; src/shared/repeat-guard.ts); NO_REPEAT_GUARD for the model's own output. */
  guard?: RepeatGuard
  /** Plain argmax: none of the format's own decoding rules (GuardOptions.raw). */
  raw?: boolean
}

export async function greedyBatch(model: LoadedModel, texts: string[], opts: GreedyOptions = {}): Promise<Translation[]> {
  const started = performance.now()
  const topK = opts.topK ?? DEFAULT_TOP_K
  const states = opts.encoderStates ?? true
  const cross = opts.crossAttention ?? true
  checkCancel(opts.signal)
  const srcs = texts.map((t) => encodeSource(model, t))
  const guard = opts.guard ?? defaultGuard(model)
  const { steps, memory } = model.greedy
    ? await guardedLoop(model, srcs, topK, states, cross, guard, opts.signal)
    : await decodeSteps(model, srcs, { topK, signal: opts.signal, crossAttention: cross, guard, raw: opts.raw }, states)
  return srcs.map((s, b) => toTranslation(model, s, steps[b], { mode: 'greedy', beam: 1, encoderStates: memory?.[b] ?? [] }, started))
}

/** A beam hypothesis: its last step and a pointer to the one it grew from. */
interface Hyp {
  parent: Hyp | null
  rec: StepRecord | null
  length: number
  /** Row of the step output holding this hypothesis' state. */
  state: number
  score: number
  done: boolean
}

function stepsOf(h: Hyp): StepRecord[] {
  const out: StepRecord[] = []
  for (let x: Hyp | null = h; x?.rec; x = x.parent) out.push(x.rec)
  return out.reverse()
}

/**
 * Beam search over one sentence, the rule of training/README.md ("Decoding rules shared with the
 * app", rule 3): the beam is one batch of K rows, each step's top-k comes from the graph.
 */
async function beamDecode(
  model: LoadedModel,
  src: EncodedSource,
  K: number,
  alpha: number,
  k: number,
  signal?: AbortSignal,
  guard: RepeatGuard = NO_REPEAT_GUARD,
  /** What-if under beam search: what every hypothesis' step t changes (see `whatIf`). */
  override?: (t: number) => StepOverride | null,
  /** The format's own decoding rules (rulesOf), or null. */
  rules: DecodingRules | null = null,
): Promise<{ steps: StepRecord[]; memory: number[][]; tried: Hyp[]; best: Hyp | null }> {
  const { special } = model.spec
  const enc: Encoded = await encode(model, [src.ids])
  const S = src.ids.length
  const maxLen = stepLimit(model, S)
  const tiles = new Map<number, { memory: ort.Tensor; mask: ort.Tensor; keys: Record<string, ort.Tensor> }>()
  const tiled = (n: number) => {
    if (!tiles.has(n)) {
      const keys = Object.fromEntries(Object.entries(enc.keys).map(([name, t]) => [name, tileRows(t, n)]))
      tiles.set(n, { memory: tileRows(enc.memory, n), mask: tileRows(enc.mask, n), keys })
    }
    return tiles.get(n)!
  }
  const norm = (h: Hyp) => h.score / Math.pow(Math.max(h.length, 1), alpha)
  let alive: Hyp[] = [{ parent: null, rec: null, length: 0, state: 0, score: 0, done: false }]
  let state = enc.init
  const finished: Hyp[] = []
  // Every candidate, for the beam view's tree (src/engine/beam-tree.ts).
  const tried: Hyp[] = []
  const guarded = guardOn(guard)
  const transformersRule = model.beamRule === 'transformers'
  for (let t = 0; t < maxLen && alive.length > 0; t++) {
    checkCancel(signal)
    const { memory, mask, keys } = tiled(alive.length)
    // Each hypothesis' own banned tokens (its own history); the step ranks that many more, so K stay.
    const bans = guarded ? alive.map((h) => bannedTokens(tokensOf(stepsOf(h)), guard)) : null
    const ranked = Math.max(transformersRule ? 2 * K : K, k) + (bans ? Math.max(...bans.map((x) => x.size)) : 0)
    // An override is one row's; every hypothesis gets the same.
    const w = override?.(t) ?? null
    const rows = (x: Float32Array) => {
      const out = new Float32Array(x.length * alive.length)
      for (let b = 0; b < alive.length; b++) out.set(x, b * x.length)
      return out
    }
    const o = await step(model, {
      prev: alive.map((h) => h.rec?.token ?? special.bos),
      state,
      memory,
      mask,
      keys,
      t,
      k: ranked,
      override: w?.weights ? { weights: rows(w.weights), on: new Float32Array(alive.length).fill(w.on) } : null,
      heads: w?.heads ? { gate: rows(w.heads.gate), override: rows(w.heads.override) } : null,
    })
    const candidates: Hyp[] = []
    alive.forEach((h, b) => {
      const top = rules
        ? ruledTop(model, o, b, ranked, rules, { history: tokensOf(stepsOf(h)), t, last: t === maxLen - 1, scores: 'logp' })
        : rowTop(model, o, b, ranked)
      const cap = capture(model, o, b, S, top, k)
      const ban = bans?.[b]
      if (ban?.has(top.ids[0])) cap.blocked = top.ids[0]
      // The K best tokens the guard lets through extend this hypothesis.
      const allowed = ban?.size ? top.ids.flatMap((id, i) => (ban.has(id) ? [] : [i])) : top.ids.map((_, i) => i)
      for (const i of allowed.slice(0, K)) {
        const tok = top.ids[i]
        const rec = { token: tok, logProb: top.logp[i], capture: cap }
        candidates.push({ parent: h, rec, length: h.length + 1, state: b, score: h.score + top.logp[i], done: tok === special.eos })
      }
    })
    candidates.sort((a, b) => b.score - a.score)
    tried.push(...candidates)
    if (transformersRule) {
      alive = transformersSelect(candidates, finished, K, t === maxLen - 1, norm)
      // early_stopping=False: stop once K have finished and the best live one, scored at its
      // present length, cannot beat the worst of them.
      if (finished.length >= K && (alive.length === 0 || alive[0].score / Math.pow(t + 1, alpha) <= norm(finished[K - 1]))) alive = []
    } else {
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
    }
    if (alive.length > 0)
      state = gatherRows(
        o.next_state,
        alive.map((h) => h.state),
      )
  }
  const pool = finished.length ? finished : alive
  pool.sort((a, b) => norm(b) - norm(a))
  return { steps: pool[0] ? stepsOf(pool[0]) : [], memory: memoryRows(enc.memory, S, 0), tried, best: pool[0] ?? null }
}

/**
 * One step of transformers' beam search (generate with num_beams = K, early_stopping=False), the
 * rule a Hugging Face folder's users compare against: of the 2K best candidates, those among the
 * first K that end (with </s>, or at the length limit) join the finished ones, which keep their K
 * best by length-normalised score; the first K that do not end go on. Returns those that go on.
 */
function transformersSelect(candidates: Hyp[], finished: Hyp[], K: number, last: boolean, norm: (h: Hyp) => number): Hyp[] {
  const next: Hyp[] = []
  candidates.slice(0, 2 * K).forEach((c, i) => {
    if (c.done || last) {
      if (i < K) finished.push(c)
    } else if (next.length < K) next.push(c)
  })
  finished.sort((a, b) => norm(b) - norm(a))
  finished.length = Math.min(finished.length, K)
  return last ? [] : next
}

/** The repeat guard some options ask for (absent settings: the model's defaults; raw: none), each setting checked. */
export function checkedGuard(opts: GuardOptions, model?: LoadedModel): RepeatGuard {
  if (opts.raw) return { ...NO_REPEAT_GUARD }
  const guard = guardOf(opts, model ? defaultGuard(model) : DEFAULT_REPEAT_GUARD)
  if (!validSetting(guard.noRepeatNgram)) throw new Error(`The no-repeat n-gram size must be a whole number from 0 (off) to ${MAX_GUARD_SETTING}.`)
  if (!validSetting(guard.maxRepeat)) throw new Error(`The most repeats of a piece in a row must be a whole number from 0 (off) to ${MAX_GUARD_SETTING}.`)
  return guard
}

export async function translate(model: LoadedModel, text: string, opts: DecodeOptions = {}, signal?: AbortSignal): Promise<Translation> {
  const beam = Math.round(opts.beam ?? 1)
  if (!(beam >= 1 && beam <= MAX_BEAM)) throw new Error(`The beam size must be between 1 and ${MAX_BEAM}.`)
  const k = Math.min(Math.max(Math.round(opts.topK ?? DEFAULT_TOP_K), 1), 20)
  const alpha = opts.lengthPenalty ?? 1
  if (!(Number.isFinite(alpha) && alpha >= 0 && alpha <= 3)) throw new Error('The length penalty must be a number from 0 to 3.')
  const states = opts.encoderStates ?? true
  const guard = checkedGuard(opts, model)
  if (beam === 1) return (await greedyBatch(model, [text], { topK: k, signal, encoderStates: states, guard, raw: opts.raw }))[0]
  const started = performance.now()
  const src = encodeSource(model, text)
  const { steps, memory, tried, best } = await beamDecode(model, src, beam, alpha, k, signal, guard, undefined, rulesOf(model, opts.raw))
  const t = toTranslation(model, src, steps, { mode: 'beam', beam, encoderStates: states ? memory : [] }, started)
  return { ...t, beamTree: beamTreeOf(tried, best, model.spec.tgtVocab, model.spec.special.eos, beam, t.tgtTokens) }
}

/** Target pieces to ids, `<unk>` for a piece the vocabulary lacks. */
export function targetIds(model: LoadedModel, pieces: string[]): number[] {
  const index = vocabIndex(model.spec.tgtVocab)
  return pieces.map((t) => index.get(t) ?? model.spec.special.unk)
}

/** The alignment and log-probabilities of a given target, token by token. */
export async function forcedDecode(model: LoadedModel, text: string, target: string): Promise<Translation> {
  const started = performance.now()
  const { tgtTokenizer, special } = model.spec
  const src = encodeSource(model, text)
  const toks = tokenize(target, tgtTokenizer).slice(0, stepLimit(model, src.ids.length) - 1)
  // The forced first token (a target language, forced_bos_token_id) is fed first and shown, as the
  // model's own output shows it: transformers' teacher forcing.
  const { ids } = withForcedFirst(model, [...targetIds(model, toks), special.eos])
  const { steps, memory } = await decodeSteps(model, [src], { topK: DEFAULT_TOP_K, forced: [ids] })
  const unknown = [...ids.slice(0, -1).map((id) => id === special.unk), false]
  return toTranslation(model, src, steps[0], { mode: 'forced', beam: 1, tgtUnknown: unknown, encoderStates: memory![0] }, started)
}

/** The weights a what-if run puts at one step, over S source positions. */
export function overrideWeights(req: Pick<WhatIfRequest, 'mode' | 'sourceIndex' | 'weights'>, t: number, S: number, T: number): Float32Array {
  const w = new Float32Array(S)
  switch (req.mode) {
    case 'silence':
      throw new Error('Silencing a head sets its gate to 0; it puts no weights.')
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

/**
 * Decodes twice, with the model's own attention and with the override, and marks what changed.
 * Both runs go step by step through the same step part, so the steps before the first override
 * are bit for bit the same.
 *
 * A transformer's override goes to every head of every layer (`override_on`), or with `head` to
 * that one head (`head_override`); mode `silence` instead sets the gate of that head, or of every
 * head, to 0 (`head_gate`) at the chosen steps.
 */
export async function whatIf(model: LoadedModel, req: WhatIfRequest): Promise<WhatIfResult> {
  const { spec, stepInputs } = model
  if (!KINDS[spec.attention].attends) throw new Error('This model has no attention to override.')
  const grid = spec.heads
  if (!grid && (req.mode === 'silence' || req.head))
    throw new Error(`${spec.name} has one attention, not several heads to ${req.mode === 'silence' ? 'silence' : 'choose from'}.`)
  if (grid && req.head) {
    const { layer, head } = req.head
    if (!isHeadOf(req.head, grid)) {
      throw new Error(`There is no head ${head} in layer ${layer}: the model has layers 0–${grid.layers - 1} with heads 0–${grid.heads - 1}.`)
    }
  }
  const needs = req.mode === 'silence' ? ['head_gate'] : req.head ? ['attn_override', 'head_override'] : ['attn_override', 'override_on']
  const missing = needs.filter((n) => !stepInputs.has(n))
  if (missing.length) {
    throw new Error(
      `This model's decoder step has no ${missing.join('/')} input${missing.length > 1 ? 's' : ''}, so ${req.mode === 'silence' ? 'its heads cannot be silenced' : req.head ? 'one head cannot be overridden' : 'its attention cannot be overridden'}.`,
    )
  }
  let started = performance.now()
  const src = encodeSource(model, req.text)
  const guard = checkedGuard(req, model)
  const rules = rulesOf(model, req.raw)
  // The decoding of the translation on show: greedy, or a beam search of that width (both runs).
  const beam = Math.round(req.beam ?? 1)
  if (!(beam >= 1 && beam <= MAX_BEAM)) throw new Error(`The beam size must be between 1 and ${MAX_BEAM}.`)
  const own =
    beam > 1
      ? await beamDecode(model, src, beam, 1, DEFAULT_TOP_K, undefined, guard, undefined, rules).then((r) => ({ steps: [r.steps], memory: [r.memory] }))
      : await decodeSteps(model, [src], { topK: DEFAULT_TOP_K, guard, raw: req.raw })
  const original = toTranslation(model, src, own.steps[0], { mode: beam > 1 ? 'beam' : 'greedy', beam, encoderStates: own.memory![0] }, started)
  started = performance.now()
  const S = src.ids.length
  const T = original.tgtTokens.length
  const chosen = req.steps === 'all' ? null : new Set(req.steps)
  const cells = grid ? grid.layers * grid.heads : 0
  // The one head a request names, as an index into the row-major [L, H] gate and switch; -1 = every head.
  const cell = grid && req.head ? req.head.layer * grid.heads + req.head.head : -1
  const at = (t: number): StepOverride | null => {
    if (!(chosen === null || chosen.has(t))) return null
    if (req.mode === 'silence') {
      const gate = new Float32Array(cells).fill(cell < 0 ? 0 : 1)
      if (cell >= 0) gate[cell] = 0
      return { weights: null, on: 0, heads: { gate, override: new Float32Array(cells) } }
    }
    const weights = overrideWeights(req, t, S, T)
    if (cell < 0) return { weights, on: 1, heads: null }
    const override = new Float32Array(cells)
    override[cell] = 1
    return { weights, on: 0, heads: { gate: new Float32Array(cells).fill(1), override } }
  }
  const { steps, memory } =
    beam > 1
      ? await beamDecode(model, src, beam, 1, DEFAULT_TOP_K, undefined, guard, at, rules).then((r) => ({ steps: [r.steps], memory: [r.memory] }))
      : await decodeSteps(model, [src], { topK: DEFAULT_TOP_K, override: at, guard, raw: req.raw })
  const modified = toTranslation(model, src, steps[0], { mode: 'what-if', beam, encoderStates: memory![0] }, started)
  // One diff rule for every "changed" the app shows (With / without, What-if): the LCS of the two
  // outputs, with each run's end token counted as the same token.
  const changed = differing(comparableTokens(modified), comparableTokens(original))
  return { original, modified, changed }
}
