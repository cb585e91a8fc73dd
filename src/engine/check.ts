import { readFile, stat } from 'node:fs/promises'
import { pairQuestion } from '../shared/language-names'
import type { CheckFeature, CheckFinding, Translation } from '../shared/api'
import { KINDS } from '../shared/attention-kinds'
import { NO_REPEAT_GUARD } from '../shared/repeat-guard'
import { contractProblems, ContractError, ENCODER_OUTPUTS, FORECAST_STEP_REQUIRED_INPUTS, HEAD_INPUTS, shown, STEP_INPUTS, type ModelSpec } from './contract'
import { forcedDecode, greedyBatch, translate, whatIf } from './decode'
import { evaluateForecast, forecastAt, FORECAST_ENCODER_FEEDS } from './forecast'
import { favouredSpecial, insideGraph, paddingCause, stateShapeProblem, type Problem } from './batch-probe'
import { firstLine, LoadedModel } from './model'
import { checkMemory } from './memory'
import { readModelFile } from './formats/model-bytes'
import { lensFile } from './formats/lens-file'
import { describeModel, formatFor, withLanguages } from './formats'
import { nodesFor, parseOnnx, type OnnxFile } from './onnx-graph'

/**
 * `attention-lens check` and the checks the app runs when it opens a model: the contract (every
 * problem, not the first), the graph's shapes and inputs, and real decodes — two lengths, two
 * batch sizes, beam search, an overridden step, a forced target — whose outputs are held to the
 * contract (rows that sum to 1, the local window, p_t's range, finite numbers). Each finding
 * names the feature that will not work and why, in one sentence, so nothing the app accepts
 * fails later with a raw onnxruntime error.
 */

export const FEATURE_NAMES: Record<CheckFeature, string> = {
  translate: 'translation',
  forecast: 'forecasting',
  batch: 'batches (BLEU by length, forecast-eval)',
  beam: 'beam search',
  'what-if': 'what-if attention',
  forced: 'scoring a given translation',
  attention: 'attention views',
  local: 'local-attention view',
}

export interface CheckReport {
  path: string
  /** The model's name, once its metadata could be read. */
  name: string | null
  spec: ModelSpec | null
  /** Why the app cannot open the file at all (each one sentence); empty when it opens. */
  fatal: string[]
  findings: CheckFinding[]
  /** What was tried and worked, in words, for the report. */
  passed: string[]
  /** The format it was read as, and what that format says of it (where the attention comes from…). */
  format?: string
  details?: string[]
  /**
   * A multilingual folder that names no language pair: which to choose and how, with its codes. It
   * opens all the same (the app asks for the pair), so this does not count in the exit code.
   */
  pairNeeded?: string
}

/** 0: every feature works; 1: some will not (the findings say which); 2: the file does not open. */
export function exitCode(r: Pick<CheckReport, 'fatal' | 'findings'>): 0 | 1 | 2 {
  if (r.fatal.length) return 2
  return r.findings.some((f) => f.level === 'error' && !f.notOffered) ? 1 : 0
}

/** The features a model cannot use (error findings). */
export function blocked(findings: readonly CheckFinding[] | undefined, feature: CheckFeature): CheckFinding | undefined {
  return findings?.find((f) => f.level === 'error' && f.feature === feature)
}

/** Tolerances: float32 outputs of a softmax, compared with what the contract says they are. */
const SUM_TOL = 1e-3
const VALUE_TOL = 1e-3
const ZERO_TOL = 1e-6

/** The step inputs what-if puts its weights through. */
const OVERRIDE_INPUTS = ['attn_override', 'override_on'] as const

class Findings {
  readonly list: CheckFinding[] = []
  readonly passed: string[] = []

  error(feature: CheckFeature, what: string | Problem): void {
    this.add('error', feature, what)
  }

  warn(feature: CheckFeature, what: string | Problem): void {
    this.add('warning', feature, what)
  }

  /** A feature the model's format cannot offer: off, but no fault of the model (`check` exits 0 for it). */
  notOffered(feature: CheckFeature, message: string): void {
    this.list.push({ level: 'error', feature, message, notOffered: true })
  }

  private add(level: CheckFinding['level'], feature: CheckFeature, what: string | Problem): void {
    const { message, detail } = typeof what === 'string' ? { message: what, detail: undefined } : what
    // One explanation per feature and level is enough: a static finding already says why a decode fails.
    if (this.list.some((f) => f.feature === feature && f.message === message)) return
    this.list.push({ level, feature, message, ...(detail ? { detail } : {}) })
  }

  has(feature: CheckFeature): boolean {
    return this.list.some((f) => f.feature === feature && f.level === 'error')
  }
}

// ---------------------------------------------------------------------------------------------
// The graph, without running it

