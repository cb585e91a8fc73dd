import { modelDtype, modelFile, withDtype, withLanguages } from '../shared/model-id'
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import type {
  CorpusProgress,
  CorpusRequest,
  CorpusResult,
  EngineStatus,
  ForcedRequest,
  ForecastRequest,
  ForecastResult,
  GuardOptions,
  ModelInfo,
  ModelSummary,
  ProviderInfo,
  SeriesData,
  Translation,
  TranslateRequest,
  WhatIfRequest,
  WhatIfResult,
} from '../shared/api'
import type { FigureData, FigureSpec } from '../shared/figure'
import type { AnimationProgress, AnimationSettings } from '../shared/animation'
import type { ContributionsRequest, ContributionsResult } from '../shared/contributions'
import type { AblationRequest, AblationTable, AlignmentBoard, AlignmentProgress, AlignmentRequest, OcclusionResult } from '../shared/alignment'
import { CancelledError, LensError } from '../shared/errors'
import type { Engine } from './engine-client'
import { FigureWorker } from './export/pool'
import type { ModelDescription } from '../engine/service'
import { MAX_GONE, MAX_VARIANTS, SettingsStore, type StoredSettings } from './settings-store'
import { parseSeriesCsv } from '../shared/series'
import { BUNDLED_HELD_OUT_STEPS, BUNDLED_SERIES } from './paths'
import type { ExampleList, ExampleQuery, ForecastWhatIfRequest, ForecastWhatIfResult, SentenceScore } from '../shared/teaching'
import { pickExamples } from '../engine/examples'
import { scoreSentence } from '../engine/sentence-score'
import { ClientCalls } from './client-calls'

const MAX_RECENT = 8

/** The bundled test sets (resources/testsets/README.md), by language pair. */
const TEST_SETS: Record<string, string> = { 'en-fr': 'Multi30K test_2016_flickr', 'zh-en': 'Tatoeba cmn-eng test split' }

/**
 * The app's side of the API, shared by the Electron main process and the browser-mode server:
 * it hands the renderer opaque model ids (never raw paths), remembers recent files and forwards
 * work to the engine process.
 */
export class LensHost {
  private paths = new Map<string, string>()
  private settings: StoredSettings = { recent: [] }
  private ready: Promise<void>
  notice?: string

  private modelsDir: string
  /** Each client's translation and corpus run in flight: its next one (or its cancel) stops it. */
  private calls = new ClientCalls()
  private progressListeners = new Set<(p: CorpusProgress) => void>()

  constructor(
    private engine: Engine,
    private dirs: { models: string; testsets: string; series: string; cache: string },
    private store: SettingsStore,
  ) {
    this.modelsDir = dirs.models
    this.ready = store.load().then(async ({ settings, notice }) => {
      this.settings = settings
      this.notice = notice
      if (settings.provider && settings.provider !== 'cpu') {
        await engine.call('setProvider', settings.provider).catch(() => (this.settings.provider = 'cpu'))
      }
    })
  }

  /** An opaque id the renderer holds: stable across restarts (the saved session names it), no path in it. */
  private idFor(path: string, bundled: boolean): string {
    const id = bundled ? `bundled:${basename(path)}` : `file:${createHash('sha256').update(resolve(path)).digest('base64url').slice(0, 22)}`
    this.paths.set(id, path)
    return id
  }

  private summary(id: string, d: ModelDescription, bundled: boolean): ModelSummary {
    return { id, name: d.name, fileName: d.fileName, task: d.task, attention: d.attention, srcLang: d.srcLang, tgtLang: d.tgtLang, bundled }
  }

