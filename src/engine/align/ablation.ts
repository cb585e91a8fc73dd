import { KINDS } from '../../shared/attention-kinds'
import * as ort from '../onnxruntime'
import { CancelledError } from '../../shared/errors'
import { corpusBleu } from '../bleu'
import { encodeSource, maxTargetLength, targetIds, type EncodedSource } from '../decode'
import { mulberry32 } from '../examples'
import type { LoadedModel } from '../model'
import { encode, rowTop, step, tokenLogProb } from '../steps'
import { detokenize, tokenize } from '../tokenizer'

/**
 * Attention ablation over a test set (Jain & Wallace 2019; Serrano & Smith 2019): decode with the
 * model's own attention, with uniform attention over the source at every step, or with each step's
 * own attention randomly permuted over the source positions, and score each way: BLEU of the greedy
 * output and the mean log-likelihood of the reference (forced decoding under the same ablation).
 * If attention is an explanation of what the model uses, breaking it must cost something.
 *
 * The what-if machinery overrides one sentence's attention at chosen steps; a corpus needs every
 * row of a batch overridden at every step, and the permuted mode needs each step's own attention
 * before it can permute it (the step runs twice), so this loop drives the step part itself. A
 * Transformer's override goes to every head of every layer (`override_on`), and its permuted
 * weights are the permuted all-heads average.
 */
export type Ablation = 'none' | 'uniform' | 'permuted'

export interface AblationScore {
  ablation: Ablation
  bleu: number
  /** Mean log-probability of a reference token (nats), `</s>` included. */
  refLogProb: number
  hypotheses: string[]
}

export interface AblationOptions {
  batchSize?: number
  seed?: number
  signal?: AbortSignal
  onProgress?: (done: number, total: number) => void
}

/** Fisher–Yates on the first n entries. */
function permute(row: Float32Array, n: number, rnd: () => number): void {
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    ;[row[i], row[j]] = [row[j], row[i]]
  }
}

export function canAblate(model: LoadedModel): string | null {
  if (!KINDS[model.spec.attention].attends) return `${model.spec.name} has no attention to ablate.`
  const missing = ['attn_override', 'override_on'].filter((n) => !model.stepInputs.has(n))
  return missing.length ? `${model.spec.name}'s decoder step has no ${missing.join('/')} input, so its attention cannot be replaced.` : null
}

interface Run {
  tokens: number[][]
  logProbs: number[][]
}

/** Greedy (forced = null) or forced decoding of a batch with every step's attention ablated. */
export async function ablatedDecode(
  model: LoadedModel,
  srcs: EncodedSource[],
  ablation: Ablation,
  forced: number[][] | null,
  rnd: () => number,
  signal?: AbortSignal,
): Promise<Run> {
  const { special } = model.spec
  const enc = await encode(
    model,
    srcs.map((s) => s.ids),
  )
  const { B, memLen } = enc
  const limits = srcs.map((s, b) => forced?.[b].length ?? maxTargetLength(s.ids.length, model.spec.maxTarget))
  const out: Run = { tokens: srcs.map(() => []), logProbs: srcs.map(() => []) }
  const done = new Array<boolean>(B).fill(false)
  let prev = new Array<number>(B).fill(special.bos)
  let state = enc.init
  const on = new Float32Array(B).fill(ablation === 'none' ? 0 : 1)
  const uniform = new Float32Array(B * memLen)
  enc.lengths.forEach((n, b) => uniform.fill(1 / n, b * memLen, b * memLen + n))
  for (let t = 0; t < Math.max(...limits) && done.includes(false); t++) {
    if (signal?.aborted) throw new CancelledError('The ablation was cancelled.')
    const base = { prev, state, memory: enc.memory, mask: enc.mask, keys: enc.keys, t, k: 1, logits: !!forced }
    let weights: Float32Array | null = ablation === 'uniform' ? uniform : null
    if (ablation === 'permuted') {
      const own = await step(model, { ...base, logits: false })
      weights = Float32Array.from(own.attention.data as Float32Array)
      enc.lengths.forEach((n, b) => permute(weights!.subarray(b * memLen, b * memLen + n), n, rnd))
    }
    const o = await step(model, { ...base, override: weights ? { weights, on } : null })
    state = o.next_state as ort.Tensor
    const next = [...prev]
    for (let b = 0; b < B; b++) {
      if (done[b]) continue
      const token = forced ? forced[b][t] : rowTop(model, o, b, 1).ids[0]
      out.tokens[b].push(token)
      if (forced) out.logProbs[b].push(tokenLogProb(model, o, b, token))
      next[b] = token
      if (token === special.eos || out.tokens[b].length >= limits[b]) done[b] = true
    }
    prev = next
  }
  return out
}

