import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { corpusBleu } from '../../../src/engine/bleu'
import { InferenceService } from '../../../src/engine/service'
import { ROOT, tempDir, tiny } from '../../helpers'

const service = new InferenceService()
afterAll(() => service.closeAll())
const read = (f: string) => readFileSync(join(ROOT, 'test/fixtures', f), 'utf8').trim().split('\n')

describe('corpus evaluation', () => {
  const srcs = read('multi30k-test-50.en')
  const refs = read('multi30k-test-50.fr')

  it('scores the batched translations with the same BLEU as scoring them directly, and caches by model hash', async () => {
    const cacheDir = tempDir()
    const r = await service.evaluate(tiny('bahdanau'), srcs, refs, { cacheDir, batchSize: 16 })
    expect(r.cached).toBe(false)
    expect(r.bleu).toBeCloseTo(corpusBleu(r.hypotheses, [refs], { lowercase: true }).score, 2)
    // Batching does not change the output: the same as one sentence at a time.
    for (const i of [0, 17, 49]) expect(r.hypotheses[i]).toBe((await service.translate(tiny('bahdanau'), srcs[i])).text)
    const again = await service.evaluate(tiny('bahdanau'), srcs, refs, { cacheDir })
    expect(again.cached).toBe(true)
    expect(again.bleu).toBe(r.bleu)
    const other = await service.evaluate(tiny('local-p'), srcs, refs, { cacheDir })
    expect(other.cached).toBe(false)
  })

  it('refuses a test set whose sides differ in length', async () => {
    await expect(service.evaluate(tiny('bahdanau'), srcs, refs.slice(1))).rejects.toThrow('The source has 50 lines but the reference has 49.')
  })
})
