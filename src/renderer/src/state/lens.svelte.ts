import type { FolderFile } from '../../../shared/routes'
import type { UploadProgress } from '../../../shared/upload-progress'
import { folderVariantsOf } from '../../../shared/hf-folder-files'
import { capabilitiesOf } from '../../../shared/attention-kinds'
import { TAB_VIEWS, viewDef, viewOffered, type TabView } from '../../../shared/charts/views'
import type { ModelInfo, ModelSummary, ProviderInfo, Translation } from '../../../shared/api'
import { isHeadOf, type HeadRef } from '../../../shared/attention/heads'
import { inUnits, UNITS, type Units } from '../../../shared/attention/word-translation'
import type { HeatmapStyle } from '../../../shared/charts/heatmap'
import type { ExampleSentence, SentenceScore } from '../../../shared/teaching'
import { api } from '../lib/api'
import { rememberModelName } from '../lib/model-names'
import { Latest } from '../lib/latest'
import { DEFAULT_REPEAT_GUARD, validSetting, type RepeatGuard } from '../../../shared/repeat-guard'

/** Typing pauses this long before a sentence is sent: short enough to follow the typing. */
export const DEBOUNCE_MS = 100
/** A sentence joins the history once it has been translated and left alone this long. */
export const HISTORY_MS = 1500
export const MAX_HISTORY = 50

/** A tab of the translation window (the view registry, src/shared/charts/views, lists them). */
export type ViewName = TabView
export const VIEWS: readonly ViewName[] = TAB_VIEWS
const SAVED_KEY = 'attention-lens:session'
/**
 * Browser mode: what was chosen for each dropped folder, by its name (an upload's path on the
 * server is new each time): its precision, and the language pair of a folder that names none.
 */
const MAX_FOLDER_CHOICES = 50

function folderChoices<T>(key: string, valid: (v: unknown) => v is T) {
  const all = (): Record<string, unknown> => {
    try {
      const v = JSON.parse(localStorage.getItem(key) ?? '{}') as unknown
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
    } catch {
      return {}
    }
  }
  return {
    get: (name: string): T | undefined => {
      const v = all()[name]
      return valid(v) ? v : undefined
    },
    set: (name: string, value: T): void => {
      const kept = Object.entries(all()).filter(([n]) => n !== name)
      localStorage.setItem(key, JSON.stringify(Object.fromEntries([...kept, [name, value]].slice(-MAX_FOLDER_CHOICES))))
    },
  }
}
const folderVariant = folderChoices('attention-lens:folder-variants', (v): v is string => typeof v === 'string')
const folderPair = folderChoices(
  'attention-lens:folder-pairs',
  (v): v is [string, string] => Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string'),
)

/** Tab ids saved by earlier versions, as they are called now. */
const RENAMED: Record<string, ViewName> = { compare: 'comparison' }

/** What a view does with the selected step and source token when opened (its registry entry says why). */
export function selectionOnEnter(v: ViewName): 'reset' | 'keep' {
  return viewDef(v)?.tab?.selection ?? 'keep'
}

/** Which decoding the single-translation views draw: the model's own output, or the reference forced through it. */
export type Shown = 'model' | 'reference'

interface Saved {
  model?: string
  text?: string
  reference?: string
  view?: string
  heatmap?: HeatmapStyle
  beam?: number
  guard?: Partial<RepeatGuard>
  history?: string[]
  units?: Units
}

/** Views that draw the encoder states h_j; the others do without shipping them from the engine. */
const needsEncoderStates = (v: ViewName): boolean => !!viewDef(v)?.tab?.encoderStates