  async listModels(): Promise<ModelSummary[]> {
    await this.ready
    const files = (await readdir(this.modelsDir).catch(() => [] as string[])).filter((f) => f.endsWith('.onnx')).sort()
    const bundled = files.map((f) => join(this.modelsDir, f))
    // A bundled model opened through the dialog is listed once, as bundled.
    const recent = this.settings.recent.filter((p) => !bundled.some((b) => resolve(b) === resolve(p)))
    const entries = [...bundled.map((path) => ({ path, bundled: true })), ...recent.map((path) => ({ path, bundled: false }))]
    const out: ModelSummary[] = []
    for (const { path, bundled } of entries) {
      const d = await this.engine.call('describe', path).catch(() => null)
      if (d) out.push(this.summary(this.idFor(path, bundled), d, bundled))
    }
    return out
  }

  async openModel(id: string): Promise<ModelInfo> {
    const path = this.paths.get(id)
    if (!path) {
      await this.ready
      // A browser-mode upload the last server deleted when it stopped: named, so nothing else is shown in its place.
      const gone = this.settings.gone?.[id]
      if (gone) throw new LensError(`${gone} was an upload and is gone: open it again.`, { name: 'UnknownModelError', code: 'gone-model' })
      throw new LensError('That model is not in the list; pick it again or open the file.', { name: 'UnknownModelError', code: 'unknown-model' })
    }
    return this.open(id, path)
  }

  /** A path the host itself obtained: from a dialog, a drop or an upload. */
  async openPath(path: string): Promise<ModelInfo> {
    await this.ready
    const asked = this.withChosenVariant(path)
    const id = this.idFor(asked, false)
    const info = await this.open(id, asked)
    // One recent entry per model and language pair: the one in another precision gives way.
    const opened = resolve(this.paths.get(id) ?? asked)
    this.settings.recent = [opened, ...this.settings.recent.filter((p) => withDtype(p, undefined) !== withDtype(opened, undefined))].slice(0, MAX_RECENT)
    await this.store.save(this.settings)
    return info
  }

  /** The open multilingual model again, for another language pair (its own model id and recent entry). */
  async setLanguages(src: string, tgt: string): Promise<ModelInfo> {
    if (!this.current) throw new LensError('Open a model first.', { name: 'UnknownModelError', code: 'unknown-model' })
    return this.openPath(withLanguages(this.current.path, src, tgt))
  }

  /**
   * The open Hugging Face folder again, in another of its precisions (ModelInfo.variants): the
   * choice is remembered for the folder, which opens in it from then on.
   */
  async setVariant(dtype: string): Promise<ModelInfo> {
    if (!this.current) throw new LensError('Open a model first.', { name: 'UnknownModelError', code: 'unknown-model' })
    await this.ready
    const folder = resolve(modelFile(this.current.path))
    const kept = Object.entries(this.settings.variants ?? {}).filter(([f]) => f !== folder)
    this.settings.variants = Object.fromEntries([...kept, [folder, dtype]].slice(-MAX_VARIANTS))
    return this.openPath(withDtype(this.current.path, dtype))
  }

  /** A path in the precision chosen for its folder, where one was (setVariant); else as it is. */
  private withChosenVariant(path: string): string {
    const chosen = this.settings.variants?.[resolve(modelFile(path))]
    return chosen ? withDtype(path, chosen) : path
  }

  private current: { id: string; path: string } | null = null
  /** The name of each model opened, by path: an upload deleted at stop is remembered by it. */
  private names = new Map<string, string>()

  /** The path of the latest open asked for: an earlier open that finishes after it changes nothing. */
  private wanted: string | null = null

