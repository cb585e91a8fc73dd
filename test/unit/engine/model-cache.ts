import { LoadedModel, type OpenOptions } from '../../../src/engine/model'

/**
 * Models opened once per test file and shared by its tests: opening a model builds its sessions
 * (graph surgery, onnxruntime's optimiser), which cost more CPU than many of the checks that use
 * it. Call `releaseAll` in the file's afterAll.
 */
export class ModelCache {
  private readonly opened = new Map<string, Promise<LoadedModel>>()

  open(path: string, opts: OpenOptions = {}): Promise<LoadedModel> {
    const key = `${path}\n${JSON.stringify(opts)}`
    let m = this.opened.get(key)
    if (!m) {
      m = LoadedModel.open(path, 'cpu', opts)
      this.opened.set(key, m)
    }
    return m
  }

  async releaseAll(): Promise<void> {
    for (const m of this.opened.values()) await (await m.catch(() => null))?.release()
    this.opened.clear()
  }
}
