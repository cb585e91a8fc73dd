import { LensError } from '../shared/errors'
import { KINDS } from '../shared/attention-kinds'
import { TensorProto_DataLocation, TensorProto_DataType, type TensorProto } from './onnx-proto'
import { ATTENTION_KINDS, type AttentionKind, type ForecastScore, type ForecastSpec, type LocalScore, type ModelTask, type TestScore } from '../shared/api'
import type { OnnxFile } from './onnx-graph'
import { parseTokenizerSpec, TokenizerSpecError, type TokenizerSpec } from './tokenizer'

/**
 * The one-file model contract (docs/model-format.md), checked when a file is opened. Every
 * problem is one sentence naming what is wrong and quoting the value the file holds;
 * `contractProblems` lists them all, `checkContract` refuses the file with the first.
 */
export const FORMAT_VERSION = '1'
export const ENCODER_INPUTS = ['src_ids', 'src_mask'] as const
export const ENCODER_OUTPUTS = ['encoder_out', 'decoder_init'] as const
export const STEP_INPUTS = ['prev_token', 'state', 'encoder_states', 'src_mask', 'step', 'attn_override', 'override_on'] as const
export const STEP_REQUIRED_INPUTS = ['prev_token', 'state', 'encoder_states'] as const
/** Step inputs the app feeds when the model declares them. */
export const STEP_OPTIONAL_INPUTS = ['src_mask', 'step', 'attn_override', 'override_on'] as const
export const STEP_OUTPUTS_BASE = ['logits', 'next_state'] as const
export const STEP_OUTPUTS_ATTENTION = ['attention', 'scores'] as const
export const STEP_OUTPUTS_LOCAL = ['position', 'window', 'gaussian', 'align'] as const
/**
 * The transformer kind (docs/model-format.md, "Transformer models"): every cross-attention head's
 * weights [B, L, H, S] in place of `scores`, and two step inputs [B, L, H] the app feeds when the
 * step declares them (a gate per head, default 1; a per-head switch to `attn_override`, default 0).
 */
export const STEP_OUTPUT_CROSS = 'cross_attention'
export const HEAD_INPUTS = ['head_gate', 'head_override'] as const
/** The forecasting variant: float history in, one float forecast per step out. */
export const FORECAST_ENCODER_INPUTS = ['history'] as const
export const FORECAST_STEP_REQUIRED_INPUTS = ['prev_value', 'step_features', 'state', 'encoder_states'] as const
export const FORECAST_ATTENTION_KINDS: readonly AttentionKind[] = ['none', 'luong-general', 'local-p']
export const LOCAL_SCORES: readonly LocalScore[] = ['dot', 'general', 'concat']

const T = TensorProto_DataType
/** onnx.TensorProto.DataType by name, as numpy and PyTorch users know them. */
const DTYPE_NAMES: Record<number, string> = {
  [T.FLOAT]: 'float32',
  [T.UINT8]: 'uint8',
  [T.INT8]: 'int8',
  [T.UINT16]: 'uint16',
  [T.INT16]: 'int16',
  [T.INT32]: 'int32',
  [T.INT64]: 'int64',
  [T.STRING]: 'string',
  [T.BOOL]: 'bool',
  [T.FLOAT16]: 'float16',
  [T.DOUBLE]: 'float64 (double)',
  [T.UINT32]: 'uint32',
  [T.UINT64]: 'uint64',
  [T.COMPLEX64]: 'complex64',
  [T.COMPLEX128]: 'complex128',
  [T.BFLOAT16]: 'bfloat16',
  17: 'float8e4m3fn',
  18: 'float8e4m3fnuz',
  19: 'float8e5m2',
  20: 'float8e5m2fnuz',
  21: 'uint4',
  22: 'int4',
  23: 'float4e2m1',
}

/** The name of an ONNX element type ("float16", not "type 10"). */
export function dtypeName(elemType: number): string {
  if (elemType === T.UNDEFINED) return 'of no declared type'
  return DTYPE_NAMES[elemType] ?? `ONNX type ${elemType}`
}

const EXPECTED_DTYPES: Record<string, number> = {
  src_ids: T.INT64,
  history: T.FLOAT,
  prev_value: T.FLOAT,
  step_features: T.FLOAT,
  forecast: T.FLOAT,
  src_mask: T.FLOAT,
  encoder_states: T.FLOAT,
  state: T.FLOAT,
  prev_token: T.INT64,
  step: T.FLOAT,
  attn_override: T.FLOAT,
  override_on: T.FLOAT,
  encoder_out: T.FLOAT,
  decoder_init: T.FLOAT,
  logits: T.FLOAT,
  next_state: T.FLOAT,
  attention: T.FLOAT,
  scores: T.FLOAT,
  position: T.FLOAT,
  window: T.FLOAT,
  gaussian: T.FLOAT,
  align: T.FLOAT,
  cross_attention: T.FLOAT,
  head_gate: T.FLOAT,
  head_override: T.FLOAT,
}

