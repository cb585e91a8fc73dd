import { LensError } from '../shared/errors'
import { TensorProto_DataType } from './onnx-proto'
import { ATTENTION_KINDS, type AttentionKind, type ForecastScore, type ForecastSpec, type ModelTask, type TestScore } from '../shared/api'
import type { OnnxFile } from './onnx-graph'
import { parseTokenizerSpec, TokenizerSpecError, type TokenizerSpec } from './tokenizer'

/**
 * The one-file model contract (docs/model-format.md), checked when a file is opened. Each
 * failure is a ContractError whose message is one sentence naming what is wrong.
 */
export const FORMAT_VERSION = '1'
export const ENCODER_INPUTS = ['src_ids', 'src_mask'] as const
export const ENCODER_OUTPUTS = ['encoder_out', 'decoder_init'] as const
export const STEP_INPUTS = [
  'prev_token',
  'state',
  'encoder_states',
  'src_mask',
  'step',
  'attn_override',
  'override_on',
] as const
export const STEP_REQUIRED_INPUTS = ['prev_token', 'state', 'encoder_states'] as const
export const STEP_OUTPUTS_BASE = ['logits', 'next_state'] as const
export const STEP_OUTPUTS_ATTENTION = ['attention', 'scores'] as const
export const STEP_OUTPUTS_LOCAL = ['position', 'window', 'gaussian', 'align'] as const
/** The forecasting variant: float history in, one float forecast per step out. */
export const FORECAST_ENCODER_INPUTS = ['history'] as const
export const FORECAST_STEP_REQUIRED_INPUTS = ['prev_value', 'step_features', 'state', 'encoder_states'] as const
export const FORECAST_ATTENTION_KINDS: readonly AttentionKind[] = ['none', 'luong-general', 'local-p']

const T = TensorProto_DataType
const DTYPE_NAMES: Record<number, string> = { [T.FLOAT]: 'float32', [T.INT64]: 'int64' }
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
}

/** Largest vocabulary the app accepts: beyond this a file is more likely hostile than useful. */
export const MAX_VOCAB = 200_000

/** A file that breaks the contract; the message is one sentence the user reads. */
export class ContractError extends LensError {
  constructor(message: string) {
    super(message, { name: 'ContractError', code: 'contract' })
  }
}

/** A value from the file, quoted in a message: cut so one hostile value cannot flood the UI. */
function shown(v: string): string {
  const flat = v.replace(/\s+/g, ' ')
  return flat.length > 40 ? flat.slice(0, 40) + '…' : flat
}

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

export interface ModelSpec {
  task: ModelTask
  name: string
  attention: AttentionKind
  windowD: number
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
  /** Forecasting models only (translation fields are then empty). */
  forecast: ForecastModelSpec | null
  forecastScore: ForecastScore | null
}

function need(file: OnnxFile, key: string): string {
  const v = file.metadata.get(key)
  if (v === undefined || v.trim() === '') {
    throw new ContractError(
      file.metadata.size === 0
        ? 'The file is an ONNX model but carries no Attention Lens metadata (al.* keys), so it was not exported for this app.'
        : `The model's metadata lacks "${key}".`,
    )
  }
  return v
}

