import type { ModelInfo, ModelSummary, ProviderInfo, Translation } from '../../../shared/api'
import type { HeatmapStyle } from '../../../shared/charts/heatmap'
import { api } from '../lib/api'

/** Typing pauses this long before a sentence is sent: short enough to follow the typing. */
export const DEBOUNCE_MS = 100

export type ViewName = 'heatmap' | 'local' | 'step' | 'lines' | 'compare' | 'whatif' | 'corpus'
export const VIEWS: ViewName[] = ['heatmap', 'local', 'step', 'lines', 'compare', 'whatif', 'corpus']
const SAVED_KEY = 'attention-lens:session'

/** What the main view shows: the model, the sentence, its translation and the selection. */
export class LensState {
  models = $state.raw<ModelSummary[]>([])
  model = $state.raw<ModelInfo | null>(null)
  text = $state('')
  translation = $state.raw<Translation | null>(null)
  busy = $state(false)
  error = $state<string | null>(null)
  notice = $state<string | null>(null)
  selectedRow = $state<number | null>(null)
  selectedCol = $state<number | null>(null)
  view = $state<ViewName>('heatmap')
  /** 1 = greedy, 2–16 = beam search. */
  beam = $state(1)
  heatmapStyle = $state<HeatmapStyle>({ colormap: 'viridis', scale: 'linear', norm: 'fixed', labels: 'auto' })
  providers = $state.raw<ProviderInfo[]>([])
  provider = $state('cpu')

  private seq = 0
  private timer: ReturnType<typeof setTimeout> | undefined

  async init(): Promise<void> {
    api.onEngineStatus((s) => {
      this.notice = s.message
      this.busy = false
      if (this.model) this.schedule(0)
    })
    let saved: { model?: string; text?: string; view?: ViewName; heatmap?: HeatmapStyle; beam?: number } = {}
    try {
      saved = JSON.parse(localStorage.getItem(SAVED_KEY) ?? '{}') as typeof saved
    } catch {
      // A damaged saved session is not worth a failure: start fresh.
    }
    this.text = saved.text ?? ''
    if (saved.beam && saved.beam >= 1 && saved.beam <= 16) this.beam = saved.beam
    if (saved.heatmap) this.heatmapStyle = { ...this.heatmapStyle, ...saved.heatmap }
    if (saved.view && VIEWS.includes(saved.view)) this.view = saved.view
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
    const first = this.models.find((m) => m.id === saved.model) ?? this.models[0]
    if (first) await this.open(first.id)
  }

  async refreshModels(): Promise<void> {
    try {
      this.models = await api.listModels()
    } catch (e) {
      this.error = (e as Error).message
    }
  }

  private opening = 0

  private async adopt(p: Promise<ModelInfo | null>): Promise<void> {
    this.error = null
    // The last model asked for wins: the first model opened at start can finish after the user's pick.
    const seq = ++this.opening
    try {
      const info = await p
      if (!info || seq !== this.opening) return
      this.model = info
      if (info.providerNote) this.notice = info.providerNote
      this.translation = null
      this.save()
      await this.refreshModels()
      this.schedule(0)
    } catch (e) {
      // The previous model stays loaded; only the message changes.
      if (seq === this.opening) this.error = (e as Error).message
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

  /** Switch execution provider; the open model reopens on it (or falls back to CPU, with a note). */
  async setProvider(name: string): Promise<void> {
    this.provider = name
    await this.adopt(api.setProvider(name))
  }

  /** Stops a slow decode (a long sentence with a wide beam). */
  async cancel(): Promise<void> {
    this.seq++
    this.busy = false
    await api.cancelTranslate()
  }

  setText(text: string): void {
    this.text = text
    this.save()
    // The decode in flight is for an older text: its result is dropped from now on, and the engine
    // stops it when the next sentence arrives (the host aborts the translation it supersedes).
    this.seq++
    this.schedule(DEBOUNCE_MS)
  }

  /** Views that mean something for the open model (local attention needs a local model, …). */
  viewAvailable(v: ViewName): boolean {
    const kind = this.model?.attention
    if (v === 'local') return kind === 'local-m' || kind === 'local-p'
    if (v === 'whatif' || v === 'step' || v === 'lines') return kind !== undefined && kind !== 'none'
    return true
  }

  setBeam(beam: number): void {
    this.beam = beam
    this.save()
    this.schedule(0)
  }

  setHeatmapStyle(patch: Partial<HeatmapStyle>): void {
    this.heatmapStyle = { ...this.heatmapStyle, ...patch }
    this.save()
  }

  setView(v: ViewName): void {
    this.view = v
    this.save()
  }

  select(row: number | null, col: number | null): void {
    this.selectedRow = row
    this.selectedCol = col
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.run(), delay)
  }

  /** Translate the current text; a result that arrives after a newer request is dropped. */
  private async run(): Promise<void> {
    const model = this.model
    const text = this.text
    const seq = ++this.seq
    if (!model || model.task !== 'translation' || text.trim() === '') {
      this.translation = null
      this.busy = false
      return
    }
    this.busy = true
    try {
      const t = await api.translate({ modelId: model.id, text, beam: this.beam })
      if (seq !== this.seq) return
      this.translation = t
      this.error = null
      if (this.selectedRow !== null && this.selectedRow >= t.tgtTokens.length) this.selectedRow = null
      if (this.selectedCol !== null && this.selectedCol >= t.srcTokens.length) this.selectedCol = null
    } catch (e) {
      // A superseded decode is cancelled on purpose; only the latest request's failure is news.
      if (seq === this.seq && (e as Error).name !== 'CancelledError') this.error = (e as Error).message
    } finally {
      if (seq === this.seq) this.busy = false
    }
  }

  private save(): void {
    localStorage.setItem(SAVED_KEY, JSON.stringify({ model: this.model?.id, text: this.text, view: this.view, heatmap: this.heatmapStyle, beam: this.beam }))
  }
}
