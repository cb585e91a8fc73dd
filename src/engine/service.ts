import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import type {
  CheckFeature,
  CheckFinding,
  DecodeOptions,
  EvalResult,
  ForecastEval,
  ForecastResult,
  ModelInfo,
  ProviderInfo,
  Translation,
  WhatIfRequest,
  WhatIfResult,
} from '../shared/api'
import { CancelledError, LensError } from '../shared/errors'
import { KINDS } from '../shared/attention-kinds'
import type { AblationRow, OcclusionResult } from '../shared/alignment'
import { ablationSet } from './align/ablation'
import { buildBoard, type BoardInput, type BoardProgress, type BuiltBoard } from './align/board'
import { occlusion, occlusionSummary } from './align/occlusion'
import { blocked, FEATURE_NAMES, openingFindings } from './check'
import { ContractError, type ModelSpec } from './contract'
import { forcedDecode, greedyBatch, translate, whatIf } from './decode'
import { evaluateCorpus, type EvalOptions } from './evaluate'
import { evaluateForecast, forecastAt, type SeriesInput } from './forecast'
import { forecastWhatIf } from './forecast-whatif'
import type { ForecastWhatIfRequest, ForecastWhatIfResult } from '../shared/teaching'
import { CONTRIBUTIONS_NOT_OFFERED, shownContributions, type ContributionsRequest, type EngineContributionsResult } from '../shared/contributions'
import { ContributionTapError, openAttributor, type Attributor } from './contributions'
import { forcedIds } from './contributions/pieces'
import { contextNormResult } from './contributions/rnn-result'
import { RnnContextModel } from './contributions/rnn'

/** What a forecast what-if overrides: the steps and the weights. */
export type ForecastOverrideRequest = Pick<ForecastWhatIfRequest, 'steps' | 'mode' | 'lag' | 'lags'>
import { LoadedModel } from './model'
import { describeModel, modelFile } from './formats'
import { MAX_OPEN_MODELS } from './limits'
import { isKnownProvider, listProviders } from './providers'

/** One model's row of the ablation table, before the host names it. */
export type AblationResult = Pick<AblationRow, 'own' | 'uniform' | 'permuted' | 'why' | 'occlusion'>

/** Occlusion decodes a sentence once per source word: the ablation's occlusion summary takes this many of the set's first sentences. */
export const ABLATION_OCCLUSION_SENTENCES = 50

/** What a model file says about itself, without sessions: enough for a picker. */
export type ModelDescription = Omit<ModelInfo, 'id' | 'bundled' | 'provider' | 'providerNote'>