  private async open(id: string, asked: string): Promise<ModelInfo> {
    await this.ready
    const path = this.withChosenVariant(asked)
    this.wanted = path
    let d
    try {
      d = await this.engine.call('open', path)
    } catch (e) {
      // A precision chosen for the folder that its files no longer have: forgotten, and the folder opens in its default.
      const chosen = modelDtype(path)
      if (chosen && chosen === this.settings.variants?.[resolve(modelFile(path))] && /has no \S+ variant/.test((e as Error).message)) {
        delete this.settings.variants![resolve(modelFile(path))]
        await this.store.save(this.settings)
        return this.open(id, withDtype(path, undefined))
      }
      if (this.wanted === path) this.wanted = this.current?.path ?? null
      throw e
    }
    // The id stands for the folder in the precision it opened in (a choice made since included).
    this.paths.set(id, path)
    this.names.set(path, d.name)
    if (this.wanted !== path) return { ...d, id, bundled: id.startsWith('bundled:') }
    const previous = this.current
    this.settings.lastModel = id
    this.current = { id, path }
    // The model it replaces is no longer needed: its sessions are released (views that compare
    // models open theirs on demand, and the engine keeps only a few).
    if (previous && previous.path !== path) await this.engine.call('close', previous.path).catch(() => undefined)
    return { ...d, id, bundled: id.startsWith('bundled:') }
  }

  /** The file of the model the page has open, or null. */
  get currentPath(): string | null {
    return this.current?.path ?? null
  }

  /**
   * Closes a model file and forgets it (a browser-mode upload about to be deleted): its sessions
   * are released, its id stops working and it leaves the recent files. `gone` (an upload deleted
   * because the server stops): its id and name are kept in the settings, so that a page whose
   * saved session names it is told it is gone (openModel) rather than shown another model. The
   * file goes with every way it was opened: a folder opened for another language pair or in
   * another precision (`DIR?src_lang=en&tgt_lang=fr`) is the same files.
   */
  async forget(path: string, opts: { gone?: boolean } = {}): Promise<void> {
    await this.ready
    const file = modelFile(path)
    const same = (p: string | null | undefined) => p != null && modelFile(p) === file
    const opened = new Set([path, ...[...this.names.keys()].filter(same), ...[...this.paths.values()].filter(same)])
    for (const p of opened) await this.engine.call('close', p).catch(() => undefined)
    if (same(this.current?.path)) this.current = null
    if (same(this.wanted)) this.wanted = null
    let changed = false
    for (const [id, p] of this.paths) {
      if (!same(p)) continue
      this.paths.delete(id)
      const name = this.names.get(p)
      if (opts.gone && name) {
        const kept = Object.entries(this.settings.gone ?? {}).filter(([k]) => k !== id)
        this.settings.gone = Object.fromEntries([...kept, [id, name]].slice(-MAX_GONE))
        changed = true
      }
    }
    for (const p of opened) this.names.delete(p)
    const recent = this.settings.recent.filter((p) => modelFile(p) !== resolve(file))
    if (recent.length !== this.settings.recent.length) {
      this.settings.recent = recent
      changed = true
    }
    if (changed) await this.store.save(this.settings)
  }

  async takeNotice(): Promise<string | null> {
    await this.ready
    const n = this.notice ?? null
    this.notice = undefined
    return n
  }

  async listProviders(): Promise<{ providers: ProviderInfo[]; chosen: string }> {
    await this.ready
    return { providers: await this.engine.call('providers'), chosen: this.settings.provider ?? 'cpu' }
  }

  async setProvider(name: string): Promise<ModelInfo | null> {
    await this.ready
    await this.engine.call('setProvider', name)
    this.settings.provider = name
    await this.store.save(this.settings)
    return this.current ? this.open(this.current.id, this.current.path) : null
  }

  private pathOf(id: string): string {
    const path = this.paths.get(id)
    if (!path) throw new LensError('Open a model first.', { name: 'UnknownModelError', code: 'unknown-model' })
    return path
  }

  /**
   * `client` is the page or window that asked (null: a script or the CLI). A newer sentence from
   * the same client supersedes the one still decoding: that one stops instead of finishing.
   */
  async translate(req: TranslateRequest, client: string | null = null): Promise<Translation> {
    const path = this.pathOf(req.modelId)
    const call = this.calls.start('translate', client)
    const opts = {
      beam: req.beam,
      lengthPenalty: req.lengthPenalty,
      topK: req.topK,
      encoderStates: req.encoderStates,
      noRepeatNgram: req.noRepeatNgram,
      maxRepeat: req.maxRepeat,
    }
    try {
      const t = await this.engine.callWith({ signal: call.signal }, 'translate', path, req.text, opts)
      // A decode that finished as its cancel arrived is stale all the same: the newer one wins.
      if (call.signal.aborted) throw new CancelledError('The translation was cancelled.')
      return { ...t, modelId: req.modelId }
    } finally {
      call.done()
    }
  }

