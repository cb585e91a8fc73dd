import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { ROOT, tempDir, tiny } from '../../helpers'

const service = new InferenceService()
afterAll(() => service.closeAll())
const read = (f: string) =>
  readFileSync(join(ROOT, 'test/fixtures', f), 'utf8')
    .trim()
    .split('\n')

/**
 * Corpus BLEU by training/bleu.py: the training side's own sacreBLEU-13a implementation, in
 * Python, so the app's score is checked against code that shares nothing with it.
 */
function referenceBleu(hyps: string[], refs: string[], lowercase: boolean): number {
  const py =
    'import json, sys; sys.path.insert(0, "training"); from bleu import corpus_bleu; d = json.load(sys.stdin); print(repr(corpus_bleu(d["h"], d["r"], lowercase=d["l"])))'
  const r = spawnSync('python3', ['-c', py], { cwd: ROOT, input: JSON.stringify({ h: hyps, r: refs, l: lowercase }), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`this test needs python3 to run training/bleu.py: ${r.error?.message ?? r.stderr}`)
  return Number(r.stdout)
}

describe('corpus evaluation', () => {
  const srcs = read('multi30k-test-50.en')
  const refs = read('multi30k-test-50.fr')

  it('scores the batched translations with the BLEU an independent implementation gives them, and caches by model hash', async () => {
    const cacheDir = tempDir()
    const r = await service.evaluate(tiny('bahdanau'), srcs, refs, { cacheDir, batchSize: 16 })
    expect(r.cached).toBe(false)
    expect(r.hypotheses).toHaveLength(50)
    // Scores are rounded to two decimals.
    const lower = referenceBleu(r.hypotheses, refs, true)
    const cased = referenceBleu(r.hypotheses, refs, false)
    expect(lower).toBeGreaterThan(0)
    expect(Math.abs(r.bleu - lower)).toBeLessThanOrEqual(0.005 + 1e-9)
    expect(Math.abs(r.bleuCased - cased)).toBeLessThanOrEqual(0.005 + 1e-9)
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