function describeSpec(path: string, spec: ModelSpec): ModelDescription {
  return {
    name: spec.name,
    fileName: basename(modelFile(path)),
    task: spec.task,
    attention: spec.attention,
    srcLang: spec.srcLang,
    tgtLang: spec.tgtLang,
    windowD: spec.windowD,
    ...(spec.localScore ? { localScore: spec.localScore } : {}),
    ...(spec.heads ? { heads: { layers: spec.heads.layers, heads: spec.heads.heads } } : {}),
    ...(spec.languages ? { languages: spec.languages } : {}),
    ...(spec.targetLanguages ? { targetLanguages: spec.targetLanguages } : {}),
    ...(spec.needsLanguages ? { needsLanguages: true } : {}),
    ...(spec.generation ? { defaultGuard: { ...spec.generation.guard } } : {}),
    ...(spec.variants ? { variants: spec.variants.map((v) => ({ ...v })) } : {}),
    ...(spec.dtype ? { dtype: spec.dtype } : {}),
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
      const info = await stat(modelFile(path))
      const stamp = `${info.size}:${info.mtimeMs}`
      const known = this.described.get(path)
      if (known?.stamp === stamp) return known.description
      const description = describeSpec(path, await describeModel(path))
      this.described.set(path, { stamp, description })
      return description
    } catch (e) {
      if (e instanceof ContractError) throw e
      throw new ContractError(`The file is not a model this app can read: ${(e as Error).message}.`)
    }
  }

  async open(path: string): Promise<ModelDescription & { provider: string; providerNote: string | null; findings: CheckFinding[] }> {
    return this.using(path, async (model) => ({
      ...describeSpec(path, model.spec),
      provider: model.provider,
      providerNote: model.providerNote,
      findings: await this.findingsFor(path, model),
    }))
  }

  // What the checks at opening found, by path, for as long as the file and the provider stay the
  // same: a model reopened after eviction is not decoded through again.
  private checked = new Map<string, { stamp: string; findings: Promise<CheckFinding[]> }>()

  /** The checks of src/engine/check.ts on a newly opened model; a model that cannot be used is closed and refused. */
  private async findingsFor(path: string, model: LoadedModel): Promise<CheckFinding[]> {
    const info = await stat(modelFile(path))
    const stamp = `${info.size}:${info.mtimeMs}:${model.provider}`
    let known = this.checked.get(path)
    if (known?.stamp !== stamp) {
      known = { stamp, findings: openingFindings(model) }
      this.checked.set(path, known)
    }
    return known.findings.catch((e: unknown) => {
      if (this.checked.get(path) === known) this.checked.delete(path)
      void this.close(path)
      throw e
    })
  }

  /** Refuses, in one sentence, a feature the checks at opening found this model cannot use. */
  private async allowed(path: string, feature: CheckFeature): Promise<void> {
    const f = blocked(await this.checked.get(path)?.findings.catch(() => undefined), feature)
    if (f) throw new ContractError(`This model cannot use ${FEATURE_NAMES[feature]}: ${f.message}`)
  }

  /** Batches that fail or that decode differently from single sentences are not used for this model. */
  private async batchSize(path: string): Promise<number | undefined> {
    const findings = await this.checked.get(path)?.findings.catch(() => undefined)
    return findings?.some((f) => f.feature === 'batch') ? 1 : undefined
  }

  async translate(path: string, text: string, opts: DecodeOptions = {}, signal?: AbortSignal): Promise<Translation> {
    if ((opts.beam ?? 1) > 1) await this.allowed(path, 'beam')
    return this.translating(path, (m) => translate(m, text, opts, signal))
  }

  /** Greedy translations of many sentences in one batch (corpus evaluation). */
  async translateBatch(path: string, texts: string[]): Promise<Translation[]> {
    return this.translating(path, (m) => greedyBatch(m, texts))
  }

  async forced(path: string, text: string, target: string): Promise<Translation> {
    await this.allowed(path, 'forced')
    return this.translating(path, (m) => forcedDecode(m, text, target))
  }

  async whatIf(path: string, req: WhatIfRequest): Promise<WhatIfResult> {
    await this.allowed(path, 'what-if')
    return this.translating(path, (m) => whatIf(m, req))
  }

  /** The same source through several models (the with/without attention comparison); a failure names its model. */
  async compare(paths: string[], text: string, opts: DecodeOptions = {}): Promise<Translation[]> {
    const out: Translation[] = []
    for (const p of paths) {
      try {
        out.push(await this.translate(p, text, opts))
      } catch (e) {
        if (!(e instanceof Error) || e.name === 'CancelledError') throw e
        const name = await this.describe(p).then(
          (d) => d.name,
          () => basename(p),
        )
        const named = new LensError(`${name}: ${e.message}`, { name: e.name, code: e instanceof LensError ? e.code : 'error' })
        throw named
      }
    }
    return out
  }

  async evaluate(path: string, srcs: string[], refs: string[], opts: EvalOptions = {}): Promise<EvalResult> {
    const batchSize = (await this.batchSize(path)) ?? opts.batchSize
    return this.translating(path, (m) => evaluateCorpus(m, srcs, refs, { ...opts, batchSize }))
  }

  /** The Alignment panel's scoreboard: every model on a gold set, the statistical aligner, awesome-align's file (src/engine/align/board.ts). */
  async alignBoard(paths: string[], input: BoardInput, opts: { signal?: AbortSignal; onProgress?: (p: BoardProgress) => void } = {}): Promise<BuiltBoard> {
    return buildBoard(paths, input, (p, work) => this.translating(p, work), opts)
  }

  /**
   * Corpus attention ablation of one model: own, uniform and permuted attention (src/engine/align/ablation.ts),
   * without the hypotheses, and occlusion summarised over the set's first sentences; progress counts both.
   */
  async ablation(
    path: string,
    srcs: string[],
    refs: string[],
    opts: { signal?: AbortSignal; onProgress?: (p: { done: number; total: number }) => void } = {},
  ): Promise<AblationResult> {
    const batchSize = await this.batchSize(path)
    return this.translating(path, async (m) => {
      const occN = KINDS[m.spec.attention].attends ? Math.min(ABLATION_OCCLUSION_SENTENCES, srcs.length) : 0
      let runs = 0
      const report = (done: number, total: number) => opts.onProgress?.({ done, total: total + occN })
      const r = await ablationSet(m, srcs, refs, { batchSize, signal: opts.signal, onProgress: (done, total) => report(done, (runs = total)) })
      const occ = occN ? await occlusionSummary(m, srcs.slice(0, occN), { signal: opts.signal, onProgress: (done) => report(runs + done, runs) }) : null
      const cell = (x: { bleu: number; refLogProb: number } | null) => x && { bleu: x.bleu, refLogProb: x.refLogProb }
      return {
        own: cell(r.own)!,
        uniform: cell(r.uniform),
        permuted: cell(r.permuted),
        why: r.why,
        occlusion: occ && { sentences: occ.sentences, meanTau: occ.meanTau, top1Rate: occ.top1Rate },
      }
    })
  }

  /** Leave-one-word-out importance beside attention for one sentence (src/engine/align/occlusion.ts). */
  async occlusion(path: string, text: string, signal?: AbortSignal): Promise<OcclusionResult> {
    return this.translating(path, (m) => occlusion(m, text, signal))
  }

  async forecast(path: string, series: SeriesInput, origin: number): Promise<ForecastResult> {
    return this.using(path, (m) => forecastAt(m, series, origin))
  }

  /** The forecast again with attention overridden (forecast-whatif.ts). */
  async forecastWhatIf(path: string, series: SeriesInput, origin: number, req: ForecastOverrideRequest): Promise<ForecastWhatIfResult<ForecastResult>> {
    await this.allowed(path, 'what-if')
    return this.using(path, (m) => forecastWhatIf(m, series, origin, req))
  }

  async evaluateForecast(path: string, series: SeriesInput, origins: number[]): Promise<ForecastEval> {
    const batch = await this.batchSize(path)
    return this.using(path, (m) => evaluateForecast(m, series, origins, batch))
  }

  // The contribution methods' own sessions (src/engine/contributions), cut from the file once, by path.
  private contributionModels = new Map<string, Promise<Attributor | RnnContextModel>>()

  /**
   * Every contribution method (issue 41) for one sentence: the pieces given forced through, or the
   * greedy output, in one tapped forward pass; with that pass's raw cross-attention weights (the
   * mean over layers and heads). Bundled Transformers and Hugging Face folders; an RNN with
   * attention gets the context-norm analogue (contributions/rnn.ts); an RNN without, or a graph the
   * taps do not recognise, is refused with a ContributionsNotOfferedError that says why.
   */
  async contributions(path: string, req: Omit<ContributionsRequest, 'modelId'>, signal?: AbortSignal): Promise<EngineContributionsResult> {
    return this.translating(path, async (m) => {
      const refuse = (why: string) => new LensError(why, { name: 'ContributionsNotOfferedError', code: CONTRIBUTIONS_NOT_OFFERED })
      const t0 = performance.now()
      const rnn = m.spec.attention !== 'transformer'
      let entry = this.contributionModels.get(path)
      if (!entry) {
        // A graph whose layers the taps do not recognise is refused with what they missed.
        const opening: Promise<Attributor | RnnContextModel> = rnn ? RnnContextModel.open(path) : openAttributor(path)
        const opened = opening.catch((e: unknown) => {
          if (!(e instanceof ContributionTapError)) throw e
          throw refuse(
            rnn
              ? `${m.spec.name} is an RNN (${KINDS[m.spec.attention].displayName}), and the RNN analogue of the source share cannot read it: ${e.message}. Value norms, ALTI, ALTI+ and rollout need a Transformer.`
              : `Contributions cannot read this model's graph yet: ${e.message}`,
          )
        })
        entry = opened
        this.contributionModels.set(path, opened)
        opened.catch(() => this.contributionModels.get(path) === opened && this.contributionModels.delete(path))
      }
      const opened = await entry
      if (opened instanceof RnnContextModel) return contextNormResult(opened, req, t0, signal)
      const cm = opened
      if (signal?.aborted) throw new CancelledError('The contributions were cancelled.')
      const src = cm.encodeSource(req.text)
      const target = forcedIds(cm.spec, req.pieces)
      const tp = await cm.run(src.ids, target)
      if (signal?.aborted) throw new CancelledError('The contributions were cancelled.')
      const c = shownContributions(cm.contributions(tp))
      const cells = tp.dec.length * (tp.dec[0]?.cross.length ?? 0)
      const raw = Array.from({ length: tp.T }, (_, t) =>
        Array.from({ length: tp.S }, (_, s) => tp.dec.reduce((a, l) => a + l.cross.reduce((b, h) => b + h[t][s], 0), 0) / Math.max(1, cells)),
      )
      return { ...c, method: 'transformer', forced: target !== null, raw, seconds: { run: tp.runSeconds, total: (performance.now() - t0) / 1000 } }
    })
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
    const contrib = this.contributionModels.get(path)
    if (contrib) {
      this.contributionModels.delete(path)
      await contrib.then((c) => c.release()).catch(() => undefined)
    }
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