function json<T>(file: OnnxFile, key: string): T {
  const raw = need(file, key)
  try {
    return JSON.parse(raw) as T
  } catch {
    throw new ContractError(`The model's metadata "${key}" is not valid JSON.`)
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

function checkValue(file: OnnxFile, name: string, where: 'input' | 'output'): void {
  const v = (where === 'input' ? file.inputs : file.outputs).get(name)
  if (!v) throw new ContractError(`The model has no ${where} named "${name}".`)
  const want = EXPECTED_DTYPES[name]
  if (want !== undefined && v.elemType !== want) {
    throw new ContractError(
      `The model's ${where} "${name}" is ${DTYPE_NAMES[v.elemType] ?? `type ${v.elemType}`}, not ${DTYPE_NAMES[want]}.`,
    )
  }
}

/** Language codes become parts of file names (the bundled test sets), so keep them plain. */
const LANG_RE = /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$/

function lang(file: OnnxFile, key: string): string {
  const v = need(file, key)
  if (!LANG_RE.test(v)) throw new ContractError(`The model's "${key}" is not a language code such as "en" or "zh".`)
  return v
}

/** The first float initializer holding NaN or an infinity, if any: such a model decodes garbage. */
export function nonFiniteWeights(file: OnnxFile): string | null {
  for (const t of file.model.graph?.initializer ?? []) {
    if (t.dataType !== TensorProto_DataType.FLOAT) continue
    let values: ArrayLike<number> = t.floatData ?? []
    const raw = t.rawData
    if (raw && raw.length >= 4) {
      const copy = raw.byteOffset % 4 === 0 ? raw : raw.slice()
      values = new Float32Array(copy.buffer, copy.byteOffset, Math.floor(copy.length / 4))
    }
    for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return t.name ?? '?'
  }
  return null
}

export function checkContract(file: OnnxFile): ModelSpec {
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
  const local = attention.startsWith('local')
  const windowD = Number(file.metadata.get('al.window_d') ?? '0')
  if (local && !(Number.isInteger(windowD) && windowD > 0)) {
    throw new ContractError('The local-attention model lacks a positive integer window half-width "al.window_d".')
  }
  if (task === 'forecasting') return checkForecastContract(file, attention, local ? windowD : 0)
  const special = json<SpecialTokens>(file, 'al.special_tokens')
  const srcVocab = vocab(file, 'al.src_vocab')
  const tgtVocab = vocab(file, 'al.tgt_vocab')
  for (const k of ['pad', 'unk', 'bos', 'eos'] as const) {
    const id = special?.[k]
    if (!Number.isInteger(id) || id < 0 || id >= Math.min(srcVocab.length, tgtVocab.length)) {
      throw new ContractError(`The model's special token "${k}" is missing or outside the vocabulary.`)
    }
  }
  const stateSize = stateSizeOf(file)
  for (const name of ENCODER_INPUTS) checkValue(file, name, 'input')
  for (const name of STEP_REQUIRED_INPUTS) checkValue(file, name, 'input')
  for (const name of ENCODER_OUTPUTS) checkValue(file, name, 'output')
  const stepOutputs = stepOutputsFor(attention, STEP_OUTPUTS_BASE[0])
  for (const name of stepOutputs) checkValue(file, name, 'output')
  const logitsDims = file.outputs.get('logits')!.dims
  if (logitsDims.length !== 2) throw new ContractError(`The model's logits have rank ${logitsDims.length}, not 2 ([batch, vocabulary]).`)
  const logitsDim = logitsDims.at(-1)
  if (typeof logitsDim === 'number' && logitsDim !== tgtVocab.length) {
    throw new ContractError(
      `The model's logits have ${logitsDim} entries but its target vocabulary has ${tgtVocab.length}.`,
    )
  }
  const bad = nonFiniteWeights(file)
  if (bad) throw new ContractError(`The model's weights contain NaN or infinite values (in "${bad}").`)
  let testScore: TestScore | null = null
  try {
    testScore = JSON.parse(file.metadata.get('al.test_bleu') ?? 'null') as TestScore | null
  } catch {
    testScore = null // optional; a broken score is not a reason to refuse the model
  }
  return {
    name: file.metadata.get('al.name') ?? 'model',
    attention,
    windowD: local ? windowD : 0,
    srcLang: lang(file, 'al.src_lang'),
    tgtLang: lang(file, 'al.tgt_lang'),
    srcVocab,
    tgtVocab,
    srcTokenizer: tokenizer(file, 'al.src_tokenizer'),
    tgtTokenizer: tokenizer(file, 'al.tgt_tokenizer'),
    special,
    stateSize,
    trainingData: file.metadata.get('al.training_data') ?? '',
    licence: file.metadata.get('al.licence') ?? '',
    testScore,
    stepOutputs,
    task: 'translation',
    forecast: null,
    forecastScore: null,
  }
}

function stateSizeOf(file: OnnxFile): number {
  const stateSize = Number(need(file, 'al.state_size'))
  if (!(Number.isInteger(stateSize) && stateSize > 0)) {
    throw new ContractError('The model\'s "al.state_size" is not a positive integer.')
  }
  return stateSize
}

function stepOutputsFor(attention: AttentionKind, first: string): string[] {
  const out = [first, 'next_state']
  if (attention !== 'none') out.push(...STEP_OUTPUTS_ATTENTION)
  if (attention.startsWith('local')) out.push(...STEP_OUTPUTS_LOCAL)
  return out
}

const MAX_FORECAST_STEPS = 10_000

function forecastSpec(file: OnnxFile): ForecastModelSpec {
  const f = json<Record<string, unknown>>(file, 'al.forecast')
  const int = (k: string) => {
    const v = f?.[k]
    if (!(Number.isInteger(v) && (v as number) > 0 && (v as number) <= MAX_FORECAST_STEPS)) {
      throw new ContractError(`The model's "al.forecast" lacks a positive whole number "${k}".`)
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
  if (stepFeatures.includes('value')) throw new ContractError('The model\'s "step_features" cannot include "value": a step gets its previous value as "prev_value".')
  const scaling = f?.scaling as { mean?: unknown; std?: unknown } | undefined
  const mean = Number(scaling?.mean)
  const std = Number(scaling?.std)
  if (!Number.isFinite(mean) || !(Number.isFinite(std) && std > 0)) {
    throw new ContractError('The model\'s "al.forecast" lacks a scaling with a finite "mean" and a positive "std".')
  }
  const lags = Array.isArray(f?.seasonal_lags) ? (f.seasonal_lags as unknown[]).filter((x): x is number => Number.isInteger(x) && (x as number) > 0) : []
  const history = int('history')
  // The seasonal-naive baseline and the guides read these lags from the history itself.
  const far = lags.find((l) => l > history)
  if (far !== undefined) throw new ContractError(`The model's seasonal lag ${far} reaches further back than its history of ${history} steps.`)
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

function checkForecastContract(file: OnnxFile, attention: AttentionKind, windowD: number): ModelSpec {
  if (!FORECAST_ATTENTION_KINDS.includes(attention)) {
    throw new ContractError(`A forecasting model's attention kind must be one of ${FORECAST_ATTENTION_KINDS.join(', ')}, not "${shown(attention)}".`)
  }
  const stateSize = stateSizeOf(file)
  const forecast = forecastSpec(file)
  for (const name of FORECAST_ENCODER_INPUTS) checkValue(file, name, 'input')
  for (const name of FORECAST_STEP_REQUIRED_INPUTS) checkValue(file, name, 'input')
  for (const name of ENCODER_OUTPUTS) checkValue(file, name, 'output')
  const stepOutputs = stepOutputsFor(attention, 'forecast')
  for (const name of stepOutputs) checkValue(file, name, 'output')
  const historyDims = file.inputs.get('history')!.dims
  const featDim = historyDims[2]
  if (historyDims.length !== 3 || (typeof featDim === 'number' && featDim !== forecast.features.length)) {
    throw new ContractError(`The model's input "history" must be [batch, steps, ${forecast.features.length}] for its ${forecast.features.length} features.`)
  }
  const bad = nonFiniteWeights(file)
  if (bad) throw new ContractError(`The model's weights contain NaN or infinite values (in "${bad}").`)
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
    forecast,
    forecastScore,
  }
}