  async cancelTranslate(client: string | null = null): Promise<void> {
    this.calls.cancel('translate', client)
  }

  async compare(req: { modelIds: string[]; text: string } & GuardOptions): Promise<Translation[]> {
    const ids = req.modelIds
    const out = await this.engine.call(
      'compare',
      ids.map((id) => this.pathOf(id)),
      req.text,
      { noRepeatNgram: req.noRepeatNgram, maxRepeat: req.maxRepeat },
    )
    return out.map((t, i) => ({ ...t, modelId: ids[i] }))
  }

  async whatIf(req: WhatIfRequest): Promise<WhatIfResult> {
    const r = await this.engine.call('whatIf', this.pathOf(req.modelId), req)
    return { ...r, original: { ...r.original, modelId: req.modelId }, modified: { ...r.modified, modelId: req.modelId } }
  }

  async forced(req: ForcedRequest): Promise<Translation> {
    const t = await this.engine.call('forced', this.pathOf(req.modelId), req.text, req.target)
    return { ...t, modelId: req.modelId }
  }

  /** Sentence BLEU and chrF of the model's output against a reference. */
  scoreSentence(req: { hypothesis: string; reference: string }): SentenceScore {
    return scoreSentence(req.hypothesis, req.reference)
  }

  /** The sentences of a test set are read once and kept: a picker filters them on every keystroke. */
  private testSets = new Map<string, Promise<[string[], string[]]>>()

  async listExamples(q: ExampleQuery): Promise<ExampleList> {
    const pair = q.pair
    // The route's schema checked this already; kept because the pair becomes a file name below.
    if (!/^[a-z]{2,3}-[a-z]{2,3}$/.test(pair)) throw new Error(`"${pair}" is not a language pair.`)
    let set = this.testSets.get(pair)
    if (!set) {
      const [src, tgt] = pair.split('-')
      const read = (lang: string) => readFile(join(this.dirs.testsets, `${pair}.${lang}`), 'utf8').then((t) => t.replace(/\n$/, '').split('\n'))
      set = Promise.all([read(src), read(tgt)])
      this.testSets.set(pair, set)
      set.catch(() => this.testSets.delete(pair))
    }
    const [srcs, refs] = await set.catch(() => {
      throw new LensError(`There is no bundled test set for ${pair}, so there are no example sentences.`, { name: 'NoExamplesError', code: 'no-examples' })
    })
    return { pair, testSet: TEST_SETS[pair] ?? pair, ...pickExamples(srcs, refs, q) }
  }

  /** The same sentence through several models or beam widths, one after another (side by side). */
  async translateEach(req: { text: string; runs: ({ modelId: string; beam?: number } & GuardOptions)[] }): Promise<Translation[]> {
    const out: Translation[] = []
    for (const r of req.runs) {
      const t = await this.engine.call('translate', this.pathOf(r.modelId), req.text, { beam: r.beam, noRepeatNgram: r.noRepeatNgram, maxRepeat: r.maxRepeat })
      out.push({ ...t, modelId: r.modelId })
    }
    return out
  }