/** The axes of each contract tensor: B (batch), S (source or history steps), or a size the model fixes. */
const AXES: Record<string, string> = {
  src_ids: 'BS',
  src_mask: 'BS',
  encoder_states: 'BS-',
  state: 'B-',
  prev_token: 'B',
  step: 'B',
  attn_override: 'BS',
  override_on: 'B',
  history: 'BS-',
  prev_value: 'B',
  step_features: 'B-',
  encoder_out: 'BS-',
  decoder_init: 'B-',
  logits: 'B-',
  forecast: 'B',
  next_state: 'B-',
  attention: 'BS',
  scores: 'BS',
  position: 'B',
  window: 'B-',
  gaussian: 'BS',
  align: 'BS',
  cross_attention: 'B--S',
  head_gate: 'B--',
  head_override: 'B--',
}

const quoteList = (names: string[]) =>
  names
    .slice(0, 4)
    .map((n) => `"${n}"`)
    .join(', ') + (names.length > 4 ? ` and ${names.length - 4} more` : '')
const dimsText = (dims: (number | string | null)[]) => `[${dims.map((d) => (d === null ? '?' : typeof d === 'number' ? String(d) : shown(d))).join(', ')}]`

/** Fixed batch and length dimensions: shapes that break batches, beam search or other lengths. */
function fixedDimensions(file: OnnxFile, spec: ModelSpec, out: Findings): void {
  const forecasting = spec.task === 'forecasting'
  const fixedB = new Map<number, string[]>()
  const fixedS: string[] = []
  const example = new Map<string, string>()
  for (const [where, values] of [
    ['input', file.inputs],
    ['output', file.outputs],
  ] as const) {
    for (const [name, v] of values) {
      const axes = AXES[name]
      if (!axes) continue
      v.dims.forEach((d, i) => {
        if (typeof d !== 'number') return
        if (axes[i] === 'B') {
          fixedB.set(d, [...(fixedB.get(d) ?? []), name])
          example.set(name, `${where} "${name}" is ${dimsText(v.dims)}`)
        } else if (axes[i] === 'S') {
          // The no-attention model's one fixed context, and a forecaster's history, may be static.
          const oneContext = !KINDS[spec.attention].attends && (name === 'encoder_states' || name === 'encoder_out') && d === 1
          const history = forecasting && d === spec.forecast?.history
          if (!oneContext && !history) {
            fixedS.push(name)
            example.set(name, `${where} "${name}" is ${dimsText(v.dims)}`)
          }
        }
      })
    }
  }
  const hint = 'export with dynamic axes (torch.onnx.export(..., dynamic_axes=...), see "Dynamic axes" in docs/model-format.md)'
  for (const [size, names] of fixedB) {
    if (size === 1) {
      const first = example.get(names[0])
      if (!forecasting)
        out.error(
          'beam',
          `Beam search decodes its hypotheses as one batch, but the batch size is fixed at 1 (${first}${names.length > 1 ? `; also ${quoteList(names.slice(1))}` : ''}): ${hint}.`,
        )
      out.warn(
        'batch',
        `The batch size is fixed at 1 (${first}), so ${forecasting ? 'forecast-eval runs one origin' : 'BLEU by length decodes one sentence'} at a time (slower): ${hint}.`,
      )
    } else {
      out.error(
        forecasting ? 'forecast' : 'translate',
        `The batch size is fixed at ${size} (${example.get(names[0])}), but the app decodes one ${forecasting ? 'series' : 'sentence'} at a time: ${hint}.`,
      )
    }
  }
  if (fixedS.length) {
    const what = forecasting ? `history steps (al.forecast's "history" is ${spec.forecast?.history})` : 'source length (tokens with the final </s>)'
    out.error(
      forecasting ? 'forecast' : 'translate',
      `The ${what} is fixed (${example.get(fixedS[0])}${fixedS.length > 1 ? `; also ${quoteList(fixedS.slice(1))}` : ''}), so other lengths fail: ${hint}.`,
    )
  }
}

