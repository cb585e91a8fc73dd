import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import type { DecodeOptions, EvalResult, ForecastEval, ForecastResult, ModelInfo, ProviderInfo, Translation, WhatIfRequest, WhatIfResult } from '../shared/api'
import { checkContract, ContractError, type ModelSpec } from './contract'
import { forcedDecode, greedyBatch, translate, whatIf } from './decode'
import { evaluateCorpus, type EvalOptions } from './evaluate'
import { evaluateForecast, forecastAt, type SeriesInput } from './forecast'
import { LoadedModel } from './model'
import { parseOnnx } from './onnx-graph'
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
  // Promises, so two calls that open the same file at once share one pair of sessions.
  private models = new Map<string, Promise<LoadedModel>>()

  constructor(private provider = 'cpu') {}

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
    const open = await this.models.get(path)?.catch(() => null)
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
    const model = await this.model(path)
    return { ...describeSpec(path, model.spec), provider: model.provider, providerNote: model.providerNote }
  }

  async translate(path: string, text: string, opts: DecodeOptions = {}, signal?: AbortSignal): Promise<Translation> {
    return translate(await this.translator(path), text, opts, signal)
  }

  /** Greedy translations of many sentences in one batch (corpus evaluation). */
  async translateBatch(path: string, texts: string[]): Promise<Translation[]> {
    return greedyBatch(await this.translator(path), texts)
  }

  async forced(path: string, text: string, target: string): Promise<Translation> {
    return forcedDecode(await this.translator(path), text, target)
  }

  async whatIf(path: string, req: WhatIfRequest): Promise<WhatIfResult> {
    return whatIf(await this.translator(path), req)
  }

  /** The same source through several models (the with/without attention comparison). */
  async compare(paths: string[], text: string, opts: DecodeOptions = {}): Promise<Translation[]> {
    const out: Translation[] = []
    for (const p of paths) out.push(await this.translate(p, text, opts))
    return out
  }

  async evaluate(path: string, srcs: string[], refs: string[], opts: EvalOptions = {}): Promise<EvalResult> {
    return evaluateCorpus(await this.translator(path), srcs, refs, opts)
  }

  async forecast(path: string, series: SeriesInput, origin: number): Promise<ForecastResult> {
    return forecastAt(await this.model(path), series, origin)
  }

  async evaluateForecast(path: string, series: SeriesInput, origins: number[]): Promise<ForecastEval> {
    return evaluateForecast(await this.model(path), series, origins)
  }

  /** A model that translates: a forecaster is refused in one sentence. */
  private async translator(path: string): Promise<LoadedModel> {
    const m = await this.model(path)
    if (m.spec.task !== 'translation') throw new ContractError(`${m.spec.name} is a forecasting model; it does not translate text.`)
    return m
  }

  private model(path: string): Promise<LoadedModel> {
    let p = this.models.get(path)
    if (!p) {
      p = LoadedModel.open(path, this.provider)
      this.models.set(path, p)
      // A file that failed to open is not remembered: the next call tries again.
      p.catch(() => this.models.get(path) === p && this.models.delete(path))
    }
    return p
  }

  async close(path: string): Promise<void> {
    const p = this.models.get(path)
    this.models.delete(path)
    const m = await p?.catch(() => null)
    await m?.release()
  }

  async closeAll(): Promise<void> {
    for (const p of [...this.models.keys()]) await this.close(p)
  }
}
