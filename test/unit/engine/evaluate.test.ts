import { spawnSync } from '../../spawn-sync'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { corpusBleu } from '../../../src/engine/bleu'
import { InferenceService } from '../../../src/engine/service'
import { NO_REPEAT_GUARD } from '../../../src/shared/repeat-guard'
import { ROOT, tempDir, tiny } from '../../helpers'
import { itWithPython, PY } from '../../torch'

const service = new InferenceService()
afterAll(() => service.closeAll())
const read = (f: string) =>
  readFileSync(join(ROOT, 'test/fixtures', f), 'utf8')
    .trim()
    .split('\n')

/**
 * Corpus BLEU by training/attention_lens/bleu.py: the training side's own sacreBLEU-13a implementation, in
 * Python, so the app's score is checked against code that shares nothing with it. Its numbers are
 * recorded in test/fixtures/bleu-reference.json, so the checks run without Python; where Python
 * is, the last test checks the record against training/attention_lens/bleu.py itself.
 */
const RECORD = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/bleu-reference.json'), 'utf8')) as {
  bleu: number
  bleuCased: number
  hypotheses: string[]
  'every third word dropped': { lowercase: number; cased: number }
}

function pythonBleu(hyps: string[], refs: string[], lowercase: boolean): number {
  const py =
    'import json, sys; sys.path.insert(0, "training"); from attention_lens.bleu import corpus_bleu; d = json.load(sys.stdin); print(repr(corpus_bleu(d["h"], d["r"], lowercase=d["l"])))'
  const r = spawnSync(PY, ['-c', py], { cwd: ROOT, input: JSON.stringify({ h: hyps, r: refs, l: lowercase }), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`training/attention_lens/bleu.py failed: ${r.error?.message ?? r.stderr}`)
  return Number(r.stdout)
}

/** The references with words 3, 6, 9, … of each line left out (the record's second set). */
const dropThird = (refs: string[]) =>
  refs.map((r) =>
    r
      .split(' ')
      .filter((_, i) => i % 3 !== 2)
      .join(' '),
  )

describe('corpus evaluation', () => {
  const srcs = read('multi30k-test-50.en')
  const refs = read('multi30k-test-50.fr')

  it('scores the batched translations with the BLEU an independent implementation gives them, and caches by model hash', async () => {
    const cacheDir = tempDir()
    // The model's own outputs (`eval --raw`): the record was made without the repeat guards.
    const guard = NO_REPEAT_GUARD
    const r = await service.evaluate(tiny('bahdanau'), srcs, refs, { cacheDir, batchSize: 16, guard })
    expect(r.cached).toBe(false)
    expect(r.hypotheses).toHaveLength(50)
    // The outputs Python scored (a re-exported fixture model needs a new record: see the last test).
    expect(r.hypotheses).toEqual(RECORD.hypotheses)
    // Scores are rounded to two decimals.
    expect(Math.abs(r.bleu - RECORD.bleu)).toBeLessThanOrEqual(0.005 + 1e-9)
    expect(Math.abs(r.bleuCased - RECORD.bleuCased)).toBeLessThanOrEqual(0.005 + 1e-9)
    // Batching does not change the output: the same as one sentence at a time.
    for (const i of [0, 17, 49]) expect(r.hypotheses[i]).toBe((await service.translate(tiny('bahdanau'), srcs[i], guard)).text)
    const again = await service.evaluate(tiny('bahdanau'), srcs, refs, { cacheDir, guard })
    expect(again.cached).toBe(true)
    expect(again.bleu).toBe(r.bleu)
    const other = await service.evaluate(tiny('local-p'), srcs, refs, { cacheDir })
    expect(other.cached).toBe(false)
  })

  it('the BLEU of another set, unrounded, is what training/attention_lens/bleu.py gave it', () => {
    const hyps = dropThird(refs)
    const expected = RECORD['every third word dropped']
    expect(corpusBleu(hyps, [refs], { lowercase: true }).score).toBeCloseTo(expected.lowercase, 9)
    expect(corpusBleu(hyps, [refs]).score).toBeCloseTo(expected.cased, 9)
  })

  itWithPython("the record is training/attention_lens/bleu.py's", () => {
    expect(pythonBleu(RECORD.hypotheses, refs, true)).toBe(RECORD.bleu)
    expect(pythonBleu(RECORD.hypotheses, refs, false)).toBe(RECORD.bleuCased)
    expect(pythonBleu(dropThird(refs), refs, true)).toBe(RECORD['every third word dropped'].lowercase)
  })

  it('refuses a test set whose sides differ in length', async () => {
    await expect(service.evaluate(tiny('bahdanau'), srcs, refs.slice(1))).rejects.toThrow('The source has 50 lines but the reference has 49.')
  })
})