/** Largest vocabulary the app accepts: beyond this a file is more likely hostile than useful. */
export const MAX_VOCAB = 200_000

/** A file that breaks the contract; the message is one sentence the user reads. */
export class ContractError extends LensError {
  constructor(message: string, details?: { problems: string[] }) {
    super(message, { name: 'ContractError', code: 'contract', details })
  }
}

/** A value from the file, quoted in a message: cut so one hostile value cannot flood the UI. */
export function shown(v: unknown): string {
  const flat = (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))).replace(/\s+/g, ' ')
  return flat.length > 40 ? flat.slice(0, 40) + '…' : flat
}

/** A JSON value as the file writes it: strings in quotes, numbers bare. */
const asWritten = (v: unknown) => (typeof v === 'string' ? `"${shown(v)}"` : shown(v))

export interface SpecialTokens {
  pad: number
  unk: number
  bos: number
  eos: number
}

/** The forecasting variant's `al.forecast`: shapes, features and the value scaling. */
export interface ForecastModelSpec extends ForecastSpec {
  features: string[]
  stepFeatures: string[]
  mean: number
  std: number
}

/** A transformer's cross-attention: decoder layers (`al.layers`) × heads per layer (`al.heads`). */
export interface HeadGrid {
  layers: number
  heads: number
}

export interface ModelSpec {
  task: ModelTask
  name: string
  attention: AttentionKind
  windowD: number
  /** Local attention only: the score function inside the window (`al.score`, default general). */
  localScore: LocalScore | null
  srcLang: string
  tgtLang: string
  srcVocab: string[]
  tgtVocab: string[]
  srcTokenizer: TokenizerSpec
  tgtTokenizer: TokenizerSpec
  special: SpecialTokens
  stateSize: number
  trainingData: string
  licence: string
  testScore: TestScore | null
  stepOutputs: string[]
  /** Transformer only: the shape of `cross_attention`'s axes 1 and 2 (and of head_gate, head_override). */
  heads: HeadGrid | null
  /** Transformer only (`al.max_target`, optional): the cache length T, so at most T output steps. */
  maxTarget: number | null
  /** Forecasting models only (translation fields are then empty). */
  forecast: ForecastModelSpec | null
  forecastScore: ForecastScore | null
  /**
   * The target ids no decoder emits, where the format says so itself (a Hugging Face folder: its
   * generation config's single-token bad_words_ids); absent: every special token but `</s>`.
   */
  neverGenerate?: number[]
  /** A multilingual model's language codes, any two of which it translates between. */
  languages?: string[]
  /** A multi-target model's target codes (opus-mt's >>fra<< tokens, put before the source); its source language is fixed. */
  targetLanguages?: string[]
  /** A multilingual model opened without a language pair (its config names none): decoding needs one first. */
  needsLanguages?: boolean
  /** How the format's own config says to decode (a Hugging Face folder's generation_config.json); absent: the app's rules. */
  generation?: DecodingRules
  /** A Hugging Face folder's precisions (fp32, fp16, q8…), most precise first, with their files' size; and the one opened (src/engine/formats/hf/variants.ts). */
  variants?: { dtype: string; bytes: number; note: string }[]
  dtype?: string
}

/**
 * A format's own decoding rules, as transformers' generate() applies them (src/engine/formats/hf/generation.ts).
 * Step t is the (t+1)-th generated token; transformers' cur_len at that step is t + 1.
 */
export interface DecodingRules {
  /** forced_bos_token_id or the target language token: the first step's only token, and fed first in forced decoding. */
  forcedFirst: number | null
  /** forced_eos_token_id: the only token of the last step the length limit allows. */
  forcedEos: number | null
  /** The most generated tokens: max_new_tokens, else max_length − 1 (the decoder start counts), or null (the app's limit alone). */
  maxNewTokens: number | null
  /** min_length: `</s>` is banned while fewer than min_length − 1 tokens were generated. */
  minLength: number
  /** repetition_penalty (1 = off): a token already in the sequence (the decoder start included) has its score divided by it (multiplied where negative). */
  repetitionPenalty: number
  /** The repeat guard where a request sets none: no_repeat_ngram_size, and no max-repeat. */
  guard: { noRepeatNgram: number; maxRepeat: number }
}

/**
 * Collects problems: each check runs on its own, so one broken key does not hide the next. A
 * check that throws a ContractError adds its message and yields undefined.
 */
class Problems {
  readonly list: string[] = []

  run<R>(check: () => R): R | undefined {
    try {
      return check()
    } catch (e) {
      if (!(e instanceof ContractError)) throw e
      // src_mask is read by both parts and checked with each: say it once.
      if (!this.list.includes(e.message)) this.list.push(e.message)
      return undefined
    }
  }
}

function need(file: OnnxFile, key: string): string {
  const v = file.metadata.get(key)
  if (v === undefined || v.trim() === '') throw new ContractError(`The model's metadata lacks "${key}".`)
  return v
}

function json<R>(file: OnnxFile, key: string): R {
  const raw = need(file, key)
  try {
    return JSON.parse(raw) as R
  } catch {
    throw new ContractError(`The model's metadata "${key}" is not valid JSON (it starts "${shown(raw)}").`)
  }
}

