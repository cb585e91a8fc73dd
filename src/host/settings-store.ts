import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { homedir } from 'node:os'
import { DTYPE } from '../shared/model-id'

export interface StoredSettings {
  recent: string[]
  lastModel?: string
  provider?: string
  /**
   * Browser-mode uploads deleted when the server stopped, by model id, with their names: a page
   * whose saved session names one is told that model is gone instead of being shown another.
   */
  gone?: Record<string, string>
  /**
   * The precision chosen for each Hugging Face folder (fp32, fp16, q8…), by the folder's resolved
   * path, oldest first: the folder opens in it next time (src/engine/formats/hf/variants.ts).
   */
  variants?: Record<string, string>
}

/** How many deleted uploads are remembered by name. */
export const MAX_GONE = 20

/** How many folders' precision choices are remembered. */
export const MAX_VARIANTS = 50

const EMPTY: StoredSettings = { recent: [] }

export function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'attention-lens')
}

export function defaultConfigDir(): string {
  return process.env.AL_CONFIG_DIR || join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'attention-lens')
}

/** Settings in one JSON file, written atomically (temporary file, then rename). */
export class SettingsStore {
  constructor(readonly file: string) {}

  async load(): Promise<{ settings: StoredSettings; notice?: string }> {
    let raw: string
    try {
      raw = await readFile(this.file, 'utf8')
    } catch {
      return { settings: { ...EMPTY } }
    }
    try {
      const parsed = JSON.parse(raw) as Partial<StoredSettings>
      const recent = Array.isArray(parsed.recent) ? parsed.recent.filter((p) => typeof p === 'string') : []
      const settings: StoredSettings = { ...parsed, recent }
      // A folder's precision is a dtype (src/shared/model-id.ts DTYPE); anything else is dropped.
      if (parsed.variants && typeof parsed.variants === 'object' && !Array.isArray(parsed.variants))
        settings.variants = Object.fromEntries(Object.entries(parsed.variants).filter(([, d]) => typeof d === 'string' && DTYPE.test(d)))
      else delete settings.variants
      return { settings }
    } catch {
      const aside = `${this.file}.corrupt-${Date.now()}`
      await rename(this.file, aside).catch(() => undefined)
      return { settings: { ...EMPTY }, notice: `The settings file was unreadable and was set aside as ${aside}.` }
    }
  }

  /**
   * Saves go one after another, each with the settings as they were when it was asked for. Two at
   * once shared one temporary file, and the second rename found it gone (ENOENT): in browser mode
   * a language change and the sweep of uploads saved together, and the page was told "Not found.".
   */
  private queue: Promise<void> = Promise.resolve()

  save(s: StoredSettings): Promise<void> {
    const text = JSON.stringify(s, null, 2)
    const run = this.queue.then(() => this.write(text))
    this.queue = run.catch(() => undefined)
    return run
  }

  private async write(text: string): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    await writeFile(tmp, text)
    await rename(tmp, this.file)
  }
}