/** Graph inputs the parts read but the app never feeds, and contract inputs nothing reads. */
function inputUse(file: OnnxFile, spec: ModelSpec, out: Findings): void {
  const graph = file.model.graph!
  const forecasting = spec.task === 'forecasting'
  const main: CheckFeature = forecasting ? 'forecast' : 'translate'
  const initialized = new Set(graph.initializer.map((t) => t.name))
  const encoderReads = nodesFor(graph, [...ENCODER_OUTPUTS]).names
  const stepReads = nodesFor(graph, spec.stepOutputs).names
  const encoderFeeds = new Set<string>(forecasting ? FORECAST_ENCODER_FEEDS : ['src_ids', 'src_mask'])
  const transformer = KINDS[spec.attention].heads
  const stepFeeds = new Set<string>(
    forecasting
      ? [...FORECAST_STEP_REQUIRED_INPUTS, 'src_mask', 'step', 'attn_override', 'override_on']
      : [...STEP_INPUTS, ...(transformer ? HEAD_INPUTS : [])],
  )
  for (const v of graph.input) {
    if (initialized.has(v.name)) continue // an input with a default (IR < 4 lists initializers as inputs)
    const byEncoder = encoderReads.has(v.name)
    const byStep = stepReads.has(v.name)
    if ((byEncoder && !encoderFeeds.has(v.name)) || (byStep && !stepFeeds.has(v.name))) {
      const part = byEncoder && !encoderFeeds.has(v.name) ? 'encoder' : 'decoder step'
      const fed = [...(part === 'encoder' ? encoderFeeds : stepFeeds)].join(', ')
      out.error(
        main,
        `The ${part} reads the input "${shown(v.name)}", which the app never feeds (it feeds ${fed}): give it a default value (an initializer) or remove it.`,
      )
    } else if (!byEncoder && !byStep && !file.outputs.has(v.name)) {
      out.warn(main, `The input "${shown(v.name)}" is declared but no part of the model reads it; the app ignores it.`)
    }
  }
  const declared = (n: string) => file.inputs.has(n) && !initialized.has(n)
  if (declared('src_mask') && !encoderReads.has('src_mask') && !stepReads.has('src_mask')) {
    out.warn(
      'batch',
      'No part of the model reads "src_mask", so padding is not masked: sentences decoded together in a batch (BLEU by length, beam search) can come out differently from the same sentences decoded alone.',
    )
  }
  if (!KINDS[spec.attention].attends) return
  const override = ['attn_override', 'override_on']
  const missing = override.filter((n) => !declared(n))
  if (missing.length) {
    out.error(
      'what-if',
      `The decoder step has no input ${quoteList(missing)}, so its attention cannot be overridden (what-if attention): add attn_override [B, S] and override_on [B] and use the override in place of the computed weights.`,
    )
  } else {
    const unread = override.filter((n) => !stepReads.has(n))
    if (unread.length)
      out.error(
        'what-if',
        `The decoder step declares ${quoteList(unread)} but nothing computes its outputs from ${unread.length > 1 ? 'them' : 'it'}, so overriding attention would change nothing.`,
      )
  }
  if (transformer) {
    // Optional inputs: without them the heads still show, but one cannot be silenced or forced.
    const absent = HEAD_INPUTS.filter((n) => !declared(n))
    if (absent.length) {
      out.warn(
        'what-if',
        `The decoder step has no input ${quoteList(absent)}, so what-if cannot ${absent.length > 1 ? 'silence or force one head' : absent[0] === 'head_gate' ? 'silence a head' : 'force one head'}: add head_gate and head_override [B, L, H] (docs/model-format.md, "Transformer models").`,
      )
    }
    const unread = HEAD_INPUTS.filter((n) => declared(n) && !stepReads.has(n))
    if (unread.length) {
      out.warn(
        'what-if',
        `The decoder step declares ${quoteList(unread)} but nothing computes its outputs from ${unread.length > 1 ? 'them' : 'it'}, so silencing or forcing one head would change nothing.`,
      )
    }
    if (!stepReads.has('step')) {
      out.error(
        'translate',
        'The transformer does not read the input "step", its position encoding (and, with a cache of fixed size, the slot it writes): every step would be position 0.',
      )
    }
  }
  if (!forecasting && KINDS[spec.attention].window === 'monotonic' && !stepReads.has('step')) {
    out.warn('local', 'The local-m model does not read the input "step" (the output position t), so it cannot compute p_t = min(t·r, S−1) from it.')
  }
}