function vocab(file: OnnxFile, key: string): string[] {
  const v = json<unknown>(file, key)
  if (!Array.isArray(v) || v.length < 4 || !v.every((w) => typeof w === 'string')) {
    throw new ContractError(`The model's vocabulary "${key}" is not a list of at least four strings.`)
  }
  if (v.length > MAX_VOCAB) {
    throw new ContractError(`The model's vocabulary "${key}" has ${v.length} entries, more than the ${MAX_VOCAB} this app accepts.`)
  }
  return v as string[]
}

function tokenizer(file: OnnxFile, key: string): TokenizerSpec {
  try {
    return parseTokenizerSpec(json<unknown>(file, key))
  } catch (e) {
    if (e instanceof TokenizerSpecError) throw new ContractError(`The model's tokenizer "${key}" ${e.message}.`)
    throw e
  }
}

/** What to do about a wrong dtype, for the dtypes exporters produce by accident. */
function dtypeHint(got: number, want: number): string {
  if (want === T.INT64 && (got === T.INT32 || got === T.INT16 || got === T.INT8 || got === T.UINT8)) return ': export token ids as torch.long'
  if (want === T.FLOAT && (got === T.DOUBLE || got === T.FLOAT16 || got === T.BFLOAT16))
    return ': export in float32 (model.float() and float32 example inputs); the app feeds and reads float32'
  return ''
}

function checkValue(file: OnnxFile, name: string, where: 'input' | 'output'): void {
  const v = (where === 'input' ? file.inputs : file.outputs).get(name)
  if (!v) throw new ContractError(`The model has no ${where} named "${name}".`)
  checkDtype(file, name, where)
}

function checkDtype(file: OnnxFile, name: string, where: 'input' | 'output'): void {
  const v = (where === 'input' ? file.inputs : file.outputs).get(name)
  const want = EXPECTED_DTYPES[name]
  if (v && want !== undefined && v.elemType !== want) {
    throw new ContractError(`The model's ${where} "${name}" is ${dtypeName(v.elemType)}, not ${dtypeName(want)}${dtypeHint(v.elemType, want)}.`)
  }
}

/** Language codes become parts of file names (the bundled test sets), so keep them plain. */
const LANG_RE = /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$/

function lang(file: OnnxFile, key: string): string {
  const v = need(file, key)
  if (!LANG_RE.test(v)) throw new ContractError(`The model's "${key}" is "${shown(v)}", not a language code such as "en", "zh" or "pt-BR".`)
  return v
}

const F16_SPECIAL = 0x7c00 // exponent bits of a float16 NaN or infinity
const BF16_SPECIAL = 0x7f80
const F16_MANTISSA = 0x03ff
const BF16_MANTISSA = 0x007f

/** A float format's bits by byte, little-endian as ONNX stores raw_data: its exponent's and its mantissa's. */
interface FloatBytes {
  exponent: readonly number[]
  mantissa: readonly number[]
}
const RAW_FLOATS: Partial<Record<number, FloatBytes>> = {
  [T.FLOAT]: { exponent: [0, 0, 0x80, 0x7f], mantissa: [0xff, 0xff, 0x7f, 0] },
  [T.DOUBLE]: { exponent: [0, 0, 0, 0, 0, 0, 0xf0, 0x7f], mantissa: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0] },
  [T.FLOAT16]: { exponent: [0, F16_SPECIAL >> 8], mantissa: [F16_MANTISSA & 0xff, F16_MANTISSA >> 8] },
  [T.BFLOAT16]: { exponent: [BF16_SPECIAL & 0xff, BF16_SPECIAL >> 8], mantissa: [BF16_MANTISSA, 0] },
}

/**
 * badValues on raw_data, read byte by byte where it lies: most tensors start at an offset of the
 * file that a Float32Array or Uint16Array cannot view, and copying them to aligned memory was most
 * of the check (the bundled models are 104 MB of weights, listed on every start of the app).
 */
function rawBadValues(raw: Uint8Array, f: FloatBytes): { nan: boolean; inf: boolean } {
  const width = f.exponent.length
  const top = width - 1
  const topBits = f.exponent[top]
  let inf = false
  for (let i = top; i < raw.length; i += width) {
    // The byte with the sign and the exponent's high bits rules out all but NaN, infinity and
    // the largest finite values.
    if ((raw[i] & topBits) !== topBits) continue
    let special = true
    let mantissa = 0
    for (let j = 0, at = i - top; j < width; j++) {
      const b = raw[at + j]
      if ((b & f.exponent[j]) !== f.exponent[j]) special = false
      mantissa |= b & f.mantissa[j]
    }
    if (!special) continue
    if (mantissa) return { nan: true, inf }
    inf = true
  }
  return { nan: false, inf }
}

/**
 * What is wrong with a float tensor's values: 'NaN', 'infinity', or null. A lone infinite scalar
 * is allowed (a masking constant such as float('-inf')); NaN never is, nor infinities in a tensor
 * of several values. float32, float64, float16 and bfloat16 are read, raw or typed.
 */