/** What the main view shows: the model, the sentence, its translation and the selection. */
export class LensState {
  models = $state.raw<ModelSummary[]>([])
  model = $state.raw<ModelInfo | null>(null)
  text = $state('')
  translation = $state.raw<Translation | null>(null)
  /** A reference translation (typed, or from an example) and the model's forced decoding of it. */
  reference = $state('')
  forced = $state.raw<Translation | null>(null)
  /** The reference `forced` decoded: the field can change while its decoding is on the way. */
  forcedReference = $state<string | null>(null)
  /** Sentence BLEU and chrF of the model's output against the reference. */
  score = $state.raw<SentenceScore | null>(null)
  shown = $state<Shown>('model')
  /** The last sentences translated, most recent first. */
  history = $state.raw<string[]>([])
  /** True from start until the first model is open (or failed to open), and while any model opens. */
  loading = $state(false)
  /** Browser mode: a dropped folder going up, the bytes sent of the file going up and of them all; null otherwise. */
  upload = $state.raw<UploadProgress | null>(null)
  private uploadSeq = 0
  busy = $state(false)
  error = $state<string | null>(null)
  notice = $state<string | null>(null)
  selectedRow = $state<number | null>(null)
  selectedCol = $state<number | null>(null)
  view = $state<ViewName>('heatmap')
  /** 1 = greedy, 2–16 = beam search. */
  beam = $state(1)
  /** The repeat-guard settings chosen in the Decoding menu (0 turns one off); the others are the open model's default. */
  guardChosen = $state.raw<Partial<RepeatGuard>>({})
  /**
   * The repeat guards of every free decode (src/shared/repeat-guard.ts): those chosen, else the
   * model's own (a Hugging Face folder decodes as its generation_config.json says: none unless it
   * sets no_repeat_ngram_size), else the app's, on by default.
   */
  get guard(): RepeatGuard {
    return { ...(this.model?.defaultGuard ?? DEFAULT_REPEAT_GUARD), ...this.guardChosen }
  }
  heatmapStyle = $state<HeatmapStyle>({ colormap: 'viridis', scale: 'linear', norm: 'fixed', labels: 'auto' })
  /** A Transformer's cross-attention head opened large (the heatmap shows it, what-if offers it first); null: the average of every head. */
  head = $state.raw<HeadRef | null>(null)
  /** Whole words (source pieces summed, output pieces averaged) or the model's subword pieces, in the views that draw a whole sentence. */
  units = $state<Units>('words')
  providers = $state.raw<ProviderInfo[]>([])
  provider = $state('cpu')

  /** The latest request of each kind wins: a decode, a forced reference, a score, a model to open. */
  private decodes = new Latest()
  private references = new Latest()
  private scores = new Latest()
  private openings = new Latest()
  private timer: ReturnType<typeof setTimeout> | undefined
  private historyTimer: ReturnType<typeof setTimeout> | undefined

  /** The forced decoding on show is of another reference than the one typed, until the new one arrives. */
  get forcedStale(): boolean {
    return this.forced !== null && this.forcedReference !== this.reference
  }

  /** The translation the single-translation views draw: the model's output, or the forced reference. */
  get current(): Translation | null {
    return this.shown === 'reference' && this.forced ? this.forced : this.translation
  }

  /**
   * The translation on show in the units chosen: what the whole-sentence views (heatmap, heads,
   * alignment lines) draw. Selections stay in pieces (`words` maps a word to its pieces), so the
   * views of one decoder step, which draw pieces, keep the step picked in a word view.
   */
  readonly drawn = $derived.by<Translation | null>(() => {
    const t = this.current
    return t && inUnits(t, this.units)
  })

