import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Engine } from '../../../src/host/engine-client'
import { LensHost } from '../../../src/host/lens-host'
import { SettingsStore } from '../../../src/host/settings-store'
import type { Translation } from '../../../src/shared/api'
import { parseArgs } from '../../../src/shared/routes'
import { tempDir } from '../../helpers'

/** An engine that describes every file as an en→fr model and answers translate at once, logging what it was asked. */
function setup() {
  const models = tempDir()
  writeFileSync(join(models, 'en-fr-a.onnx'), '')
  writeFileSync(join(models, 'en-fr-b.onnx'), '')
  const testsets = tempDir()
  writeFileSync(join(testsets, 'en-fr.en'), 'A dog runs.\nTwo cats sleep on the sofa.\nA dog.\n')
  writeFileSync(join(testsets, 'en-fr.fr'), 'Un chien court.\nDeux chats dorment sur le canapé.\nUn chien.\n')
  const log: { method: string; args: unknown[]; signal: boolean }[] = []
  const engine = {
    call: (method: string, ...args: unknown[]) => (engine.callWith as (...a: unknown[]) => Promise<unknown>)({}, method, ...args),
    callWith: async (opts: { signal?: AbortSignal }, method: string, ...args: unknown[]) => {
      log.push({ method, args, signal: !!opts.signal })
      if (method === 'describe') return { name: 'm', fileName: 'm.onnx', task: 'translation', attention: 'bahdanau', srcLang: 'en', tgtLang: 'fr' }
      if (method === 'translate') return { text: `t:${String(args[1])}`, beam: (args[2] as { beam?: number }).beam ?? 1 } as unknown as Translation
      return undefined
    },
    onEvent: () => () => undefined,
  } as unknown as Engine
  const host = new LensHost(engine, { models, testsets, series: tempDir(), cache: tempDir() }, new SettingsStore(join(tempDir(), 's.json')))
  return { host, log }
}

describe('LensHost: example sentences', () => {
  it('lists the test set’s sentences with their references, filtered by search and length', async () => {
    const { host } = setup()
    const all = await host.listExamples({ pair: 'en-fr' })
    expect(all).toMatchObject({ pair: 'en-fr', testSet: 'Multi30K test_2016_flickr', total: 3 })
    expect(all.sentences[1]).toEqual({ index: 1, source: 'Two cats sleep on the sofa.', reference: 'Deux chats dorment sur le canapé.', length: 6 })
    expect((await host.listExamples({ pair: 'en-fr', search: 'chien', maxLength: 2 })).sentences.map((s) => s.index)).toEqual([2])
  })

  it('a pair with no test set is refused in one sentence; a pair that is not one never reaches the file system', async () => {
    const { host } = setup()
    await expect(host.listExamples({ pair: 'de-en' })).rejects.toMatchObject({
      name: 'NoExamplesError',
      message: 'There is no bundled test set for de-en, so there are no example sentences.',
    })
    await expect(host.listExamples({ pair: '../../etc' })).rejects.toThrow('is not a language pair')
    expect(() => parseArgs('examples:list', [{ pair: '../x-y' }])).toThrow(/refused: 0\.pair/)
  })
})

describe('LensHost: side by side and sentence scores', () => {
  it('translates with each model and beam in turn, with no signal a newer sentence could abort', async () => {
    const { host, log } = setup()
    const [a, b] = (await host.listModels()).map((m) => m.id)
    const out = await host.translateEach({
      text: 'A dog.',
      runs: [
        { modelId: a, beam: 1 },
        { modelId: b, beam: 4 },
      ],
    })
    expect(out.map((t) => [t.modelId, t.beam])).toEqual([
      [a, 1],
      [b, 4],
    ])
    const runs = log.filter((l) => l.method === 'translate')
    expect(runs.map((l) => [String(l.args[0]).split('/').pop(), l.signal])).toEqual([
      ['en-fr-a.onnx', false],
      ['en-fr-b.onnx', false],
    ])
    expect(() => parseArgs('translate:each', [{ text: 'x', runs: [] }])).toThrow(/refused/)
  })

  it('scores a hypothesis against a reference: identical sentences score 100', () => {
    const { host } = setup()
    const s = host.scoreSentence({ hypothesis: 'Un chien court.', reference: 'Un chien court.' })
    expect(s.bleu).toBeCloseTo(100, 6)
    expect(s.chrf).toBeCloseTo(100, 6)
    expect(host.scoreSentence({ hypothesis: 'Deux chats.', reference: 'Un chien court.' }).bleu).toBeLessThan(20)
  })
})
