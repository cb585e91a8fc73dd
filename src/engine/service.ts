import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import type { DecodeOptions, EvalResult, ForecastEval, ForecastResult, ModelInfo, ProviderInfo, Translation, WhatIfRequest, WhatIfResult } from '../shared/api'
import { checkContract, ContractError, type ModelSpec } from './contract'
import { forcedDecode, greedyBatch, translate, whatIf } from './decode'
import { evaluateCorpus, type EvalOptions } from './evaluate'
import { evaluateForecast, forecastAt, type SeriesInput } from './forecast'
import { LoadedModel } from './model'
import { parseOnnx } from './onnx-graph'
import { MAX_OPEN_MODELS } from './limits'
import { isKnownProvider, listProviders } from './providers'

/** What a model file says about itself, without sessions: enough for a picker. */
export type ModelDescription = Omit<ModelInfo, 'id' | 'bundled' | 'provider' | 'providerNote'>

function describeSpec(path: string, spec: ModelSpec): ModelDescription {
  return {
    name: spec.name,
    fileName: basename(path),
    task: spec.task,
    attention: spec.attention,
    srcLang: spec.srcLang,
    tgtLang: spec.tgtLang,
    windowD: spec.windowD,
    srcVocabSize: spec.srcVocab.length,
    tgtVocabSize: spec.tgtVocab.length,
    trainingData: spec.trainingData,
    licence: spec.licence,
    testScore: spec.testScore,
    forecast: spec.forecast && {
      history: spec.forecast.history,
      horizon: spec.forecast.horizon,
      periodMinutes: spec.forecast.periodMinutes,
      series: spec.forecast.series,
      unit: spec.forecast.unit,
      seasonalLags: spec.forecast.seasonalLags,
    },
    forecastScore: spec.forecastScore,
  }
}

/**
 * The inference service: plain Node, no Electron. It keeps the models it opened (by path) and
 * decodes with them. It runs inside the engine process; tests and the CLI use it directly.
 */
export class InferenceService {
  // By path, least recently used first. Promises, so two calls that open the same file at once
  // share one pair of sessions.
  private models = new Map<string, OpenModel>()

  constructor(
    private provider = 'cpu',
    /** How many models stay open; beyond it the least recently used idle one is closed. */
    private maxOpen = MAX_OPEN_MODELS,
  ) {}

  providers(): ProviderInfo[] {
    return listProviders()
  }

  /** Later opens use this provider; open models are closed and reopen on their next use. */
  async setProvider(name: string): Promise<void> {
    if (!isKnownProvider(name)) throw new ContractError(`"${name}" is not an execution provider this build of onnxruntime knows.`)
    if (name === this.provider) return
    this.provider = name
    await this.closeAll()
  }

  // The picker lists every model after each open; a file unchanged since its last reading is not
  // read and parsed again (the bundled models are 58 MB together).
  private described = new Map<string, { stamp: string; description: ModelDescription }>()

  async describe(path: string): Promise<ModelDescription> {
    const open = await this.models.get(path)?.model.catch(() => null)
    if (open) return describeSpec(path, open.spec)
    try {
      const info = await stat(path)
      const stamp = `${info.size}:${info.mtimeMs}`
      const known = this.described.get(path)
      if (known?.stamp === stamp) return known.description
      const description = describeSpec(path, checkContract(parseOnnx(new Uint8Array(await readFile(path)))))
      this.described.set(path, { stamp, description })
      return description
    } catch (e) {
      if (e instanceof ContractError) throw e
      throw new ContractError(`The file is not a model this app can read: ${(e as Error).message}.`)
    }
  }

  async open(path: string): Promise<ModelDescription & { provider: string; providerNote: string | null }> {
    return this.using(path, async (model) => ({ ...describeSpec(path, model.spec), provider: model.provider, providerNote: model.providerNote }))
  }

  async translate(path: string, text: string, opts: DecodeOptions = {}, signal?: AbortSignal): Promise<Translation> {
    return this.translating(path, (m) => translate(m, text, opts, signal))
  }

  /** Greedy translations of many sentences in one batch (corpus evaluation). */
  async translateBatch(path: string, texts: string[]): Promise<Translation[]> {
    return this.translating(path, (m) => greedyBatch(m, texts))
  }

  async forced(path: string, text: string, target: string): Promise<Translation> {
    return this.translating(path, (m) => forcedDecode(m, text, target))
  }

  async whatIf(path: string, req: WhatIfRequest): Promise<WhatIfResult> {
    return this.translating(path, (m) => whatIf(m, req))
  }

  /** The same source through several models (the with/without attention comparison). */
  async compare(paths: string[], text: string, opts: DecodeOptions = {}): Promise<Translation[]> {
    const out: Translation[] = []
    for (const p of paths) out.push(await this.translate(p, text, opts))
    return out
  }

  async evaluate(path: string, srcs: string[], refs: string[], opts: EvalOptions = {}): Promise<EvalResult> {
    return this.translating(path, (m) => evaluateCorpus(m, srcs, refs, opts))
  }

  async forecast(path: string, series: SeriesInput, origin: number): Promise<ForecastResult> {
    return this.using(path, (m) => forecastAt(m, series, origin))
  }

  async evaluateForecast(path: string, series: SeriesInput, origins: number[]): Promise<ForecastEval> {
    return this.using(path, (m) => evaluateForecast(m, series, origins))
  }

  /** The paths of the open models, least recently used first. */
  openPaths(): string[] {
    return [...this.models.keys()]
  }

  /** Work with a model that translates: a forecaster is refused in one sentence. */
  private translating<T>(path: string, work: (m: LoadedModel) => Promise<T>): Promise<T> {
    return this.using(path, (m) => {
      if (m.spec.task !== 'translation') throw new ContractError(`${m.spec.name} is a forecasting model; it does not translate text.`)
      return work(m)
    })
  }

  /**
   * Runs `work` with the model at `path`, opening it if needed. The model counts as in use until
   * the work settles: closing or evicting it meanwhile releases its sessions only afterwards.
   */
  private async using<T>(path: string, work: (m: LoadedModel) => Promise<T>): Promise<T> {
    let entry = this.models.get(path)
    if (entry) this.models.delete(path)
    else {
      entry = { model: LoadedModel.open(path, this.provider), users: 0, closed: false }
      const failed = entry
      // A file that failed to open is not remembered: the next call tries again.
      entry.model.catch(() => this.models.get(path) === failed && this.models.delete(path))
    }
    this.models.set(path, entry) // most recently used last
    entry.users++
    this.evict()
    try {
      return await work(await entry.model)
    } finally {
      entry.users--
      if (entry.closed) await release(entry)
      else this.evict()
    }
  }

  /** Closes the least recently used idle models beyond the limit. */
  private evict(): void {
    for (const [path, entry] of this.models) {
      if (this.models.size <= this.maxOpen) return
      if (entry.users === 0) void this.close(path)
    }
  }

  /** Releases the model's sessions (once no call is using it); the next call opens it again. */
  async close(path: string): Promise<void> {
    const entry = this.models.get(path)
    if (!entry) return
    this.models.delete(path)
    entry.closed = true
    await release(entry)
  }

  async closeAll(): Promise<void> {
    for (const p of [...this.models.keys()]) await this.close(p)
  }
}

interface OpenModel {
  model: Promise<LoadedModel>
  /** Calls running with this model now. */
  users: number
  closed: boolean
}

async function release(entry: OpenModel): Promise<void> {
  if (entry.users > 0) return
  entry.users = -1 // released: a second release is a no-op
  const m = await entry.model.catch(() => null)
  await m?.release()
}