  async init(): Promise<void> {
    this.loading = true
    api.onEngineStatus((s) => {
      this.notice = s.message
      this.busy = false
      if (this.model) this.schedule(0)
    })
    let saved: Saved = {}
    try {
      saved = JSON.parse(localStorage.getItem(SAVED_KEY) ?? '{}') as Saved
    } catch {
      // A damaged saved session is not worth a failure: start fresh.
    }
    this.text = saved.text ?? ''
    this.reference = typeof saved.reference === 'string' ? saved.reference : ''
    if (Array.isArray(saved.history)) this.history = saved.history.filter((h) => typeof h === 'string').slice(0, MAX_HISTORY)
    if (saved.beam && saved.beam >= 1 && saved.beam <= 16) this.beam = saved.beam
    if (saved.guard) {
      const { noRepeatNgram: n, maxRepeat: r } = saved.guard
      // A setting equal to the app's default was most likely never chosen (sessions saved it whole): the model's own default stands.
      const kept = (x: unknown, d: number) => typeof x === 'number' && validSetting(x) && x !== d
      this.guardChosen = {
        ...(kept(n, DEFAULT_REPEAT_GUARD.noRepeatNgram) ? { noRepeatNgram: n } : {}),
        ...(kept(r, DEFAULT_REPEAT_GUARD.maxRepeat) ? { maxRepeat: r } : {}),
      }
    }
    if (saved.heatmap) this.heatmapStyle = { ...this.heatmapStyle, ...saved.heatmap }
    const view = saved.view && (RENAMED[saved.view] ?? saved.view)
    if (view && (VIEWS as readonly string[]).includes(view)) this.view = view as ViewName
    if (saved.units && UNITS.includes(saved.units)) this.units = saved.units
    await this.refreshModels()
    api.appNotice().then(
      (n) => n && (this.notice = n),
      () => undefined,
    )
    api.listProviders().then(
      (p) => {
        this.providers = p.providers
        this.provider = p.chosen
      },
      () => undefined,
    )
    const listed = this.models.find((m) => m.id === saved.model)
    if (!listed && saved.model && (await this.gone(saved.model))) return
    const first = listed ?? this.models[0]
    if (first) await this.open(first.id)
    else this.loading = false
  }

  /**
   * Whether the saved session's model, no longer listed, is a browser-mode upload the server
   * deleted when it stopped: the host names it ("marian was an upload and is gone: open it
   * again"), and no other model is shown in its place under the restored sentence and tab.
   * Another unlisted id (a saved session from older files) starts with the first model.
   */
  private async gone(id: string): Promise<boolean> {
    try {
      await api.openModel(id)
      return false
    } catch (e) {
      if ((e as { code?: string }).code !== 'gone-model') return false
      this.error = (e as Error).message
      this.loading = false
      return true
    }
  }

  async refreshModels(): Promise<void> {
    try {
      this.models = await api.listModels()
      for (const m of this.models) rememberModelName(m.id, m.name)
    } catch (e) {
      this.error = (e as Error).message
    }
  }

  private async adopt(p: Promise<ModelInfo | null>): Promise<void> {
    this.error = null
    // The last model asked for wins: the first model opened at start can finish after the user's pick.
    this.loading = true
    const o = await this.openings.run(() => p)
    if (!o.current) return
    try {
      // The previous model stays loaded; only the message changes.
      if ('error' in o) throw o.error
      const info = o.value
      if (!info) return
      rememberModelName(info.id, info.name)
      this.model = info
      // Another model's heads are other heads (or none).
      this.head = null
      if (info.providerNote) this.notice = info.providerNote
      this.translation = null
      this.forced = null
      this.score = null
      this.save()
      // Before the list is fetched, not after: a text typed while it comes would be decoded twice.
      this.schedule(0)
      await this.refreshModels()
    } catch (e) {
      this.error = (e as Error).message
    } finally {
      // Unless another model was asked for meanwhile.
      if (!this.openings.pending) this.loading = false
    }
  }

  open(id: string): Promise<void> {
    return this.adopt(api.openModel(id))
  }
  openDialog(): Promise<void> {
    return this.adopt(api.openModelDialog())
  }
  openFile(file: File): Promise<void> {
    return this.adopt(api.openDroppedFile(file))
  }
  openFolderDialog(): Promise<void> {
    return this.adopt(api.openModelFolderDialog())
  }
  /** The source language chosen in the picker for a model that still needs its pair: kept until the target is chosen. */
  private sourceChosen: { id: string; lang: string } | null = null
  /** The language pair being opened, and its open: the same pair asked for again waits for it. */
  private pairOpening: { key: string; done: Promise<void> } | null = null