function badValues(t: TensorProto): 'NaN' | 'infinity' | null {
  const n = t.dims.reduce((a, d) => a * Number(d), 1)
  const bytes = RAW_FLOATS[t.dataType]
  if (!bytes) return null
  const raw = t.rawData
  let found: { nan: boolean; inf: boolean }
  if (raw && raw.length >= bytes.exponent.length) found = rawBadValues(raw, bytes)
  else if (t.dataType === T.FLOAT16) found = halves(t.int32Data, F16_SPECIAL, F16_MANTISSA)
  else if (t.dataType === T.BFLOAT16) found = halves(t.int32Data, BF16_SPECIAL, BF16_MANTISSA)
  else found = floats(t.dataType === T.FLOAT ? t.floatData : t.doubleData)
  if (found.nan) return 'NaN'
  return found.inf && n > 1 ? 'infinity' : null
}
/** float16 or bfloat16 values as ONNX writes them without raw_data: an int32_data entry each. */
function halves(bits: readonly number[], special: number, mantissa: number): { nan: boolean; inf: boolean } {
  let inf = false
  for (const b of bits) {
    const h = b & 0xffff
    if ((h & special) !== special) continue
    if (h & mantissa) return { nan: true, inf }
    inf = true
  }
  return { nan: false, inf }
}
function floats(values: readonly number[]): { nan: boolean; inf: boolean } {
  let inf = false
  for (const x of values) {
    if (Number.isNaN(x)) return { nan: true, inf }
    if (!Number.isFinite(x)) inf = true
  }
  return { nan: false, inf }
}

/** Every tensor the graph holds: initializers and the values of Constant nodes. */
function heldTensors(file: OnnxFile): TensorProto[] {
  const g = file.model.graph
  const constants = (g?.node ?? []).filter((n) => n.opType === 'Constant').flatMap((n) => n.attribute.flatMap((a) => (a.t ? [a.t] : [])))
  return [...(g?.initializer ?? []), ...constants]
}

/** The first weight tensor holding NaN or (several) infinities, if any: such a model decodes garbage. */
export function nonFiniteWeights(file: OnnxFile): string | null {
  for (const t of heldTensors(file)) if (badValues(t)) return t.name || '?'
  return null
}

/** Weights kept in a side file (onnx's external data): the app opens one self-contained file. */
function externalWeights(file: OnnxFile): string | null {
  const t = heldTensors(file).find((x) => x.dataLocation === TensorProto_DataLocation.EXTERNAL || x.externalData.length > 0)
  return t ? t.name || '?' : null
}

function checkWeights(file: OnnxFile): void {
  const external = externalWeights(file)
  if (external) {
    throw new ContractError(
      `The model keeps its weights in a separate file (external data, first "${shown(external)}"); this app opens one self-contained file: save with onnx.save(model, path, save_as_external_data=False).`,
    )
  }
  const bad = nonFiniteWeights(file)
  if (bad) throw new ContractError(`The model's weights contain NaN or infinite values (in "${shown(bad)}").`)
}

/**
 * One .onnx file of a Hugging Face (Optimum, transformers.js) folder, opened without the rest: its
 * part by its graph's names (a decoder takes encoder_hidden_states or past_key_values.*, an encoder
 * returns last_hidden_state from input_ids), or null.
 */
function folderPart(file: OnnxFile): 'decoder' | 'encoder' | null {
  const inputs = [...file.inputs.keys()]
  if (inputs.some((n) => n === 'encoder_hidden_states' || n.startsWith('past_key_values'))) return 'decoder'
  if (inputs.includes('input_ids') && file.outputs.has('last_hidden_state')) return 'encoder'
  return null
}

/** What every model's metadata says first: its task and its attention. */
interface Header {
  task: ModelTask
  attention: AttentionKind
  windowD: number
  localScore: LocalScore | null
}

