import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import type { Engine } from '../../../src/host/engine-client'
import { LensHost } from '../../../src/host/lens-host'
import { SettingsStore, type StoredSettings } from '../../../src/host/settings-store'
import type { EngineMethod, EngineMethods } from '../../../src/engine/protocol'
import type { ArgsOf, ResultOf } from '../../../src/shared/rpc'
import type { ModelDescription } from '../../../src/engine/service'
import { CancelledError, LensError } from '../../../src/shared/errors'
import type { AlignmentProgress } from '../../../src/shared/alignment'
import { tempDir } from '../../helpers'

interface Pending {
  method: EngineMethod
  args: unknown[]
  resolve(v: unknown): void
  reject(e: Error): void
  onProgress?: (p: { done: number; total: number }) => void
}

/**
 * The engine without a process: describe/open/close answer at once (a path containing "broken"
 * is refused like a file that is not a model); translate and evaluate wait until the test settles
 * them, and fail with a CancelledError when their signal aborts, as the engine does.
 */
class FakeEngine {
  log: [EngineMethod, ...unknown[]][] = []
  waiting: Pending[] = []
  /** open calls wait too when set. */
  holdOpens = false

  call<M extends EngineMethod>(method: M, ...args: ArgsOf<EngineMethods, M>): Promise<ResultOf<EngineMethods, M>> {
    return this.callWith({}, method, ...args)
  }

  callWith<M extends EngineMethod>(
    opts: { onProgress?: (p: { done: number; total: number }) => void; signal?: AbortSignal },
    method: M,
    ...args: ArgsOf<EngineMethods, M>
  ): Promise<ResultOf<EngineMethods, M>> {
    this.log.push([method, ...args])
    return new Promise<unknown>((resolve, reject) => {
      const path = String(args[0])
      if (method === 'describe' || (method === 'open' && !this.holdOpens)) {
        if (path.includes('broken')) return reject(new LensError('The file is not an ONNX model.', { name: 'ContractError', code: 'contract' }))
        // A precision the folder does not have (src/engine/formats/hf/variants.ts chooseVariant).
        if (path.endsWith('dtype=gone'))
          return reject(new LensError('The folder has no gone variant: it has fp32 (1 MB).', { name: 'ContractError', code: 'contract' }))
        return resolve(method === 'open' ? { ...description(path), provider: 'cpu', providerNote: null } : description(path))
      }
      if (method === 'translate' || method === 'evaluate' || method === 'ablation' || method === 'open') {
        const pending = { method, args, resolve, reject, onProgress: opts.onProgress }
        opts.signal?.addEventListener('abort', () => {
          this.waiting = this.waiting.filter((p) => p !== pending)
          reject(new CancelledError(`The ${method === 'evaluate' ? 'evaluation' : 'translation'} was cancelled.`))
        })
        return this.waiting.push(pending)
      }
      resolve(method === 'providers' ? [] : undefined)
    }) as Promise<ResultOf<EngineMethods, M>>
  }

  onEvent(): () => void {
    return () => undefined
  }

  /** The oldest call of `method` still waiting (throws while there is none: use it in vi.waitFor). */
  next(method: EngineMethod): Pending {
    const i = this.waiting.findIndex((p) => p.method === method)
    if (i < 0) throw new Error(`no ${method} waiting`)
    return this.waiting.splice(i, 1)[0]
  }

  closed(): string[] {
    return this.log.filter(([m]) => m === 'close').map(([, p]) => String(p))
  }
}

function description(path: string): ModelDescription {
  const name = path
    .split('/')
    .pop()!
    .replace(/\.onnx$/, '')
  return {
    name,
    fileName: `${name}.onnx`,
    task: 'translation',
    attention: 'bahdanau',
    srcLang: 'en',
    tgtLang: 'fr',
    windowD: 0,
    srcVocabSize: 10,
    tgtVocabSize: 10,
    trainingData: '',
    licence: '',
    testScore: null,
    forecast: null,
    forecastScore: null,
  }
}

function setup() {
  const models = tempDir()
  for (const f of ['en-fr-a.onnx', 'en-fr-b.onnx', 'notes.txt']) writeFileSync(join(models, f), '')
  const testsets = tempDir()
  writeFileSync(join(testsets, 'en-fr.en'), 'A dog.\nA cat.\n')
  writeFileSync(join(testsets, 'en-fr.fr'), 'Un chien.\nUn chat.\n')
  const settings = join(tempDir(), 'settings.json')
  const engine = new FakeEngine()
  const host = new LensHost(engine satisfies Engine, { models, testsets, series: tempDir(), cache: tempDir() }, new SettingsStore(settings))
  return { host, engine, models, settings }
}