  /**
   * One side of the picker's language pair changed. Each pair is a new open of the model (its
   * sessions and the checks at opening: NLLB-600M took 20–40 s at load 10), so a model that names
   * no pair yet is not opened for the source alone, with the target still the picker's stand-in:
   * the source is kept and the target's choice opens the pair. A pair already open, or on its way,
   * is not opened again (a field's change event comes again when it loses focus).
   */
  chooseLanguage(side: 'src' | 'tgt', lang: string): Promise<void> {
    const model = this.model
    if (!model) return Promise.resolve()
    const kept = this.sourceChosen?.id === model.id ? this.sourceChosen.lang : null
    if (side === 'src' && model.needsLanguages) {
      this.sourceChosen = { id: model.id, lang }
      return Promise.resolve()
    }
    const src = side === 'src' ? lang : (kept ?? model.srcLang)
    const tgt = side === 'tgt' ? lang : model.tgtLang
    if (!model.needsLanguages && src === model.srcLang && tgt === model.tgtLang) return Promise.resolve()
    const key = `${model.id}\0${src}\0${tgt}`
    if (this.pairOpening?.key === key) return this.pairOpening.done
    const done = this.setLanguages(src, tgt).finally(() => {
      if (this.pairOpening?.key === key) this.pairOpening = null
    })
    this.pairOpening = { key, done }
    return done
  }

  /** A multilingual model: the same model for another language pair. */
  async setLanguages(src: string, tgt: string): Promise<void> {
    const folder = this.dropped && this.dropped.id === this.model?.id ? this.dropped : null
    await this.adopt(api.setModelLanguages(src, tgt))
    // The same upload under its new id: dropped again, it is given this pair again.
    if (folder && this.model && this.model.id !== folder.id && !this.model.needsLanguages) {
      folderPair.set(folder.name, [this.model.srcLang, this.model.tgtLang])
      folder.id = this.model.id
    }
  }
  /**
   * A Hugging Face folder with several precisions (ModelInfo.variants): the same folder in another,
   * remembered for it (by the host, in settings.json). A folder dropped in browser mode went up in
   * one precision: the one chosen goes up instead, and the page remembers it for the folder's name.
   */
  setVariant(dtype: string): Promise<void> {
    if (!this.model || dtype === this.model.dtype) return Promise.resolve()
    if (this.dropped && this.dropped.id === this.model.id) {
      folderVariant.set(this.dropped.name, dtype)
      return this.openFolder(this.dropped.files, dtype)
    }
    return this.adopt(api.setModelVariant(dtype))
  }

  /** Browser mode: the folder last dropped or picked, and the model it opened as (another of its precisions goes up from it). */
  private dropped: { files: FolderFile[]; name: string; id: string } | null = null

  /**
   * Browser mode: a Hugging Face folder's files, picked or dropped, in precision `dtype` (default:
   * the one last chosen for a folder of this name, else the most precise); `upload` says how far
   * they are up. The folder's precisions are offered from its files, with the bytes each would send.
   */
  async openFolder(files: FolderFile[], dtype?: string): Promise<void> {
    const name = files[0]?.path.split('/')[0] ?? ''
    const variants = folderVariantsOf(files.map((f) => ({ path: f.path, size: f.file.size })))
    const remembered = folderVariant.get(name)
    const asked = dtype ?? (variants.some((v) => v.dtype === remembered) ? remembered : undefined)
    // A folder dropped while another goes up: the page shows the newer one's progress.
    const mine = ++this.uploadSeq
    let opened: string | null = null
    const up = api
      .openDroppedFolder(
        files,
        (p) => {
          if (mine === this.uploadSeq) this.upload = p
        },
        asked,
      )
      .then((info): ModelInfo => {
        opened = info.id
        if (variants.length < 2) return info
        const note = (d: string) => info.variants?.find((v) => v.dtype === d)?.note ?? ''
        return { ...info, variants: variants.map((v) => ({ ...v, note: note(v.dtype) })), dtype: info.dtype ?? asked ?? variants[0].dtype }
      })
    try {
      await this.adopt(up)
    } finally {
      if (mine === this.uploadSeq) this.upload = null
    }
    if (opened === null || this.model?.id !== opened) return
    this.dropped = { files, name, id: opened }
    // A folder that names no language pair, given one when it went up before: that one again.
    const pair = folderPair.get(name)
    const langs = this.model.languages ?? []
    if (this.model.needsLanguages && pair && langs.includes(pair[0]) && langs.includes(pair[1])) await this.setLanguages(pair[0], pair[1])
  }