/** The checks every task shares; null where a problem makes the rest meaningless. */
function header(file: OnnxFile, p: Problems): Header | null {
  if (file.metadata.size === 0 || ![...file.metadata.keys()].some((k) => k.startsWith('al.'))) {
    const part = folderPart(file)
    p.list.push(
      part
        ? `The file is the ${part} of a Hugging Face model folder, not a model on its own: open the whole folder instead (Open folder… next to the model list, File ▸ Open Model Folder… in the desktop app, or drop the whole folder on the window): it holds the encoder, the decoder, config.json and the tokenizer.`
        : 'The file is an ONNX model but carries no Attention Lens metadata (al.* keys), so it was not exported for this app.',
    )
    return null
  }
  const gate = p.run(() => {
    const version = need(file, 'al.format_version')
    if (version !== FORMAT_VERSION) {
      throw new ContractError(`The model uses format version ${shown(version)}; this app reads version ${FORMAT_VERSION}.`)
    }
    const task = file.metadata.get('al.task') ?? 'translation'
    if (task !== 'translation' && task !== 'forecasting') {
      throw new ContractError(`The model is for "${shown(task)}"; this app reads translation and forecasting models.`)
    }
    const attention = need(file, 'al.attention') as AttentionKind
    if (!ATTENTION_KINDS.includes(attention)) {
      throw new ContractError(`The model's attention kind "${shown(attention)}" is not one of ${ATTENTION_KINDS.join(', ')}.`)
    }
    return { task: task as ModelTask, attention }
  })
  if (!gate) return null
  const local = KINDS[gate.attention].window !== null
  const rawD = file.metadata.get('al.window_d')
  const windowD = local
    ? (p.run(() => {
        const d = Number(rawD)
        if (rawD === undefined || rawD.trim() === '')
          throw new ContractError(`The ${gate.attention} model lacks "al.window_d", the window half-width D (a positive whole number).`)
        if (!(Number.isInteger(d) && d > 0))
          throw new ContractError(`The ${gate.attention} model's "al.window_d" is "${shown(rawD)}", not a positive whole number (the window half-width D).`)
        return d
      }) ?? 1)
    : 0
  const localScore = local
    ? (p.run(() => {
        const s = file.metadata.get('al.score') ?? 'general'
        if (!LOCAL_SCORES.includes(s as LocalScore)) throw new ContractError(`The model's "al.score" is "${shown(s)}", not one of ${LOCAL_SCORES.join(', ')}.`)
        return s as LocalScore
      }) ?? 'general')
    : null
  return { ...gate, windowD, localScore }
}

/** The step outputs a kind requires; a model declared `none` must not compute attention it hides. */
function checkOutputs(file: OnnxFile, p: Problems, attention: AttentionKind, stepOutputs: string[]): void {
  const isLocal = (o: string) => (STEP_OUTPUTS_LOCAL as readonly string[]).includes(o)
  for (const name of stepOutputs.filter((o) => !isLocal(o))) p.run(() => checkValue(file, name, 'output'))
  const missing = stepOutputs.filter((o) => isLocal(o) && !file.outputs.has(o))
  if (missing.length) {
    // Global attention declared as local is the usual mistake: say what a local model returns.
    p.list.push(
      `The model has no output${missing.length > 1 ? 's' : ''} named ${missing.map((o) => `"${o}"`).join(', ')}: a ${attention} model (al.attention) returns ${STEP_OUTPUTS_LOCAL.join(', ')} besides attention and scores (docs/model-format.md, Outputs)${missing.length === STEP_OUTPUTS_LOCAL.length ? '; if its attention is global, declare that kind instead' : ''}.`,
    )
  }
  for (const name of stepOutputs.filter((o) => isLocal(o) && file.outputs.has(o))) p.run(() => checkDtype(file, name, 'output'))
  if (!KINDS[attention].attends) {
    const extra = [...STEP_OUTPUTS_ATTENTION, ...STEP_OUTPUTS_LOCAL, STEP_OUTPUT_CROSS].filter((o) => file.outputs.has(o))
    if (extra.length) {
      p.list.push(
        `The model is declared without attention (al.attention "none") but has the output${extra.length > 1 ? 's' : ''} ${extra.map((o) => `"${o}"`).join(', ')}: declare the attention kind it computes, or leave those outputs out.`,
      )
    }
  }
}

/**
 * What a check reads. `weights: false` leaves the weights' own checks (NaN or infinite values,
 * external data) out: for a file read without its weights (readSlimModel), whose large tensors then
 * point into the file as external data. The model list describes every model that way; opening one
 * checks its weights.
 */
export interface ContractScope {
  weights?: boolean
}

/**
 * Every way the file breaks the contract, each one sentence, and the spec when there are none.
 * `attention-lens check` lists them all; opening a file refuses it with the first.
 */
export function contractProblems(file: OnnxFile, { weights = true }: ContractScope = {}): { spec: ModelSpec | null; problems: string[] } {
  const p = new Problems()
  const h = header(file, p)
  if (!h) return { spec: null, problems: p.list }
  const spec = h.task === 'forecasting' ? forecastContract(file, p, h, weights) : translationContract(file, p, h, weights)
  return p.list.length ? { spec: null, problems: p.list } : { spec: spec ?? null, problems: [] }
}

export function checkContract(file: OnnxFile, scope: ContractScope = {}): ModelSpec {
  const { spec, problems } = contractProblems(file, scope)
  if (!spec) throw new ContractError(problems[0], { problems })
  return spec
}