/** BLEU of the greedy output and the reference's mean log-probability, under one ablation. */
export async function ablationScore(
  model: LoadedModel,
  srcs: readonly string[],
  refs: readonly string[],
  ablation: Ablation,
  opts: AblationOptions = {},
): Promise<AblationScore> {
  if (srcs.length !== refs.length) throw new Error(`The source has ${srcs.length} lines but the reference has ${refs.length}.`)
  if (ablation !== 'none') {
    const why = canAblate(model)
    if (why) throw new Error(why)
  }
  const { spec } = model
  const rnd = mulberry32(opts.seed ?? 1)
  const batch = Math.max(1, opts.batchSize ?? 32)
  const order = srcs.map((_, i) => i).sort((a, b) => srcs[a].length - srcs[b].length)
  const hyps = new Array<string>(srcs.length)
  let lpSum = 0
  let lpN = 0
  for (let k = 0; k < order.length; k += batch) {
    const idx = order.slice(k, k + batch)
    const enc = idx.map((i) => encodeSource(model, srcs[i]))
    const greedy = await ablatedDecode(model, enc, ablation, null, rnd, opts.signal)
    idx.forEach((i, b) => {
      const words = greedy.tokens[b].filter((id) => id !== spec.special.eos).map((id) => spec.tgtVocab[id])
      hyps[i] = detokenize(words, spec.tgtTokenizer)
    })
    const forced = idx.map((i, b) => {
      const room = maxTargetLength(enc[b].ids.length, spec.maxTarget) - 1
      return [...targetIds(model, tokenize(refs[i], spec.tgtTokenizer).slice(0, room)), spec.special.eos]
    })
    const ref = await ablatedDecode(model, enc, ablation, forced, rnd, opts.signal)
    for (const row of ref.logProbs) for (const lp of row) [lpSum, lpN] = [lpSum + lp, lpN + 1]
    opts.onProgress?.(Math.min(k + batch, order.length), order.length)
  }
  return {
    ablation,
    bleu: Math.round(corpusBleu(hyps, [refs as string[]], { lowercase: true }).score * 100) / 100,
    refLogProb: lpN ? lpSum / lpN : 0,
    hypotheses: hyps,
  }
}

/** One model's row of the ablation table: its own attention, uniform, permuted (null: it cannot be ablated, `why` says so). */
export interface AblationSet {
  own: AblationScore
  uniform: AblationScore | null
  permuted: AblationScore | null
  why: string | null
}

/**
 * The three runs of one model on one set, progress counted over all of them (sentences done of
 * three times the set, or of one set for a model that cannot be ablated).
 */
export async function ablationSet(
  model: LoadedModel,
  srcs: readonly string[],
  refs: readonly string[],
  opts: Omit<AblationOptions, 'onProgress'> & { onProgress?: (done: number, total: number) => void } = {},
): Promise<AblationSet> {
  const why = canAblate(model)
  const runs: Ablation[] = why ? ['none'] : ['none', 'uniform', 'permuted']
  const total = runs.length * srcs.length
  const scores: Partial<Record<Ablation, AblationScore>> = {}
  for (const [k, ablation] of runs.entries()) {
    scores[ablation] = await ablationScore(model, srcs, refs, ablation, {
      ...opts,
      seed: opts.seed ?? 1,
      onProgress: (done) => opts.onProgress?.(k * srcs.length + done, total),
    })
  }
  return { own: scores.none!, uniform: scores.uniform ?? null, permuted: scores.permuted ?? null, why }
}
