import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { homedir } from 'node:os'

export interface StoredSettings {
  recent: string[]
  lastModel?: string
  provider?: string
  /**
   * Browser-mode uploads deleted when the server stopped, by model id, with their names: a page
   * whose saved session names one is told that model is gone instead of being shown another.
   */
  gone?: Record<string, string>
}

/** How many deleted uploads are remembered by name. */
export const MAX_GONE = 20

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
      return { settings: { ...parsed, recent } }
    } catch {
      const aside = `${this.file}.corrupt-${Date.now()}`
      await rename(this.file, aside).catch(() => undefined)
      return { settings: { ...EMPTY }, notice: `The settings file was unreadable and was set aside as ${aside}.` }
    }
  }

  async save(s: StoredSettings): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    await writeFile(tmp, JSON.stringify(s, null, 2))
    await rename(tmp, this.file)
  }
}