  /** Switch execution provider; the open model reopens on it (or falls back to CPU, with a note). */
  async setProvider(name: string): Promise<void> {
    this.provider = name
    await this.adopt(api.setProvider(name))
  }

  /** Stops a slow decode (a long sentence with a wide beam). */
  async cancel(): Promise<void> {
    this.decodes.cancel()
    this.busy = false
    await api.cancelTranslate()
  }

  setText(text: string): void {
    this.text = text
    this.save()
    // The decode in flight is for an older text: its result is dropped from now on, and the engine
    // stops it when the next sentence arrives (the host aborts the translation it supersedes).
    this.decodes.cancel()
    this.references.cancel()
    clearTimeout(this.historyTimer)
    this.schedule(DEBOUNCE_MS)
  }

  /** The reference translation: forced through the model and scored against its output. */
  setReference(reference: string): void {
    this.reference = reference
    this.save()
    this.references.cancel()
    this.scheduleReference(DEBOUNCE_MS)
  }

  /** An example sentence fills the source and the reference, and goes straight into the history. */
  useExample(ex: Pick<ExampleSentence, 'source' | 'reference'>): void {
    this.reference = ex.reference
    this.setText(ex.source)
    this.remember(ex.source)
  }

  /** Which decoding the views draw; the selection is kept where the other one has that step. */
  setShown(shown: Shown): void {
    this.shown = shown
    this.clampSelection()
  }

  /** Puts a sentence at the top of the history (once), keeping the last MAX_HISTORY. */
  remember(text: string): void {
    const t = text.trim()
    if (!t) return
    this.history = [t, ...this.history.filter((h) => h !== t)].slice(0, MAX_HISTORY)
    this.save()
  }

  forget(text: string): void {
    this.history = this.history.filter((h) => h !== text)
    this.save()
  }

  dismissError(): void {
    this.error = null
  }

  /** Views that mean something for the open model (local attention needs a local model, …). */
  viewAvailable(v: ViewName): boolean {
    const def = viewDef(v)
    // Before a model is open: what a translation model without attention offers.
    return !!def && viewOffered(def, capabilitiesOf(this.model ?? { task: 'translation', attention: 'none' }))
  }

  setBeam(beam: number): void {
    this.beam = beam
    this.save()
    this.schedule(0)
  }

  /** Changes a repeat guard (0 = off) and decodes again. */
  setGuard(patch: Partial<RepeatGuard>): void {
    this.guardChosen = { ...this.guardChosen, ...patch }
    this.save()
    this.schedule(0)
  }

  setHeatmapStyle(patch: Partial<HeatmapStyle>): void {
    this.heatmapStyle = { ...this.heatmapStyle, ...patch }
    this.save()
  }

  setUnits(units: Units): void {
    this.units = units
    this.save()
  }

  setView(v: ViewName): void {
    if (v !== this.view && selectionOnEnter(v) === 'reset') this.select(null, null)
    this.view = v
    this.save()
    // The translation on show was decoded without the encoder states this view draws.
    if (needsEncoderStates(v) && this.translation && this.translation.encoderStates.length === 0) this.schedule(0)
  }

  /** Opens one head of a Transformer large, or (null) goes back to the average of every head. A head the open model does not have (or a model without heads) is the average. */
  setHead(head: HeadRef | null): void {
    const shape = this.model?.heads
    this.head = head && shape && isHeadOf(head, shape) ? head : null
  }