function translationContract(file: OnnxFile, p: Problems, { attention, windowD, localScore }: Header, weights: boolean): ModelSpec | undefined {
  const srcVocab = p.run(() => vocab(file, 'al.src_vocab'))
  const tgtVocab = p.run(() => vocab(file, 'al.tgt_vocab'))
  const special = p.run(() => specialTokens(file, srcVocab, tgtVocab))
  const stateSize = p.run(() => stateSizeOf(file))
  const transformer = KINDS[attention].heads
  const heads = transformer
    ? p.run(() => ({ layers: positiveInt(file, 'al.layers', 'decoder layers'), heads: positiveInt(file, 'al.heads', 'heads per layer') }))
    : null
  const maxTarget =
    transformer && file.metadata.has('al.max_target') ? (p.run(() => positiveInt(file, 'al.max_target', 'the longest output', Infinity)) ?? null) : null
  const srcLang = p.run(() => lang(file, 'al.src_lang'))
  const tgtLang = p.run(() => lang(file, 'al.tgt_lang'))
  const srcTokenizer = p.run(() => tokenizer(file, 'al.src_tokenizer'))
  const tgtTokenizer = p.run(() => tokenizer(file, 'al.tgt_tokenizer'))
  for (const name of ENCODER_INPUTS) p.run(() => checkValue(file, name, 'input'))
  for (const name of STEP_REQUIRED_INPUTS) p.run(() => checkValue(file, name, 'input'))
  // The step is the transformer's position encoding (and a fixed-size cache's slot): without it every step is t = 0.
  if (transformer) p.run(() => checkValue(file, 'step', 'input'))
  for (const name of STEP_OPTIONAL_INPUTS) p.run(() => checkDtype(file, name, 'input'))
  if (transformer) for (const name of HEAD_INPUTS) p.run(() => checkDtype(file, name, 'input'))
  for (const name of ENCODER_OUTPUTS) p.run(() => checkValue(file, name, 'output'))
  const stepOutputs = stepOutputsFor(attention, STEP_OUTPUTS_BASE[0])
  checkOutputs(file, p, attention, stepOutputs)
  if (transformer && heads) checkHeadShapes(file, p, heads)
  p.run(() => {
    const logitsDims = file.outputs.get('logits')?.dims
    if (!logitsDims) return
    if (logitsDims.length !== 2) throw new ContractError(`The model's logits have rank ${logitsDims.length}, not 2 ([batch, vocabulary]).`)
    const logitsDim = logitsDims.at(-1)
    if (typeof logitsDim === 'number' && tgtVocab && logitsDim !== tgtVocab.length) {
      throw new ContractError(`The model's logits have ${logitsDim} entries but its target vocabulary has ${tgtVocab.length}.`)
    }
  })
  if (weights) p.run(() => checkWeights(file))
  if (!srcVocab || !tgtVocab || !special || !stateSize || !srcLang || !tgtLang || !srcTokenizer || !tgtTokenizer) return undefined
  let testScore: TestScore | null = null
  try {
    testScore = JSON.parse(file.metadata.get('al.test_bleu') ?? 'null') as TestScore | null
  } catch {
    testScore = null // optional; a broken score is not a reason to refuse the model
  }
  return {
    name: file.metadata.get('al.name') ?? 'model',
    attention,
    windowD,
    localScore,
    srcLang,
    tgtLang,
    srcVocab,
    tgtVocab,
    srcTokenizer,
    tgtTokenizer,
    special,
    stateSize,
    trainingData: file.metadata.get('al.training_data') ?? '',
    licence: file.metadata.get('al.licence') ?? '',
    testScore,
    stepOutputs,
    heads: heads ?? null,
    maxTarget,
    task: 'translation',
    forecast: null,
    forecastScore: null,
  }
}

const neverCache = new WeakMap<object, number[]>()

/**
 * The target ids no decoder emits (greedy, beam, what-if): `<unk>`, `<pad>`, `<s>` and any other
 * token "al.special_tokens" names (a SentencePiece model's `<mask>`, say) — every special token
 * but `</s>`. Their logits are set to −∞ before ranking, and log-probabilities are renormalised
 * over the other tokens.
 */
export function neverGenerated(spec: Pick<ModelSpec, 'special' | 'tgtVocab' | 'neverGenerate'>): number[] {
  if (spec.neverGenerate) return spec.neverGenerate
  let ids = neverCache.get(spec)
  if (!ids) {
    const named = Object.entries(spec.special as unknown as Record<string, unknown>)
      .filter(([role, id]) => role !== 'eos' && Number.isInteger(id) && (id as number) >= 0 && (id as number) < spec.tgtVocab.length)
      .map(([, id]) => id as number)
    ids = [...new Set(named)].filter((id) => id !== spec.special.eos).sort((a, b) => a - b)
    neverCache.set(spec, ids)
  }
  return ids
}