  /**
   * Scores the models on the user's test set (a source file and a reference file, line by line)
   * or, without one, on the bundled test set of their (common) language pair. Results are cached
   * by the engine under the hash of the model file and the test set's text.
   */
  async runCorpus(req: CorpusRequest, client: string | null = null): Promise<CorpusResult> {
    // The route's schema asks for one to 32 model ids.
    const ids = req.modelIds
    const { infos, pair } = await this.translationPair(ids)
    const { srcs, refs, testSet } = await this.testSet(pair, infos[0].srcLang, infos[0].tgtLang, req)
    const call = this.calls.start('corpus', client)
    try {
      const results: CorpusResult['results'] = []
      for (let i = 0; i < ids.length; i++) {
        if (call.signal.aborted) throw new CancelledError('The evaluation was cancelled.')
        const onProgress = (p: { done: number; total: number }) => {
          for (const l of this.progressListeners) l({ ...p, modelId: ids[i], index: i, count: ids.length })
        }
        const r = await this.engine.callWith({ signal: call.signal, onProgress }, 'evaluate', this.pathOf(ids[i]), srcs, refs, this.dirs.cache)
        results.push({ ...r, hypotheses: [], modelId: ids[i], attention: infos[i].attention })
        onProgress({ done: srcs.length, total: srcs.length })
      }
      return { pair, testSet, results }
    } finally {
      call.done()
    }
  }

  /** The models' descriptions and their one language pair (BLEU scores translations of one pair). */
  private async translationPair(ids: string[]): Promise<{ infos: ModelDescription[]; pair: string }> {
    const infos = await Promise.all(ids.map((id) => this.engine.call('describe', this.pathOf(id))))
    const forecaster = infos.find((d) => d.task === 'forecasting')
    if (forecaster) throw new Error(`${forecaster.name} is a forecasting model; BLEU scores translations.`)
    const pair = `${infos[0].srcLang}-${infos[0].tgtLang}`
    if (infos.some((d) => `${d.srcLang}-${d.tgtLang}` !== pair)) throw new Error('The models must share one language pair.')
    return { infos, pair }
  }

  /** The sentences to score: the user's files when given, else the pair's bundled test set. */
  private async testSet(pair: string, src: string, tgt: string, req: CorpusRequest): Promise<{ srcs: string[]; refs: string[]; testSet: string }> {
    const lines = (text: string) => {
      const t = text.replace(/^\uFEFF/, '').replace(/\r?\n$/, '')
      return t === '' ? [] : t.split(/\r?\n/)
    }
    if (req.source || req.reference) {
      if (!req.source || !req.reference) throw new Error('Choose both a source file and a reference file (one sentence per line).')
      const srcs = lines(req.source.text)
      const refs = lines(req.reference.text)
      if (srcs.length === 0) throw new Error(`The source file ${req.source.name} is empty.`)
      if (srcs.length !== refs.length) {
        throw new Error(
          `The source file ${req.source.name} has ${srcs.length} lines but the reference file ${req.reference.name} has ${refs.length}; they must match line by line.`,
        )
      }
      return { srcs, refs, testSet: `${req.source.name} → ${req.reference.name}` }
    }
    const read = (lang: string) =>
      readFile(join(this.dirs.testsets, `${pair}.${lang}`), 'utf8').then(lines, () => {
        throw new Error(`There is no bundled test set for ${pair}: choose a source file and a reference file (one sentence per line).`)
      })
    const [srcs, refs] = await Promise.all([read(src), read(tgt)])
    return { srcs, refs, testSet: pair === 'en-fr' ? 'Multi30K test_2016_flickr' : pair === 'zh-en' ? 'Tatoeba cmn-eng test split' : pair }
  }