  select(row: number | null, col: number | null): void {
    this.selectedRow = row
    this.selectedCol = col
  }

  private refTimer: ReturnType<typeof setTimeout> | undefined

  /** Translates (and force-decodes the reference) after `delay`; a later call replaces an earlier one. */
  private schedule(delay: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.run(), delay)
    this.scheduleReference(delay)
  }

  private scheduleReference(delay: number): void {
    clearTimeout(this.refTimer)
    this.refTimer = setTimeout(() => void this.runReference(), delay)
  }

  /** A selection the translation on show does not have (a shorter output) is dropped. */
  private clampSelection(): void {
    const t = this.current
    if (!t) return
    if (this.selectedRow !== null && this.selectedRow >= t.tgtTokens.length) this.selectedRow = null
    if (this.selectedCol !== null && this.selectedCol >= t.srcTokens.length) this.selectedCol = null
  }

  /** Force-decodes the reference; a result for an older text or reference is dropped. */
  private async runReference(): Promise<void> {
    const model = this.model
    const text = this.text
    const reference = this.reference
    if (!model || model.task !== 'translation' || model.needsLanguages || !text.trim() || !reference.trim()) {
      this.references.cancel()
      this.forced = null
      this.score = null
      if (this.shown === 'reference') this.shown = 'model'
      return
    }
    const o = await this.references.run(() => api.forced({ modelId: model.id, text, target: reference }))
    if (!o.current) return
    if ('error' in o) {
      // A stale forced decoding would be mistaken for this reference's.
      this.forced = null
      this.score = null
      this.error = o.error.message
      return
    }
    this.forced = o.value
    this.forcedReference = reference
    // The score on show was against the reference before: none until this one's arrives.
    this.score = null
    this.clampSelection()
    void this.updateScore()
  }

  /** BLEU and chrF of the output on show against the reference, once both are for the same sentence. */
  private async updateScore(): Promise<void> {
    const t = this.translation
    const f = this.forced
    const reference = this.reference
    if (!t || !f || t.source !== f.source || !reference.trim()) {
      this.scores.cancel()
      this.score = null
      return
    }
    const o = await this.scores.run(() => api.scoreSentence({ hypothesis: t.text, reference }))
    if (!o.current) return
    this.score = 'error' in o ? null : o.value
    if ('error' in o) this.error = o.error.message
  }

  /** Translate the current text; a result that arrives after a newer request is dropped. */
  private async run(): Promise<void> {
    const model = this.model
    const text = this.text
    // A model that names no language pair decodes nothing until one is chosen: the picker asks for it.
    if (!model || model.task !== 'translation' || model.needsLanguages || text.trim() === '') {
      this.decodes.cancel()
      this.translation = null
      this.busy = false
      return
    }
    this.busy = true
    const o = await this.decodes.run(() =>
      api.translate({ modelId: model.id, text, beam: this.beam, encoderStates: needsEncoderStates(this.view), ...this.guard }),
    )
    if (!o.current) return
    this.busy = false
    if ('error' in o) {
      // A superseded decode is cancelled on purpose; only the latest request's failure is news, and
      // it replaces the translation on show, which was of another sentence or setting.
      if (o.error.name !== 'CancelledError') {
        this.error = o.error.message
        this.translation = null
        this.score = null
      }
      return
    }
    this.translation = o.value
    this.error = null
    this.clampSelection()
    void this.updateScore()
    clearTimeout(this.historyTimer)
    this.historyTimer = setTimeout(() => this.text === text && this.remember(text), HISTORY_MS)
  }

  private save(): void {
    const saved: Saved = {
      model: this.model?.id,
      text: this.text,
      reference: this.reference,
      view: this.view,
      heatmap: this.heatmapStyle,
      beam: this.beam,
      guard: this.guardChosen,
      history: this.history,
      units: this.units,
    }
    localStorage.setItem(SAVED_KEY, JSON.stringify(saved))
  }
}
