import { readdir } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import type { EngineStatus, ModelInfo, ModelSummary, ProviderInfo, Translation, TranslateRequest } from '../shared/api'
import type { EngineClient } from './engine-client'
import type { ModelDescription } from './engine/service'
import { SettingsStore, type StoredSettings } from './settings-store'

const MAX_RECENT = 8

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

  constructor(
    private engine: EngineClient,
    private modelsDir: string,
    private store: SettingsStore,
  ) {
    this.ready = store.load().then(async ({ settings, notice }) => {
      this.settings = settings
      this.notice = notice
      if (settings.provider && settings.provider !== 'cpu') {
        await engine.call('setProvider', settings.provider).catch(() => (this.settings.provider = 'cpu'))
      }
    })
  }

  private idFor(path: string, bundled: boolean): string {
    const id = bundled ? `bundled:${basename(path)}` : `file:${Buffer.from(resolve(path)).toString('base64url')}`
    this.paths.set(id, path)
    return id
  }

  private summary(id: string, d: ModelDescription, bundled: boolean): ModelSummary {
    return { id, name: d.name, fileName: d.fileName, attention: d.attention, srcLang: d.srcLang, tgtLang: d.tgtLang, bundled }
  }

  async listModels(): Promise<ModelSummary[]> {
    await this.ready
    const files = (await readdir(this.modelsDir).catch(() => [] as string[])).filter((f) => f.endsWith('.onnx')).sort()
    const out: ModelSummary[] = []
    for (const f of files) {
      const path = join(this.modelsDir, f)
      const d = await this.engine.call('describe', path).catch(() => null)
      if (d) out.push(this.summary(this.idFor(path, true), d, true))
    }
    for (const path of this.settings.recent) {
      const d = await this.engine.call('describe', path).catch(() => null)
      if (d) out.push(this.summary(this.idFor(path, false), d, false))
    }
    return out
  }

  async openModel(id: string): Promise<ModelInfo> {
    const path = this.paths.get(id)
    if (!path) throw new Error('That model is not in the list; pick it again or open the file.')
    return this.open(id, path)
  }

  /** A path the host itself obtained: from a dialog, a drop or an upload. */
  async openPath(path: string): Promise<ModelInfo> {
    await this.ready
    const info = await this.open(this.idFor(path, false), path)
    this.settings.recent = [resolve(path), ...this.settings.recent.filter((p) => p !== resolve(path))].slice(0, MAX_RECENT)
    await this.store.save(this.settings)
    return info
  }

  private current: { id: string; path: string } | null = null

  private async open(id: string, path: string): Promise<ModelInfo> {
    const d = await this.engine.call('open', path)
    this.settings.lastModel = id
    this.current = { id, path }
    return { ...d, id, bundled: id.startsWith('bundled:') }
  }

  async listProviders(): Promise<{ providers: ProviderInfo[]; chosen: string }> {
    await this.ready
    return { providers: await this.engine.call('providers'), chosen: this.settings.provider ?? 'cpu' }
  }

  async setProvider(name: string): Promise<ModelInfo | null> {
    await this.ready
    await this.engine.call('setProvider', String(name))
    this.settings.provider = String(name)
    await this.store.save(this.settings)
    return this.current ? this.open(this.current.id, this.current.path) : null
  }

  async translate(req: TranslateRequest): Promise<Translation> {
    const path = this.paths.get(req.modelId)
    if (!path) throw new Error('Open a model first.')
    if (typeof req.text !== 'string') throw new Error('The text to translate must be a string.')
    const t = await this.engine.call('translate', path, req.text)
    return { ...t, modelId: req.modelId }
  }

  onEngineStatus(listener: (s: EngineStatus) => void): () => void {
    return this.engine.onEvent((e) => listener({ state: 'restarted', message: e.message }))
  }
}
