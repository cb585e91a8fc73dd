import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LoadedModel } from '../../../src/engine/model'
import { InferenceService } from '../../../src/engine/service'
import { tempDir, tiny } from '../../helpers'

/** The LoadedModels the service opens, by path, as it opens them. */
function watchOpens(): Map<string, LoadedModel[]> {
  const opened = new Map<string, LoadedModel[]>()
  const open = LoadedModel.open.bind(LoadedModel)
  vi.spyOn(LoadedModel, 'open').mockImplementation(async (path, provider) => {
    const m = await open(path, provider)
    opened.set(path, [...(opened.get(path) ?? []), m])
    return m
  })
  return opened
}

/** onnxruntime refuses to release a session twice: that is how a released one shows. */
async function released(m: LoadedModel): Promise<boolean> {
  const gone = async (s: LoadedModel['encoder']) =>
    s.release().then(
      () => false,
      (e: Error) => /already disposed/.test(e.message),
    )
  return (await gone(m.encoder)) && (await gone(m.step))
}

afterEach(() => vi.restoreAllMocks())

describe('model lifetime in the engine', () => {
  it('closing a model releases both of its onnxruntime sessions; the next call opens it again', async () => {
    const opened = watchOpens()
    const s = new InferenceService()
    await s.open(tiny('bahdanau'))
    await s.close(tiny('bahdanau'))
    expect(s.openPaths()).toEqual([])
    expect(await released(opened.get(tiny('bahdanau'))![0])).toBe(true)
    await s.translate(tiny('bahdanau'), 'A dog.')
    expect(opened.get(tiny('bahdanau'))).toHaveLength(2)
  })

  it('keeps at most four models open, closing the least recently used', async () => {
    const opened = watchOpens()
    const s = new InferenceService()
    const fifth = join(tempDir(), 'fifth.onnx')
    copyFileSync(tiny('none'), fifth)
    for (const kind of ['bahdanau', 'local-m', 'local-p', 'none']) await s.open(tiny(kind))
    // Using a model makes it the most recent: local-m, not bahdanau, is the one to go.
    await s.translate(tiny('bahdanau'), 'A dog.')
    await s.open(fifth)
    expect(s.openPaths()).toEqual([tiny('local-p'), tiny('none'), tiny('bahdanau'), fifth])
    await vi.waitFor(async () => expect(await released(opened.get(tiny('local-m'))![0])).toBe(true))
    // The kept one still answers with the sessions it had.
    await s.translate(tiny('bahdanau'), 'A cat.')
    expect(opened.get(tiny('bahdanau'))).toHaveLength(1)
    await s.closeAll()
  })

  it('a model closed while a call uses it is released when that call has finished, not under it', async () => {
    const opened = watchOpens()
    const s = new InferenceService()
    await s.open(tiny('local-p'))
    const decoding = s.translate(tiny('local-p'), 'a dog runs on the beach near the water while a man watches '.repeat(5), { beam: 8 })
    const closing = s.close(tiny('local-p'))
    const t = await decoding
    expect(t.tgtTokens.length).toBeGreaterThan(0)
    await closing
    expect(await released(opened.get(tiny('local-p'))![0])).toBe(true)
  })
})