describe('LensHost', () => {
  it('hands out ids that say nothing about where a file lives', async () => {
    const { host, models } = setup()
    const secret = join(tempDir(), 'secret-folder', 'mine.onnx')
    const opened = await host.openPath(secret)
    const ids = [opened.id, ...(await host.listModels()).map((m) => m.id)]
    expect(ids).toContain('bundled:en-fr-a.onnx')
    for (const id of ids) {
      for (const form of [
        id,
        Buffer.from(id.replace(/^\w+:/, ''), 'base64url').toString('latin1'),
        Buffer.from(id.replace(/^\w+:/, ''), 'base64').toString('latin1'),
      ]) {
        expect(form).not.toContain('secret-folder')
        expect(form).not.toContain(models)
      }
    }
    // The same file gets the same id after a restart (the saved session names it).
    const again = setup().host
    expect((await again.openPath(secret)).id).toBe(opened.id)
  })

  it('lists a recent file once, however often it was opened, and a bundled model only as bundled', async () => {
    const { host, models, settings } = setup()
    const mine = join(tempDir(), 'mine.onnx')
    await host.openPath(mine)
    await host.openPath(mine)
    await host.openPath(join(models, 'en-fr-a.onnx'))
    await host.openPath(mine)
    const list = await host.listModels()
    expect(list.map((m) => [m.fileName, m.bundled])).toEqual([
      ['en-fr-a.onnx', true],
      ['en-fr-b.onnx', true],
      ['mine.onnx', false],
    ])
    const saved = JSON.parse(readFileSync(settings, 'utf8')) as { recent: string[] }
    expect(saved.recent.filter((p) => p === mine)).toHaveLength(1)
  })

  it('refuses to open an id it did not hand out, without asking the engine', async () => {
    const { host, engine } = setup()
    await host.listModels()
    await expect(host.openModel(`file:${Buffer.from('/etc/passwd').toString('base64url')}`)).rejects.toMatchObject({ name: 'UnknownModelError' })
    await expect(host.translate({ modelId: 'bundled:elsewhere.onnx', text: 'A dog.' })).rejects.toMatchObject({ name: 'UnknownModelError' })
    expect(engine.log.filter(([m]) => m === 'open' || m === 'translate')).toEqual([])
  })

  it('a newer sentence supersedes the translation still running: that one fails with a CancelledError', async () => {
    const { host, engine } = setup()
    const [a] = await host.listModels()
    const first = host.translate({ modelId: a.id, text: 'A dog' }, 'page:1').catch((e: unknown) => e)
    await vi.waitFor(() => expect(engine.waiting).toHaveLength(1))
    const second = host.translate({ modelId: a.id, text: 'A dog runs.' }, 'page:1')
    // Only the newer one is still running in the engine.
    await vi.waitFor(() => expect(engine.waiting.map((p) => p.args[1])).toEqual(['A dog runs.']))
    expect(await first).toBeInstanceOf(CancelledError)
    const running = engine.next('translate')
    running.resolve({ srcTokens: ['a', 'dog', 'runs', '.'] })
    expect(await second).toMatchObject({ modelId: a.id, srcTokens: ['a', 'dog', 'runs', '.'] })
    await host.cancelTranslate('page:1') // nothing running: nothing to cancel, no error
  })

  it("another client's sentence, or one without a client id, cancels nothing; a client's cancel stops only its own", async () => {
    const { host, engine } = setup()
    const [a] = await host.listModels()
    const settled: Record<string, unknown> = {}
    const start = (text: string, client: string | null) =>
      void host.translate({ modelId: a.id, text }, client).then(
        (t) => (settled[text] = t.modelId),
        (e: unknown) => (settled[text] = e),
      )
    start('page one', 'page:1')
    start('page two', 'page:2')
    start('script a', null)
    start('script b', null)
    await vi.waitFor(() => expect(engine.waiting).toHaveLength(4))
    expect(settled).toEqual({})
    await host.cancelTranslate(null) // a script has nothing of its own to cancel
    await host.cancelTranslate('page:2')
    await vi.waitFor(() => expect(settled['page two']).toBeInstanceOf(CancelledError))
    while (engine.waiting.length) engine.next('translate').resolve({ srcTokens: [] })
    await vi.waitFor(() => expect(Object.keys(settled)).toHaveLength(4))
    expect(settled).toMatchObject({ 'page one': a.id, 'script a': a.id, 'script b': a.id })
  })

  it('corpus evaluation reports progress and stops with a CancelledError when cancelled', async () => {
    const { host, engine } = setup()
    const [a, b] = await host.listModels()
    const progress: number[] = []
    host.onCorpusProgress((p) => progress.push(p.done))
    let outcome: unknown = 'running'
    void host.runCorpus({ modelIds: [a.id, b.id] }, 'page:1').then(
      () => (outcome = 'finished'),
      (e: unknown) => (outcome = e),
    )
    const evaluating = await vi.waitFor(() => engine.next('evaluate'))
    expect(evaluating.args[1]).toEqual(['A dog.', 'A cat.'])
    evaluating.onProgress?.({ done: 1, total: 2 })
    expect(progress).toEqual([1])
    await host.cancelCorpus('page:1')
    await vi.waitFor(() => expect(outcome).toBeInstanceOf(CancelledError))
    // The second model never started.
    expect(engine.log.filter(([m]) => m === 'evaluate')).toHaveLength(1)
  })

  it('corpus ablation runs each model on the first N sentences with progress naming the model, and stops when cancelled', async () => {
    const { host, engine } = setup()
    const [a, b] = await host.listModels()
    const progress: AlignmentProgress[] = []
    host.onAlignmentProgress((p) => progress.push(p))
    const cell = { bleu: 10, refLogProb: -2 }
    const table = host.runAblation({ modelIds: [a.id, b.id], limit: 1 }, 'page:1')
    const first = await vi.waitFor(() => engine.next('ablation'))
    expect(first.args.slice(1)).toEqual([['A dog.'], ['Un chien.']])
    first.onProgress?.({ done: 1, total: 3 })
    expect(progress).toEqual([{ task: 'ablation', done: 1, total: 3, model: { name: 'en-fr-a', index: 0, count: 2 } }])
    first.resolve({ own: cell, uniform: cell, permuted: cell, why: null, occlusion: { sentences: 1, meanTau: 0.5, top1Rate: 1 } })
    const second = await vi.waitFor(() => engine.next('ablation'))
    second.resolve({ own: cell, uniform: null, permuted: null, why: 'no attention', occlusion: null })
    const t = await table
    expect([t.sentences, t.available, t.testSet]).toEqual([1, 2, 'Multi30K test_2016_flickr'])
    expect(t.rows.map((r) => [r.modelId, r.name, r.uniform, r.why])).toEqual([
      [a.id, 'en-fr-a', cell, null],
      [b.id, 'en-fr-b', null, 'no attention'],
    ])

    let outcome: unknown = 'running'
    void host.runAblation({ modelIds: [a.id, b.id], limit: 5 }, 'page:1').then(
      () => (outcome = 'finished'),
      (e: unknown) => (outcome = e),
    )
    await vi.waitFor(() => engine.next('ablation'))
    await host.cancelAblation('page:2')
    await host.cancelCorpus('page:1')
    expect(outcome).toBe('running')
    await host.cancelAblation('page:1')
    await vi.waitFor(() => expect(outcome).toBeInstanceOf(CancelledError))
  })

  it('closes the model it replaces, and forgets a file it is told to', async () => {
    const { host, engine, models } = setup()
    const [a, b] = await host.listModels()
    await host.openModel(a.id)
    await host.openModel(a.id)
    expect(engine.closed()).toEqual([])
    await host.openModel(b.id)
    expect(engine.closed()).toEqual([join(models, 'en-fr-a.onnx')])
    const mine = join(tempDir(), 'mine.onnx')
    const opened = await host.openPath(mine)
    expect(host.currentPath).toBe(mine)
    await host.forget(mine)
    expect(engine.closed()).toContain(mine)
    expect(host.currentPath).toBe(null)
    await expect(host.openModel(opened.id)).rejects.toMatchObject({ name: 'UnknownModelError' })
    expect((await host.listModels()).map((m) => m.fileName)).not.toContain('mine.onnx')
  })

  it('forgets a folder under every pair and precision it was opened in: each closed, none left in the recent files, gone by every id', async () => {
    const { host, engine, settings } = setup()
    const folder = join(tempDir(), 'm2m100-418m')
    const plain = await host.openPath(folder)
    const paired = await host.setLanguages('en', 'de')
    const q8 = await host.setVariant('q8')
    expect(host.currentPath).toBe(`${folder}?src_lang=en&tgt_lang=de&dtype=q8`)
    await host.forget(folder, { gone: true })
    expect(engine.closed()).toEqual(expect.arrayContaining([folder, `${folder}?src_lang=en&tgt_lang=de`, `${folder}?src_lang=en&tgt_lang=de&dtype=q8`]))
    expect(host.currentPath).toBe(null)
    const saved = JSON.parse(readFileSync(settings, 'utf8')) as StoredSettings
    expect(saved.recent).toEqual([])
    for (const id of [plain.id, paired.id, q8.id]) await expect(host.openModel(id)).rejects.toMatchObject({ code: 'gone-model' })
  })

  it('an open that finishes after a newer one changes nothing: the newer model stays current and open', async () => {
    const { host, engine, models } = setup()
    const [a, b] = await host.listModels()
    engine.holdOpens = true
    const first = host.openModel(a.id)
    const second = host.openModel(b.id)
    await vi.waitFor(() => expect(engine.waiting).toHaveLength(2))
    engine.waiting.find((p) => p.args[0] === join(models, 'en-fr-b.onnx'))!.resolve({ ...description('en-fr-b'), provider: 'cpu', providerNote: null })
    await second
    engine.next('open').resolve({ ...description('en-fr-a'), provider: 'cpu', providerNote: null })
    await first
    expect(host.currentPath).toBe(join(models, 'en-fr-b.onnx'))
    expect(engine.closed()).toEqual([])
  })

  it("a folder's precision chosen in the picker reopens it in that dtype, is remembered in the settings, and is used the next time the folder opens", async () => {
    const { host, engine, models, settings } = setup()
    const folder = join(tempDir(), 'opus-mt-en-fr')
    const opens = (e: FakeEngine) => e.log.filter(([m]) => m === 'open').map(([, p]) => p)
    await host.openPath(folder)
    const q8 = await host.setVariant('q8')
    expect(opens(engine)).toEqual([folder, `${folder}?dtype=q8`])
    expect(host.currentPath).toBe(`${folder}?dtype=q8`)
    expect(engine.closed()).toEqual([folder])
    let saved = JSON.parse(readFileSync(settings, 'utf8')) as StoredSettings
    expect(saved.variants).toEqual({ [folder]: 'q8' })
    // One recent entry for the folder, in the precision chosen.
    expect(saved.recent).toEqual([`${folder}?dtype=q8`])
    // The model's id works for the variant open: a translation goes to the q8 files.
    void host.translate({ modelId: q8.id, text: 'A dog.' }).catch(() => undefined)
    await vi.waitFor(() => expect(engine.next('translate').args[0]).toBe(`${folder}?dtype=q8`))

    // Another run of the app: the folder opened again (a dialog, a drop) opens in q8, a language pair kept with it.
    const engine2 = new FakeEngine()
    const host2 = new LensHost(engine2 satisfies Engine, { models, testsets: tempDir(), series: tempDir(), cache: tempDir() }, new SettingsStore(settings))
    await host2.openPath(folder)
    expect(opens(engine2)).toEqual([`${folder}?dtype=q8`])
    await host2.setLanguages('en', 'de')
    expect(host2.currentPath).toBe(`${folder}?src_lang=en&tgt_lang=de&dtype=q8`)
    // Back to fp32: remembered too, and the recent entry of that pair follows.
    await host2.setVariant('fp32')
    expect(host2.currentPath).toBe(`${folder}?src_lang=en&tgt_lang=de&dtype=fp32`)
    saved = JSON.parse(readFileSync(settings, 'utf8')) as StoredSettings
    expect(saved.variants).toEqual({ [folder]: 'fp32' })
    expect(saved.recent).toEqual([`${folder}?src_lang=en&tgt_lang=de&dtype=fp32`, `${folder}?dtype=q8`])
    // An entry of the list opens in the precision last chosen for its folder.
    const listed = (await host2.listModels()).filter((m) => !m.bundled)
    await host2.openModel(listed[1].id)
    expect(opens(engine2).at(-1)).toBe(`${folder}?dtype=fp32`)
  })

  it('a remembered precision the folder no longer has is forgotten, and the folder opens in its default', async () => {
    const { settings } = setup()
    const folder = join(tempDir(), 'opus-mt-en-fr')
    writeFileSync(settings, JSON.stringify({ recent: [], variants: { [folder]: 'gone', '/elsewhere': 'not a dtype!' } }))
    const engine = new FakeEngine()
    const host = new LensHost(
      engine satisfies Engine,
      { models: tempDir(), testsets: tempDir(), series: tempDir(), cache: tempDir() },
      new SettingsStore(settings),
    )
    await host.openPath(folder)
    expect(engine.log.filter(([m]) => m === 'open').map(([, p]) => p)).toEqual([`${folder}?dtype=gone`, folder])
    expect(host.currentPath).toBe(folder)
    const saved = JSON.parse(readFileSync(settings, 'utf8')) as StoredSettings
    expect(saved.variants).toEqual({})
    expect(saved.recent).toEqual([folder])
  })
})
