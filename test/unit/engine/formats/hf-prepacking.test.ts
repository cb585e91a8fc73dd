import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { InferenceSession } from 'onnxruntime-node'
import { translate } from '../../../../src/engine/decode'
import * as sessions from '../../../../src/engine/formats/ort-sessions'
import { LoadedModel } from '../../../../src/engine/model'
import { ROOT } from '../../../helpers'

/**
 * Which of a Hugging Face folder's sessions onnxruntime makes without prepacking their weights
 * (ort-sessions.ts sessionOptions 'once'): those run once a translation, never a step run on every
 * token; and what an unpacked session computes is what a packed one does.
 */
const HF = join(ROOT, 'test', 'fixtures', 'hf')
const work = mkdtempSync(join(tmpdir(), 'al-hf-prepack-'))
const saved = process.env.AL_CACHE_DIR
process.env.AL_CACHE_DIR = join(work, 'cache')
afterAll(() => {
  process.env.AL_CACHE_DIR = saved
  rmSync(work, { recursive: true, force: true })
})
afterEach(() => {
  vi.restoreAllMocks()
})

const unpacked = (o: InferenceSession.SessionOptions) =>
  ((o.extra as { session?: Record<string, string> } | undefined)?.session?.disable_prepacking ?? '0') === '1'

/** Per session made at open (encoder, first decoder, with-past decoder): whether it was made without prepacking. */
async function prepacking(dir: string): Promise<boolean[]> {
  const spy = vi.spyOn(sessions, 'createAll')
  const m = await LoadedModel.open(dir)
  await m.release()
  expect(spy).toHaveBeenCalledTimes(1)
  const [parts, options] = spy.mock.calls[0]
  expect(Array.isArray(options)).toBe(true)
  expect((options as InferenceSession.SessionOptions[]).length).toBe(parts.length)
  return (options as InferenceSession.SessionOptions[]).map(unpacked)
}

describe('prepacking of a Hugging Face folder’s sessions', () => {
  it('leaves the encoder and the first decoder unpacked where a with-past decoder takes the later steps', async () => {
    expect(await prepacking(join(HF, 'marian-optimum'))).toEqual([true, true, false])
  })

  it('packs only the with-past branch lifted from a merged decoder (split.ts): its cross graph runs once', async () => {
    expect(await prepacking(join(HF, 'm2m100'))).toEqual([true, true, false])
  })

  it('packs the first decoder of a folder without a with-past decoder (it then runs every step)', async () => {
    const dir = join(work, 'no-past')
    cpSync(join(HF, 'marian-optimum'), dir, { recursive: true, filter: (f) => !f.endsWith('decoder_with_past_model.onnx') })
    expect(await prepacking(dir)).toEqual([true, false])
  })

  it('packs every session of a float16 folder: unpacked, its kernels sum in another order (NLLB-600M fp16 chose another id)', async () => {
    expect(await prepacking(join(HF, 'marian-fp16'))).toEqual([false, false])
  })

  it('translates the same with every session packed', async () => {
    const dir = join(HF, 'marian-optimum')
    const text = 'The cat sat on the mat.'
    const ours = await LoadedModel.open(dir)
    const a = await translate(ours, text, { beam: 2 })
    await ours.release()
    vi.spyOn(sessions, 'sessionOptions').mockImplementation((p) => ({
      executionProviders: [p],
      graphOptimizationLevel: 'all',
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      logSeverityLevel: 4,
    }))
    const packed = await LoadedModel.open(dir)
    const b = await translate(packed, text, { beam: 2 })
    await packed.release()
    expect(a.tgtTokens).toEqual(b.tgtTokens)
    expect(a.tgtTokens.length).toBeGreaterThan(1)
    const flat = (x: number[][][][]) => x.flat(3)
    const [fa, fb] = [flat(a.crossAttention!), flat(b.crossAttention!)]
    expect(fa.length).toBe(fb.length)
    expect(Math.max(...fa.map((v, i) => Math.abs(v - fb[i])))).toBeLessThan(1e-5)
  })
})