/** The four special ids, each an index into both vocabularies; a message quotes what the file holds. */
function specialTokens(file: OnnxFile, srcVocab: string[] | undefined, tgtVocab: string[] | undefined): SpecialTokens {
  const special = json<Record<string, unknown> | null>(file, 'al.special_tokens')
  if (special === null || typeof special !== 'object' || Array.isArray(special)) {
    throw new ContractError(`The model's "al.special_tokens" is ${shown(special)}, not an object such as {"pad":0,"unk":1,"bos":2,"eos":3}.`)
  }
  for (const k of ['pad', 'unk', 'bos', 'eos'] as const) {
    const id = special[k]
    if (id === undefined) {
      const others = Object.keys(special).filter((x) => !['pad', 'unk', 'bos', 'eos'].includes(x))
      throw new ContractError(
        `The model's "al.special_tokens" has no "${k}"${
          others.length
            ? ` (it has ${others
                .slice(0, 4)
                .map((o) => `"${shown(o)}"`)
                .join(', ')}: the keys must be pad, unk, bos and eos, whatever the tokens are called)`
            : ''
        }.`,
      )
    }
    if (!(typeof id === 'number' && Number.isInteger(id) && id >= 0)) {
      throw new ContractError(`The model's special token "${k}" is ${asWritten(id)}, not a token id (a whole number).`)
    }
    if (srcVocab && tgtVocab && id >= Math.min(srcVocab.length, tgtVocab.length)) {
      throw new ContractError(
        `The model's special token "${k}" is ${id}, outside its vocabularies (${srcVocab.length} source and ${tgtVocab.length} target entries).`,
      )
    }
  }
  return special as unknown as SpecialTokens
}

function stateSizeOf(file: OnnxFile): number {
  const raw = need(file, 'al.state_size')
  const stateSize = Number(raw)
  if (!(Number.isInteger(stateSize) && stateSize > 0)) {
    throw new ContractError(`The model's "al.state_size" is "${shown(raw)}", not a positive whole number.`)
  }
  return stateSize
}

function stepOutputsFor(attention: AttentionKind, first: string): string[] {
  const out = [first, 'next_state']
  // Each head has its own scores: a transformer exports the heads' weights instead.
  const kind = KINDS[attention]
  if (kind.heads) out.push('attention', STEP_OUTPUT_CROSS)
  else if (kind.attends) out.push(...STEP_OUTPUTS_ATTENTION)
  if (kind.window) out.push(...STEP_OUTPUTS_LOCAL)
  return out
}

function positiveInt(file: OnnxFile, key: string, what: string, max = MAX_HEAD_AXIS): number {
  const raw = file.metadata.get(key)
  if (raw === undefined || raw.trim() === '') throw new ContractError(`The transformer model lacks "${key}", ${what} (a positive whole number).`)
  const n = Number(raw)
  if (!(Number.isInteger(n) && n > 0 && n <= max)) {
    throw new ContractError(`The transformer model's "${key}" is "${shown(raw)}", not a positive whole number${n > max ? ` up to ${max}` : ''} (${what}).`)
  }
  return n
}

/** Layers and heads beyond this are refused: the what-if request and the figure schema stop at 64. */
const MAX_HEAD_AXIS = 64

/**
 * `cross_attention` is [B, L, H, S] and the head inputs [B, L, H], with L and H as declared: a
 * fixed size that disagrees with `al.layers` / `al.heads` would make the app read every head's
 * weights from the wrong place.
 */
function checkHeadShapes(file: OnnxFile, p: Problems, g: HeadGrid): void {
  const shape = (dims: (number | string | null)[]) => `[${dims.map((d) => (d === null ? '?' : shown(d))).join(', ')}]`
  const check = (name: string, where: 'input' | 'output', rank: number, layout: string) =>
    p.run(() => {
      const v = (where === 'input' ? file.inputs : file.outputs).get(name)
      if (!v || v.dims.length === 0) return // absent (checked elsewhere) or of unknown rank
      if (v.dims.length !== rank)
        throw new ContractError(`The model's ${where} "${name}" has rank ${v.dims.length} (${shape(v.dims)}), not ${rank} (${layout}).`)
      const [l, h] = [v.dims[1], v.dims[2]]
      const wrongL = typeof l === 'number' && l !== g.layers
      const wrongH = typeof h === 'number' && h !== g.heads
      if (wrongL || wrongH) {
        const said = [wrongL ? `"al.layers" is ${g.layers}` : '', wrongH ? `"al.heads" is ${g.heads}` : ''].filter(Boolean).join(' and ')
        throw new ContractError(`The model's ${where} "${name}" is ${shape(v.dims)} (${layout}), but its ${said}: declare the layers and heads the graph has.`)
      }
    })
  check(STEP_OUTPUT_CROSS, 'output', 4, 'batch, layers, heads, source')
  for (const name of HEAD_INPUTS) check(name, 'input', 3, 'batch, layers, heads')
}

const MAX_FORECAST_STEPS = 10_000

