import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Engine } from '../../../src/host/engine-client'
import { LensHost } from '../../../src/host/lens-host'
import { SettingsStore } from '../../../src/host/settings-store'
import { InferenceService } from '../../../src/engine/service'
import { parseArgs } from '../../../src/shared/routes'
import { editedModel, ROOT, setMeta, tempDir, tiny } from '../../helpers'

/** The engine in this process: the host's calls go to a real InferenceService. */
function inProcess(service: InferenceService): Engine {
  const callWith = async (opts: { signal?: AbortSignal; onProgress?: (p: { done: number; total: number }) => void }, method: string, ...args: unknown[]) => {
    const a = args as [string, ...unknown[]]
    switch (method) {
      case 'describe':
        return service.describe(a[0])
      case 'open':
        return service.open(a[0])
      case 'close':
        return service.close(a[0])
      case 'evaluate':
        return service.evaluate(a[0], a[1] as string[], a[2] as string[], { cacheDir: a[3] as string, signal: opts.signal, onProgress: opts.onProgress })
      default:
        throw new Error(`not wired: ${method}`)
    }
  }
  return { callWith, call: (method: string, ...args: unknown[]) => callWith({}, method, ...args), onEvent: () => () => undefined } as unknown as Engine
}

function host(service: InferenceService): LensHost {
  const dir = tempDir()
  return new LensHost(
    inProcess(service),
    { models: join(dir, 'none'), testsets: join(ROOT, 'resources', 'testsets'), series: dir, cache: join(dir, 'cache') },
    new SettingsStore(join(dir, 'settings.json')),
  )
}

const SRC = 'a dog runs .\ntwo men are sitting on a bench .\na woman is reading a book in the park .\n'
const REF = 'ein hund rennt .\nzwei männer sitzen auf einer bank .\neine frau liest ein buch im park .\n'

describe("BLEU by length for a model without a bundled test set (a user's en→de model)", () => {
  // The tiny en-fr fixture, declared en→de: the app has no bundled en-de test set.
  const enDe = () => editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.tgt_lang', 'de'))

  it("says what to do without files, scores the user's files, and caches the result by the files' contents", async () => {
    const service = new InferenceService()
    const h = host(service)
    const info = await h.openPath(enDe())
    await expect(h.runCorpus({ modelIds: [info.id] })).rejects.toThrow(
      'There is no bundled test set for en-de: choose a source file and a reference file (one sentence per line).',
    )
    const files = { source: { name: 'test.en', text: SRC }, reference: { name: 'test.de', text: REF } }
    const first = await h.runCorpus({ modelIds: [info.id], ...files })
    expect(first.pair).toBe('en-de')
    expect(first.testSet).toBe('test.en → test.de')
    expect(first.results[0]).toMatchObject({ sentences: 3, cached: false })
    expect(first.results[0].byLength.reduce((a, b) => a + b.sentences, 0)).toBe(3)
    const again = await h.runCorpus({ modelIds: [info.id], ...files })
    expect(again.results[0]).toMatchObject({ cached: true, bleu: first.results[0].bleu })
    // Another reference is another test set: not served from the cache.
    const other = await h.runCorpus({ modelIds: [info.id], source: files.source, reference: { name: 'test2.de', text: REF.replace('hund', 'katze') } })
    expect(other.results[0].cached).toBe(false)
    await service.closeAll()
  })

  it('refuses files that do not match line by line, or only one of the two', async () => {
    const service = new InferenceService()
    const h = host(service)
    const info = await h.openPath(enDe())
    await expect(
      h.runCorpus({ modelIds: [info.id], source: { name: 'a.en', text: SRC }, reference: { name: 'b.de', text: 'ein hund rennt .\n' } }),
    ).rejects.toThrow('The source file a.en has 3 lines but the reference file b.de has 1; they must match line by line.')
    await expect(h.runCorpus({ modelIds: [info.id], source: { name: 'a.en', text: SRC } })).rejects.toThrow(
      'Choose both a source file and a reference file (one sentence per line).',
    )
    await service.closeAll()
  })

  it('the route carries the two files (and refuses other fields)', () => {
    const [req] = parseArgs('corpus:run', [{ modelIds: ['x'], source: { name: 'a.en', text: 'a' }, reference: { name: 'a.de', text: 'b' } }])
    expect(req.source?.name).toBe('a.en')
    expect(() => parseArgs('corpus:run', [{ modelIds: ['x'], source: { name: 'a.en', text: 'a', path: '/etc/passwd' } }])).toThrow(
      /corpus:run call was refused/,
    )
  })
})