/** What the graph alone says: shapes, inputs. */
export function staticFindings(file: OnnxFile, spec: ModelSpec): CheckFinding[] {
  const out = new Findings()
  fixedDimensions(file, spec, out)
  inputUse(file, spec, out)
  return out.list
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** Plain words from the source vocabulary, so the probe sentences are made of known tokens. */
export function probeWords(spec: ModelSpec, n: number): string[] {
  const specials = new Set(Object.values(spec.special))
  const words: string[] = []
  for (let i = 0; i < spec.srcVocab.length && words.length < n; i++) {
    if (specials.has(i)) continue
    const w = spec.srcVocab[i].replace(/^[\u2581\u0120]/, '')
    if (/^[\p{L}\p{N}]+$/u.test(w) && !words.includes(w)) words.push(w)
  }
  const fallback = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']
  while (words.length < n) words.push(fallback[words.length % fallback.length])
  return words
}

/** What failed, readable: a contract error's sentence, or onnxruntime's reason without its node names (those go to `detail`). */
function failure(what: string, e: unknown): Problem {
  return e instanceof ContractError ? { message: `${what} fails: ${firstLine(e).replace(/\.$/, '')}.` } : insideGraph(what, e)
}

/** A problem's sentence going on with "; `more`." */
const goingOn = (p: Problem, more: string): Problem => ({ ...p, message: `${p.message.replace(/\.$/, '')}; ${more}.` })

/**
 * Where a batch's output parts from the sentence's own, quoted from a little before that token:
 * 'comes out differently from output token 4 on: alone "…", in the batch "…"'.
 */
function divergence(alone: string[], batched: string[]): string {
  let k = 0
  while (k < alone.length && k < batched.length && alone[k] === batched[k]) k++
  if (k === alone.length && k === batched.length) return 'gets different attention weights'
  const from = Math.max(0, k - 2)
  const part = (t: string[]) => `"${from > 0 ? '… ' : ''}${t.slice(from, k + 4).join(' ')}${t.length > k + 4 ? ' …' : ''}"`
  return `comes out differently from output token ${k + 1} on: alone ${part(alone)}, in the batch ${part(batched)}`
}

const fmt = (x: number) => (Math.abs(x) >= 100 || x === 0 ? x.toFixed(0) : x.toPrecision(3))
const quoteText = (s: string) => `"${s.length > 30 ? s.slice(0, 30) + '…' : s}"`

interface Rows {
  attention: number[][]
  crossAttention?: number[][][][]
  positions: number[] | null
  windows: [number, number][] | null
  gaussian: number[][] | null
  align: number[][] | null
}

/**
 * The attention outputs of one decode held to the contract: each row over the S real positions,
 * finite; global attention (and local-m's) sums to 1; local-p's align sums to 1 and attention is
 * align × gaussian; p_t lies in its range, the window is [p_t − D, p_t + D], nothing outside it
 * gets weight, and local-p's gaussian is exp(−(s − p_t)² / (2σ²)), σ = D/2.
 */
function checkRows(spec: ModelSpec, r: Rows, S: number, what: string, out: Findings): void {
  const kind = KINDS[spec.attention]
  if (!kind.attends) return
  const local = kind.window !== null
  const D = spec.windowD
  const at = (t: number) => `at output step ${t + 1} of ${what}`
  for (let t = 0; t < r.attention.length; t++) {
    const row = r.attention[t]
    if (row.length !== S) {
      out.error(
        'attention',
        `The attention output ${at(t)} has ${row.length} weights for ${S} source positions: it must be [B, S], one weight per encoder state.`,
      )
      return
    }
    const bad = row.findIndex((x) => !Number.isFinite(x) || x < -ZERO_TOL || x > 1 + VALUE_TOL)
    if (bad >= 0) {
      out.error('attention', `The attention weight ${at(t)}, source position ${bad + 1}, is ${fmt(row[bad])}, not a weight between 0 and 1.`)
      return
    }
    const sum = row.reduce((a, b) => a + b, 0)
    if (kind.window !== 'predictive' && Math.abs(sum - 1) > SUM_TOL) {
      out.error(
        'attention',
        `The attention weights ${at(t)} sum to ${sum.toFixed(3)}, not 1: "attention" must be ${kind.heads ? "the mean of the cross-attention heads' weights" : 'the softmax over the source positions (0 on padding)'}.`,
      )
      return
    }
    if (spec.heads && !checkHeads(r.crossAttention?.[t], row, S, at(t), out)) return
    if (!local) continue
    const p = r.positions?.[t]
    const w = r.windows?.[t]
    if (p === undefined || w === undefined || !Number.isFinite(p)) {
      out.error('local', `The position p_t ${at(t)} is ${p === undefined ? 'missing' : fmt(p)}, not a number.`)
      return
    }
    const hi = kind.window === 'predictive' ? S : S - 1
    if (p < -VALUE_TOL || p > hi + VALUE_TOL) {
      out.error(
        'local',
        `p_t ${at(t)} is ${fmt(p)}, outside [0, ${hi}] for a source of S = ${S} tokens (with </s>): ${kind.window === 'predictive' ? 'p_t = S·sigmoid(…)' : 'p_t = min(t·r, S−1)'}.`,
      )
      return
    }
    if (Math.abs(w[0] - (p - D)) > VALUE_TOL || Math.abs(w[1] - (p + D)) > VALUE_TOL) {
      out.error(
        'local',
        `The window ${at(t)} is [${fmt(w[0])}, ${fmt(w[1])}], not [p_t − D, p_t + D] = [${fmt(p - D)}, ${fmt(p + D)}] with D = ${D} from "al.window_d".`,
      )
      return
    }
    const outside = row.findIndex((x, s) => Math.abs(s - p) > D + VALUE_TOL && x > ZERO_TOL)
    if (outside >= 0) {
      out.error(
        'local',
        `Source position ${outside + 1} gets weight ${fmt(row[outside])} ${at(t)}, though it lies outside the window [${fmt(p - D)}, ${fmt(p + D)}] (D = ${D} from "al.window_d"): weights outside the window must be 0.`,
      )
      return
    }
    const align = r.align?.[t]
    const gauss = r.gaussian?.[t]
    if (!align || !gauss) continue
    if (kind.window === 'predictive') {
      const sigma = D / 2
      const off = gauss.findIndex((g, s) => !(Math.abs(g - Math.exp(-((s - p) ** 2) / (2 * sigma * sigma))) <= VALUE_TOL))
      if (off >= 0) {
        const want = Math.exp(-((off - p) ** 2) / (2 * sigma * sigma))
        out.error(
          'local',
          `The gaussian output ${at(t)} is ${fmt(gauss[off])} at source position ${off + 1}, not exp(−(s − p_t)²/(2σ²)) = ${fmt(want)} with σ = D/2 = ${sigma} (D from "al.window_d").`,
        )
        return
      }
      const alignSum = align.reduce((a, b) => a + b, 0)
      if (Math.abs(alignSum - 1) > SUM_TOL) {
        out.error('local', `The align output ${at(t)} sums to ${alignSum.toFixed(3)}, not 1: it must be the softmax of the scores over the window.`)
        return
      }
      const prod = row.findIndex((a, s) => !(Math.abs(a - align[s] * gauss[s]) <= VALUE_TOL))
      if (prod >= 0) {
        out.error(
          'local',
          `The attention ${at(t)} is ${fmt(row[prod])} at source position ${prod + 1}, not align × gaussian = ${fmt(align[prod] * gauss[prod])}.`,
        )
        return
      }
    }
  }
}

/**
 * One step of a transformer's `cross_attention` ([L][H][S]): every head's row over the S real
 * positions sums to 1 (the defaults: no override, every gate 1), and `attention` is their mean.
 */
function checkHeads(heads: number[][][] | undefined, attention: number[], S: number, at: string, out: Findings): boolean {
  if (!heads) {
    out.error('attention', `The transformer returned no cross_attention ${at}.`)
    return false
  }
  const mean = new Array<number>(S).fill(0)
  const n = heads.reduce((a, l) => a + l.length, 0)
  for (let l = 0; l < heads.length; l++) {
    for (let h = 0; h < heads[l].length; h++) {
      const w = heads[l][h]
      const sum = w.reduce((a, b) => a + b, 0)
      const bad = w.findIndex((x) => !Number.isFinite(x) || x < -ZERO_TOL || x > 1 + VALUE_TOL)
      if (bad >= 0 || Math.abs(sum - 1) > SUM_TOL) {
        out.error(
          'attention',
          `The cross_attention of layer ${l}, head ${h} ${at} ${bad >= 0 ? `is ${fmt(w[bad])} at source position ${bad + 1}, not a weight between 0 and 1` : `sums to ${sum.toFixed(3)}, not 1`}: each head's row must be its softmax over the source positions.`,
        )
        return false
      }
      w.forEach((x, s) => (mean[s] += x / n))
    }
  }
  const off = mean.findIndex((x, s) => Math.abs(x - attention[s]) > VALUE_TOL)
  if (off >= 0) {
    out.error(
      'attention',
      `The attention ${at} is ${fmt(attention[off])} at source position ${off + 1}, but the mean of the ${n} cross_attention heads there is ${fmt(mean[off])}: "attention" must be the heads' average.`,
    )
    return false
  }
  return true
}

function checkLogProbs(t: Pick<Translation, 'tokenLogProbs'>, what: string, feature: CheckFeature, out: Findings): boolean {
  const bad = t.tokenLogProbs.findIndex((x) => !Number.isFinite(x))
  if (bad < 0) return true
  out.error(
    feature,
    `The logits hold NaN or infinite values at output step ${bad + 1} of ${what}: check the weights and anything that divides or takes a logarithm.`,
  )
  return false
}

const sameRows = (a: number[][], b: number[][]) =>
  a.length === b.length && a.every((r, t) => r.length === b[t].length && r.every((x, s) => Math.abs(x - b[t][s]) <= VALUE_TOL))

async function probeTranslation(model: LoadedModel, out: Findings): Promise<void> {
  const { spec } = model
  const words = probeWords(spec, 9)
  const texts: [string, string] = [words.slice(0, 3).join(' '), words.join(' ')]
  // One step on both sentences at once, before any decode: a shape that cannot work is named in
  // words (a state that grows with the source, an input fixed at export), not by onnxruntime. A
  // batch size fixed at 1, already found in the graph, is not tried.
  let shape: Problem | null = null
  if (!out.list.some((f) => f.feature === 'batch' || f.feature === 'translate')) {
    shape = await stateShapeProblem(model, texts).catch((e: unknown) => insideGraph('Encoding two sentences of different lengths', e))
    if (shape?.fatal) return out.error('translate', shape)
  }
  const singles: Translation[] = []
  for (const text of texts) {
    try {
      // The model's own outputs (no repeat guard): a guard could hide where a batch parts from them.
      singles.push((await greedyBatch(model, [text], { topK: 1, encoderStates: false, guard: NO_REPEAT_GUARD }))[0])
    } catch (e) {
      // A fixed shape found in the graph, or by the batch step above, already says why, better than onnxruntime does.
      // A transformer is fed head inputs shaped by its metadata: say so, as onnxruntime will not.
      const g = spec.heads
      const fed = g ? HEAD_INPUTS.filter((n) => model.stepInputs.has(n)) : []
      const hint = g && fed.length ? ` (fed ${fed.join(' and ')} as [B, ${g.layers}, ${g.heads}] from "al.layers" and "al.heads")` : ''
      if (!out.has('translate')) out.error('translate', shape?.input ? shape : failure(`Translating ${quoteText(text)}${hint}`, e))
      return
    }
  }
  singles.forEach((t, i) => {
    const what = quoteText(texts[i])
    if (!checkLogProbs(t, what, 'translate', out)) return
    checkRows(spec, t, t.srcTokens.length, what, out)
  })
  // No decoder writes <pad>, <s> or <unk>: a model that ranks one of them first is worth a note.
  const favoured = shape ? null : await favouredSpecial(model, texts).catch(() => null)
  if (favoured) {
    out.warn(
      'translate',
      `The model ranks ${shown(favoured)} first at the first step of both ${quoteText(texts[0])} and ${quoteText(texts[1])}; no decoder writes it, so the translations start from its second choice: check the weights and "al.special_tokens".`,
    )
  }
  if (out.has('translate')) return
  out.passed.push(`greedy decoding at two lengths (${singles.map((t) => t.srcTokens.length).join(' and ')} source tokens)`)

  // Two sentences of different lengths in one batch must come out as they do alone.
  const oneAtATime = 'BLEU by length decodes this model one sentence at a time (the same scores, slower)'
  if (shape) out.warn('batch', goingOn(shape, `so ${oneAtATime}`))
  else {
    try {
      const batch = await greedyBatch(model, texts, { topK: 1, encoderStates: false, guard: NO_REPEAT_GUARD })
      const differs = batch.findIndex((t, i) => t.tgtTokens.join(' ') !== singles[i].tgtTokens.join(' ') || !sameRows(t.attention, singles[i].attention))
      if (differs >= 0 && !out.list.some((f) => f.feature === 'batch')) {
        const cause = await paddingCause(model, texts).catch(() => 'the model does not ignore the padding of the shorter sentence')
        out.warn(
          'batch',
          `Decoded in one batch with a sentence of another length, ${quoteText(texts[differs])} ${divergence(singles[differs].tgtTokens, batch[differs].tgtTokens)}: ${cause}. Meanwhile ${oneAtATime}.`,
        )
      } else if (differs < 0) out.passed.push('a batch of two sentences of different lengths, identical to decoding them alone')
    } catch (e) {
      if (!out.list.some((f) => f.feature === 'batch')) out.warn('batch', goingOn(failure('Decoding two sentences as one batch', e), `so ${oneAtATime}`))
    }
  }

  try {
    const beam = await translate(model, texts[0], { beam: 4 })
    if (checkLogProbs(beam, `${quoteText(texts[0])} with beam 4`, 'beam', out)) out.passed.push('beam search with 4 hypotheses')
  } catch (e) {
    if (!out.has('beam')) out.error('beam', failure('Beam search (4 hypotheses)', e))
  }

  try {
    const target = probeWords({ ...spec, srcVocab: spec.tgtVocab }, 3).join(' ')
    const forced = await forcedDecode(model, texts[0], target)
    if (checkLogProbs(forced, `${quoteText(texts[0])} forced to ${quoteText(target)}`, 'forced', out))
      out.passed.push('scoring a given translation (forced decoding)')
  } catch (e) {
    out.error('forced', failure('Scoring a given translation (forced decoding)', e))
  }

  // Another format's graph (a Hugging Face folder) computes its attention inside, with no input
  // to put weights into it: what-if is not there to offer, which is no fault of the folder.
  if (KINDS[spec.attention].attends && model.format !== lensFile.id && !OVERRIDE_INPUTS.every((n) => model.stepInputs.has(n)))
    out.notOffered(
      'what-if',
      "A Hugging Face folder's exported graph computes its attention inside, with no input to put weights of your choosing into it, so this format cannot offer what-if (replacing the attention at a step). Every other view works.",
    )
  if (KINDS[spec.attention].attends && !out.has('what-if')) {
    try {
      const r = await whatIf(model, { modelId: '', text: texts[0], steps: [0], mode: 'uniform' })
      const row = r.modified.attention[0] ?? []
      const S = r.modified.srcTokens.length
      const off = row.findIndex((x) => Math.abs(x - 1 / S) > VALUE_TOL)
      if (row.length !== S || off >= 0) {
        out.error(
          'what-if',
          `With override_on = 1 and uniform weights in attn_override (1/${S} each), the attention output at the first step is ${off >= 0 ? fmt(row[off]) : 'missing'} at source position ${off + 1}: the model must use attn_override in place of its own weights (and return it as "attention").`,
        )
      } else out.passed.push('an overridden step (what-if attention)')
    } catch (e) {
      out.error('what-if', failure('Overriding the attention at one step', e))
    }
  }
  if (spec.heads && !out.has('what-if') && HEAD_INPUTS.every((n) => model.stepInputs.has(n))) await probeHeads(model, texts[0], out)
}

/**
 * A transformer's per-head what-ifs at the first step: a silenced head (gate 0) drops out of
 * `attention`, the average of the heads still counted; a head switched to `attn_override` returns
 * those weights. Warnings: the whole-attention override, checked above, still works without them.
 */
async function probeHeads(model: LoadedModel, text: string, out: Findings): Promise<void> {
  const { layers, heads } = model.spec.heads!
  try {
    const r = await whatIf(model, { modelId: '', text, steps: [0], mode: 'silence', head: { layer: 0, head: 0 } })
    const cross = r.modified.crossAttention?.[0]
    const row = r.modified.attention[0] ?? []
    const kept = cross?.flatMap((l, li) => l.filter((_, hi) => li !== 0 || hi !== 0)) ?? []
    const want = row.map((_, s) => (kept.length ? kept.reduce((a, w) => a + w[s], 0) / kept.length : 0))
    const off = row.findIndex((x, s) => Math.abs(x - want[s]) > VALUE_TOL)
    if (!cross || off >= 0) {
      out.warn(
        'what-if',
        `With head_gate 0 for layer 0, head 0 at the first step, the attention output is ${off >= 0 ? fmt(row[off]) : 'missing'} at source position ${off + 1}, not the mean of the other ${kept.length} heads (${off >= 0 ? fmt(want[off]) : '?'}): the model must scale each head's output by head_gate and average only the heads it uses.`,
      )
    } else out.passed.push('a silenced head (what-if, head_gate)')
  } catch (e) {
    out.warn('what-if', failure('Silencing one head at one step', e))
  }
  const [l, h] = [layers - 1, heads - 1]
  try {
    const r = await whatIf(model, { modelId: '', text, steps: [0], mode: 'uniform', head: { layer: l, head: h } })
    const S = r.modified.srcTokens.length
    const w = r.modified.crossAttention?.[0]?.[l]?.[h] ?? []
    const off = w.findIndex((x) => Math.abs(x - 1 / S) > VALUE_TOL)
    if (w.length !== S || off >= 0) {
      out.warn(
        'what-if',
        `With head_override 1 for layer ${l}, head ${h} and uniform weights in attn_override (1/${S} each), that head's cross_attention at the first step is ${off >= 0 ? fmt(w[off]) : 'missing'} at source position ${off + 1}: the head must use attn_override in place of its own weights.`,
      )
    } else out.passed.push('one head overridden (what-if, head_override)')
  } catch (e) {
    out.warn('what-if', failure('Overriding one head at one step', e))
  }
}

/** A regular series long enough for one forecast and a batch of two. */
function probeSeries(spec: ModelSpec): { timestamps: string[]; values: number[] } {
  const f = spec.forecast!
  const n = f.history + f.horizon + 1
  const start = Date.UTC(2001, 0, 1) // a Monday at midnight
  const perDay = 1440 / f.periodMinutes
  return {
    timestamps: Array.from({ length: n }, (_, i) => new Date(start + i * f.periodMinutes * 60_000).toISOString().slice(0, 19) + 'Z'),
    values: Array.from({ length: n }, (_, i) => f.mean + f.std * Math.sin((2 * Math.PI * i) / perDay)),
  }
}

async function probeForecast(model: LoadedModel, out: Findings): Promise<void> {
  const { spec } = model
  const f = spec.forecast!
  const s = probeSeries(spec)
  try {
    const r = await forecastAt(model, s, f.history)
    const bad = r.forecast.findIndex((x) => !Number.isFinite(x))
    if (bad >= 0) {
      out.error('forecast', `The forecast holds NaN or infinite values at step ${bad + 1}: check the weights and anything that divides or takes a logarithm.`)
      return
    }
    checkRows(spec, r, f.history, 'a forecast', out)
    out.passed.push(`a forecast of ${f.horizon} steps from ${f.history} history steps`)
  } catch (e) {
    if (!out.has('forecast')) out.error('forecast', failure('Forecasting', e))
    return
  }
  if (KINDS[spec.attention].attends && !out.has('what-if')) {
    const H = f.history
    try {
      const r = await forecastAt(model, s, H, (t, n) => (t === 0 ? new Float32Array(n).fill(1 / n) : null))
      const row = r.attention[0] ?? []
      const off = row.findIndex((x) => Math.abs(x - 1 / H) > VALUE_TOL)
      if (row.length !== H || off >= 0) {
        out.error(
          'what-if',
          `With override_on = 1 and uniform weights in attn_override (1/${H} each), the attention output at the first step is ${off >= 0 ? fmt(row[off]) : 'missing'} at history step ${off + 1}: the model must use attn_override in place of its own weights (and return it as "attention").`,
        )
      } else out.passed.push('an overridden step (what-if attention)')
    } catch (e) {
      out.error('what-if', failure('Overriding the attention at one step', e))
    }
  }
  try {
    await evaluateForecast(model, s, [f.history, f.history + 1])
    out.passed.push('a batch of two forecast origins')
  } catch (e) {
    if (!out.list.some((x) => x.feature === 'batch'))
      out.warn('batch', goingOn(failure('Forecasting from two origins as one batch', e), 'forecast-eval runs one origin at a time (slower)'))
  }
}

/** Decodes with the model and holds what comes out to the contract. */
export async function probeFindings(model: LoadedModel, known: CheckFinding[] = []): Promise<{ findings: CheckFinding[]; passed: string[] }> {
  const out = new Findings()
  out.list.push(...known)
  if (model.spec.task === 'forecasting') await probeForecast(model, out)
  else await probeTranslation(model, out)
  return { findings: out.list, passed: out.passed }
}

// ---------------------------------------------------------------------------------------------
// The whole check

/** Everything about a file, as `attention-lens check` reports it. */
export async function checkFile(path: string, provider = 'cpu'): Promise<CheckReport> {
  const format = await formatFor(path)
  if (format.id !== lensFile.id) return checkOtherFormat(path, format.id, provider)
  const report: CheckReport = { path, name: null, spec: null, fatal: [], findings: [], passed: [], format: format.id }
  let file: OnnxFile
  try {
    const size = (await stat(path).catch(() => null))?.size
    if (size) checkMemory('The model', size)
    file = await readModelFile(path)
  } catch (e) {
    report.fatal.push((e as Error).message)
    return report
  }
  report.name = file.metadata.get('al.name') ?? null
  const { spec, problems } = contractProblems(file)
  if (!spec) {
    report.fatal.push(...problems)
    return report
  }
  report.spec = spec
  report.name = spec.name
  const known = staticFindings(file, spec)
  let model: LoadedModel
  try {
    model = await LoadedModel.open(path, provider)
  } catch (e) {
    report.fatal.push((e as Error).message)
    report.findings = known
    return report
  }
  try {
    const probed = await probeFindings(model, known)
    report.findings = probed.findings
    report.passed = probed.passed
  } finally {
    await model.release()
  }
  return report
}

/** A model of another format (a Hugging Face folder): opened as the app opens it, then probed. */
async function checkOtherFormat(path: string, format: string, provider: string): Promise<CheckReport> {
  const report: CheckReport = { path, name: null, spec: null, fatal: [], findings: [], passed: [], format, details: [] }
  // A folder that names no language pair opens (the app asks for one): it is checked translating
  // the stand-in pair it opens with, and the report asks for the pair (the exit code does not count it).
  let opened = path
  const described = await describeModel(path).catch(() => null)
  if (described?.needsLanguages) {
    opened = withLanguages(path, described.srcLang, described.tgtLang)
    report.pairNeeded = `${pairQuestion(described.name, described.languages ?? described.targetLanguages ?? [])} Checked translating ${described.srcLang} → ${described.tgtLang}.`
  }
  let model: LoadedModel
  try {
    model = await LoadedModel.open(opened, provider)
  } catch (e) {
    report.fatal.push((e as Error).message)
    return report
  }
  try {
    report.spec = model.spec
    report.name = model.spec.name
    report.details = model.formatDetails
    const probed = await probeFindings(model, [])
    report.findings = probed.findings
    report.passed = probed.passed
  } finally {
    await model.release()
  }
  return report
}

/**
 * The checks the app runs when it opens a model (the same as `check`'s, on the sessions already
 * made). A model whose main feature fails is refused with the reason; the findings of the others
 * travel with the model info, and the service keeps the features they name off.
 */
export async function openingFindings(model: LoadedModel, bytes?: Uint8Array): Promise<CheckFinding[]> {
  // A folder that names no language pair opens, and the app asks for one (ModelInfo.needsLanguages) before decoding.
  if (model.spec.needsLanguages) return []
  // The static checks read the app's own one-file format; another format's files were checked as it opened them.
  const known = model.format === lensFile.id ? staticFindings(parseOnnx(bytes ?? new Uint8Array(await readFile(model.path))), model.spec) : []
  const { findings } = await probeFindings(model, known)
  const main = model.spec.task === 'forecasting' ? 'forecast' : 'translate'
  const fatal = blocked(findings, main)
  if (fatal) {
    const more = findings.filter((f) => f.level === 'error' && f !== fatal).length
    throw new ContractError(
      `The model opens but cannot be used: ${fatal.message}${more ? ` (attention-lens check lists ${more} more problem${more > 1 ? 's' : ''})` : ''}`,
      {
        problems: findings.filter((f) => f.level === 'error').map((f) => f.message),
      },
    )
  }
  return findings
}