  /**
   * The Alignment panel's scoreboard: the gold set against the chosen models (every one of the
   * gold's language pair), the statistical aligner trained on the gold pairs plus the pair's
   * bundled test set (the training corpora are not shipped), and awesome-align's file if given.
   */
  async runAlignment(req: AlignmentRequest, client: string | null = null): Promise<AlignmentBoard> {
    const ids = req.modelIds.map(String)
    if (ids.length === 0) throw new Error('Choose at least one model.')
    const infos = await Promise.all(ids.map((id) => this.engine.call('describe', this.pathOf(id))))
    const other = infos.find((d) => d.task !== 'translation' || `${d.srcLang}-${d.tgtLang}` !== `${infos[0].srcLang}-${infos[0].tgtLang}`)
    if (other) throw new Error(`${other.name} is not a model of the pair ${infos[0].srcLang}-${infos[0].tgtLang}: score one language pair at a time.`)
    const { srcLang, tgtLang } = infos[0]
    const pair = `${srcLang}-${tgtLang}`
    const corpus = await this.testSet(pair, srcLang, tgtLang, { modelIds: ids }).then(
      ({ srcs, refs, testSet }) => ({ name: testSet, src: srcs, tgt: refs, srcLang, tgtLang }),
      () => null,
    )
    // Its own kind of call: the client's next alignment run (or alignment:cancel) stops it, BLEU by length does not.
    const call = this.calls.start('alignment', client)
    try {
      const board = await this.engine.callWith(
        { signal: call.signal, onProgress: (p) => this.alignmentProgress({ task: 'board', ...p }) },
        'alignBoard',
        ids.map((id) => this.pathOf(id)),
        { pair, pairs: req.pairs, gold: req.gold, ...(req.awesome ? { awesome: req.awesome } : {}), corpus },
      )
      return { ...board, models: board.models.map((m, i) => ({ ...m, modelId: ids[i] })) }
    } finally {
      call.done()
    }
  }

  /**
   * Corpus attention ablation: each model decodes the first `limit` sentences of the set (the
   * user's files, else the pair's bundled test set) with its own, uniform and permuted attention.
   * The client's next ablation run (or ablation:cancel) stops it.
   */
  async runAblation(req: AblationRequest, client: string | null = null): Promise<AblationTable> {
    const ids = req.modelIds
    const { infos, pair } = await this.translationPair(ids)
    const set = await this.testSet(pair, infos[0].srcLang, infos[0].tgtLang, req)
    const srcs = set.srcs.slice(0, req.limit)
    const refs = set.refs.slice(0, req.limit)
    const call = this.calls.start('ablation', client)
    try {
      const rows: AblationTable['rows'] = []
      for (let i = 0; i < ids.length; i++) {
        if (call.signal.aborted) throw new CancelledError('The ablation was cancelled.')
        const model = { name: infos[i].name, index: i, count: ids.length }
        const onProgress = (p: { done: number; total: number }) => this.alignmentProgress({ task: 'ablation', ...p, model })
        const r = await this.engine.callWith({ signal: call.signal, onProgress }, 'ablation', this.pathOf(ids[i]), srcs, refs)
        rows.push({ ...r, modelId: ids[i], name: infos[i].name, attention: infos[i].attention })
      }
      return { pair, testSet: set.testSet, sentences: srcs.length, available: set.srcs.length, rows }
    } finally {
      call.done()
    }
  }

  async cancelAblation(client: string | null = null): Promise<void> {
    this.calls.cancel('ablation', client)
  }

  async occlusion(req: { modelId: string; text: string }): Promise<OcclusionResult> {
    return this.engine.call('occlusion', this.pathOf(req.modelId), req.text)
  }

  /**
   * Every contribution method for one sentence (issue 41), the output on show forced through or
   * the greedy one. The same client's next request (or contributions:cancel) stops this one.
   */
  async contributions(req: ContributionsRequest, client: string | null = null): Promise<ContributionsResult> {
    const path = this.pathOf(req.modelId)
    const call = this.calls.start('contributions', client)
    try {
      const r = await this.engine.callWith({ signal: call.signal }, 'contributions', path, { text: req.text, ...(req.pieces ? { pieces: req.pieces } : {}) })
      if (call.signal.aborted) throw new CancelledError('The contributions were cancelled.')
      return { ...r, modelId: req.modelId }
    } finally {
      call.done()
    }
  }

  async cancelContributions(client: string | null = null): Promise<void> {
    this.calls.cancel('contributions', client)
  }