function forecastSpec(file: OnnxFile): ForecastModelSpec {
  const f = json<Record<string, unknown>>(file, 'al.forecast')
  const int = (k: string) => {
    const v = f?.[k]
    if (!(Number.isInteger(v) && (v as number) > 0 && (v as number) <= MAX_FORECAST_STEPS)) {
      throw new ContractError(`The model's "al.forecast" lacks a positive whole number "${k}"${v === undefined ? '' : ` (it is ${shown(v)})`}.`)
    }
    return v as number
  }
  const names = (k: string) => {
    const v = f?.[k]
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new ContractError(`The model's "al.forecast" lacks the list "${k}".`)
    return v as string[]
  }
  const features = names('features')
  const stepFeatures = names('step_features')
  // The app computes exactly these; a model that wants other inputs cannot be fed here.
  const known = ['value', 'tod_sin', 'tod_cos', 'dow_sin', 'dow_cos']
  const odd = [...features, ...stepFeatures].find((x) => !known.includes(x))
  if (odd !== undefined || features[0] !== 'value') {
    throw new ContractError(`The model's features must start with "value" and come from ${known.join(', ')}${odd ? `; "${shown(odd)}" does not` : ''}.`)
  }
  // A step is fed its previous value through prev_value; the value it predicts is not known.
  if (stepFeatures.includes('value'))
    throw new ContractError('The model\'s "step_features" cannot include "value": a step gets its previous value as "prev_value".')
  const scaling = f?.scaling as { mean?: unknown; std?: unknown } | undefined
  const mean = Number(scaling?.mean)
  const std = Number(scaling?.std)
  if (!Number.isFinite(mean) || !(Number.isFinite(std) && std > 0)) {
    throw new ContractError(`The model's "al.forecast" lacks a scaling with a finite "mean" and a positive "std" (it has ${shown(scaling ?? null)}).`)
  }
  const lags = Array.isArray(f?.seasonal_lags) ? (f.seasonal_lags as unknown[]).filter((x): x is number => Number.isInteger(x) && (x as number) > 0) : []
  const history = int('history')
  // The seasonal-naive baseline and the guides read these lags from the history itself.
  const far = lags.find((l) => l > history)
  if (far !== undefined)
    throw new ContractError(`The model's seasonal lag ${far} reaches further back than its history of ${history} steps (a lag must not exceed "history").`)
  return {
    history,
    horizon: int('horizon'),
    periodMinutes: int('period_minutes'),
    series: typeof f?.series === 'string' ? f.series : 'value',
    unit: typeof f?.unit === 'string' ? f.unit : '',
    seasonalLags: lags,
    features,
    stepFeatures,
    mean,
    std,
  }
}

function forecastContract(file: OnnxFile, p: Problems, { attention, windowD, localScore }: Header, weights: boolean): ModelSpec | undefined {
  if (!FORECAST_ATTENTION_KINDS.includes(attention)) {
    p.list.push(`A forecasting model's attention kind must be one of ${FORECAST_ATTENTION_KINDS.join(', ')}, not "${shown(attention)}".`)
    return undefined
  }
  const stateSize = p.run(() => stateSizeOf(file))
  const forecast = p.run(() => forecastSpec(file))
  for (const name of FORECAST_ENCODER_INPUTS) p.run(() => checkValue(file, name, 'input'))
  for (const name of FORECAST_STEP_REQUIRED_INPUTS) p.run(() => checkValue(file, name, 'input'))
  for (const name of STEP_OPTIONAL_INPUTS) p.run(() => checkDtype(file, name, 'input'))
  for (const name of ENCODER_OUTPUTS) p.run(() => checkValue(file, name, 'output'))
  const stepOutputs = stepOutputsFor(attention, 'forecast')
  checkOutputs(file, p, attention, stepOutputs)
  p.run(() => {
    const historyDims = file.inputs.get('history')?.dims
    if (!historyDims || !forecast) return
    const featDim = historyDims[2]
    if (historyDims.length !== 3 || (typeof featDim === 'number' && featDim !== forecast.features.length)) {
      throw new ContractError(
        `The model's input "history" must be [batch, steps, ${forecast.features.length}] for its ${forecast.features.length} features (it is [${historyDims.map((d) => shown(d ?? '?')).join(', ')}]).`,
      )
    }
  })
  if (weights) p.run(() => checkWeights(file))
  if (!stateSize || !forecast) return undefined
  // Optional, as the translation models' BLEU: a malformed score is dropped, not shown.
  let forecastScore: ForecastScore | null = null
  try {
    const t = JSON.parse(file.metadata.get('al.test_metrics') ?? 'null') as Partial<ForecastScore> | null
    const finite = (...xs: unknown[]) => xs.every((x) => typeof x === 'number' && Number.isFinite(x))
    if (t && finite(t.mae, t.mape, t.origins, t.seasonal_naive?.mae, t.seasonal_naive?.mape)) {
      forecastScore = { ...(t as ForecastScore), by_horizon: Array.isArray(t.by_horizon) ? t.by_horizon : [], set: String(t.set ?? '') }
    }
  } catch {
    forecastScore = null
  }
  return {
    task: 'forecasting',
    name: file.metadata.get('al.name') ?? 'model',
    attention,
    windowD,
    localScore,
    srcLang: '',
    tgtLang: '',
    srcVocab: [],
    tgtVocab: [],
    srcTokenizer: { type: 'word', lowercase: false, capitalize: false },
    tgtTokenizer: { type: 'word', lowercase: false, capitalize: false },
    special: { pad: 0, unk: 1, bos: 2, eos: 3 },
    stateSize,
    trainingData: file.metadata.get('al.training_data') ?? '',
    licence: file.metadata.get('al.licence') ?? '',
    testScore: null,
    stepOutputs,
    heads: null,
    maxTarget: null,
    forecast,
    forecastScore,
  }
}
