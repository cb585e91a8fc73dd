import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { translate } from '../../../../src/engine/decode'
import { cacheKey } from '../../../../src/engine/formats/hf/tap-cache'
import { LoadedModel } from '../../../../src/engine/model'
import { NO_REPEAT_GUARD } from '../../../../src/shared/repeat-guard'
import { ROOT } from '../../../helpers'

/**
 * A Hugging Face folder opened a second time runs the tapped decoder kept in the
 * cache (src/engine/formats/hf/tap-cache.ts): the same output, and a file changed since is tapped
 * again rather than served stale.
 */
const work = mkdtempSync(join(tmpdir(), 'al-tap-cache-'))
const cache = join(work, 'cache')
const folder = join(work, 'marian')
cpSync(join(ROOT, 'test', 'fixtures', 'hf', 'marian'), folder, { recursive: true })
const saved = process.env.AL_CACHE_DIR
process.env.AL_CACHE_DIR = cache
afterAll(() => {
  process.env.AL_CACHE_DIR = saved
  rmSync(work, { recursive: true, force: true })
})

const SENTENCE = 'A little girl in a pink dress is running on the beach.'
const entries = () => (existsSync(cache) ? readdirSync(cache).filter((f) => f.endsWith('.json')) : [])
async function run(): Promise<{ details: string[]; text: string; attention: number[][] }> {
  const m = await LoadedModel.open(folder)
  try {
    const t = await translate(m, SENTENCE, { ...NO_REPEAT_GUARD })
    return { details: m.formatDetails, text: t.text, attention: t.attention }
  } finally {
    await m.release()
  }
}

describe('the tapped-decoder cache', () => {
  it('taps the decoder once, then runs the cached copy with the same output', async () => {
    const a = await run()
    expect(a.details.join('\n')).toMatch(/tapped now \(kept in the cache/)
    expect(entries()).toHaveLength(1)
    // The merged decoder with its taps, and nothing left half-written.
    expect(readdirSync(cache).filter((f) => f.endsWith('.onnx'))).toHaveLength(1)
    expect(readdirSync(cache).filter((f) => f.endsWith('.tmp'))).toEqual([])
    const b = await run()
    expect(b.details.join('\n')).toMatch(/from the cache/)
    expect(b.text).toBe(a.text)
    expect(b.attention).toEqual(a.attention)
  })

  it('taps a decoder file again when it has changed since', async () => {
    const decoder = readdirSync(join(folder, 'onnx')).find((f) => f.startsWith('decoder_model_merged'))!
    const later = new Date(Date.now() + 60_000)
    utimesSync(join(folder, 'onnx', decoder), later, later)
    const c = await run()
    expect(c.details.join('\n')).toMatch(/tapped now/)
    expect(entries()).toHaveLength(2)
  })

  it('keeps no entry when one of two tapped decoders could not be written (it would lose the KV cache)', async () => {
    const pair = join(work, 'marian-optimum')
    cpSync(join(ROOT, 'test', 'fixtures', 'hf', 'marian-optimum'), pair, { recursive: true })
    const files = ['encoder_model.onnx', 'decoder_model.onnx', 'decoder_with_past_model.onnx'].map((f) => join(pair, f))
    const key = await cacheKey(files)
    // A folder where the with-past decoder's file would go: that write fails, the first one does not.
    mkdirSync(join(cache, `${key}.1.onnx.tmp`), { recursive: true })
    const before = entries().length
    const m = await LoadedModel.open(pair)
    try {
      expect(m.formatDetails.join('\n')).toMatch(/KV cache: yes/)
      expect(m.formatDetails.join('\n')).toMatch(/tapped now$/m)
      expect((await translate(m, SENTENCE, { ...NO_REPEAT_GUARD })).text.length).toBeGreaterThan(0)
    } finally {
      await m.release()
    }
    expect(entries()).toHaveLength(before)
    expect(readdirSync(cache).filter((f) => f.startsWith(key) && f !== `${key}.1.onnx.tmp`)).toEqual([])
  })
})