  async forecastSeries(): Promise<SeriesData> {
    const text = await readFile(join(this.dirs.series, BUNDLED_SERIES), 'utf8').catch(() => {
      throw new Error('The bundled series (resources/series) is missing from this installation.')
    })
    const s = parseSeriesCsv(text, 'Taylor (2003), England and Wales demand, held-out weeks')
    return { ...s, heldOutStart: Math.max(0, s.values.length - BUNDLED_HELD_OUT_STEPS) }
  }

  async forecast(req: ForecastRequest): Promise<ForecastResult> {
    const r = await this.engine.call('forecast', this.pathOf(req.modelId), { timestamps: req.timestamps, values: req.values }, req.origin)
    return { ...r, modelId: req.modelId }
  }

  async forecastWhatIf(req: ForecastRequest & ForecastWhatIfRequest): Promise<ForecastWhatIfResult<ForecastResult>> {
    const { steps, mode, lag, lags } = req
    const r = await this.engine.call('forecastWhatIf', this.pathOf(req.modelId), { timestamps: req.timestamps, values: req.values }, req.origin, {
      steps,
      mode,
      lag,
      lags,
    })
    return { original: { ...r.original, modelId: req.modelId }, modified: { ...r.modified, modelId: req.modelId } }
  }

  /** Figures render on a worker thread, so a 4× PNG freezes neither the window nor the server. */
  private figures = new FigureWorker()

  /** Renders a figure from data the renderer sent; the worker checks it against the figure schema first (a RefusedError). */
  async renderFigure(data: FigureData, spec: FigureSpec): Promise<Buffer> {
    return this.figures.render(data, spec)
  }

  /** A figure's files: a figure split into parts is one file per part as PNG or SVG (suffixes "-1", "-2", …), one PDF of a page per part. */
  async renderFigureFiles(data: FigureData, spec: FigureSpec): Promise<{ suffix: string; bytes: Buffer }[]> {
    return this.figures.renderFiles(data, spec)
  }

  /**
   * An animated GIF or APNG of a view over its decoder steps (issue 34), on the same worker. Each
   * frame drawn comes as export:progress; the client's cancel (or its next animation) stops it
   * between frames, with a CancelledError.
   */
  async renderAnimation(data: FigureData, spec: FigureSpec, settings: AnimationSettings, client: string | null = null): Promise<Buffer> {
    const call = this.calls.start('animation', client)
    const onProgress = (p: AnimationProgress) => {
      for (const l of this.exportListeners) l(p)
    }
    try {
      return await this.figures.animate(data, spec, settings, { signal: call.signal, onProgress })
    } catch (e) {
      if (call.signal.aborted) throw new CancelledError('The export was cancelled; nothing was saved.')
      throw e
    } finally {
      call.done()
    }
  }

  async cancelExport(client: string | null = null): Promise<void> {
    this.calls.cancel('animation', client)
  }

  private exportListeners = new Set<(p: AnimationProgress) => void>()
  onExportProgress(listener: (p: AnimationProgress) => void): () => void {
    this.exportListeners.add(listener)
    return () => this.exportListeners.delete(listener)
  }

  async cancelAlignment(client: string | null = null): Promise<void> {
    this.calls.cancel('alignment', client)
  }

  async cancelCorpus(client: string | null = null): Promise<void> {
    this.calls.cancel('corpus', client)
  }

  onCorpusProgress(listener: (p: CorpusProgress) => void): () => void {
    this.progressListeners.add(listener)
    return () => this.progressListeners.delete(listener)
  }

  private alignmentListeners = new Set<(p: AlignmentProgress) => void>()
  private alignmentProgress(p: AlignmentProgress): void {
    for (const l of this.alignmentListeners) l(p)
  }

  onAlignmentProgress(listener: (p: AlignmentProgress) => void): () => void {
    this.alignmentListeners.add(listener)
    return () => this.alignmentListeners.delete(listener)
  }

  onEngineStatus(listener: (s: EngineStatus) => void): () => void {
    return this.engine.onEvent((e) => listener({ state: 'restarted', message: e.message }))
  }
}
