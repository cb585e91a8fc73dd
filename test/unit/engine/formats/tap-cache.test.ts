import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { translate } from '../../../../src/engine/decode'
import { cacheKey } from '../../../../src/engine/formats/hf/tap-cache'
import { readSlimModel } from '../../../../src/engine/formats/model-bytes'
import { fromBinary, ModelProtoSchema, toBinary } from '../../../../src/engine/onnx-proto'
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
    // The merged decoder's graphs as the steps run them (hf/split.ts: the cross-attention's keys and values, the with-past
    // branch with its taps), without their weights (they name them in the folder), and nothing left half-written.
    const kept = readdirSync(cache).filter((f) => f.endsWith('.onnx'))
    expect(kept).toHaveLength(2)
    for (const k of kept) expect(statSync(join(cache, k)).size).toBeLessThan(statSync(join(folder, 'onnx', 'decoder_model_merged.onnx')).size / 10)
    expect(readdirSync(cache).filter((f) => f.endsWith('.tmp'))).toEqual([])
    const b = await run()
    expect(b.details.join('\n')).toMatch(/from the cache/)
    expect(b.text).toBe(a.text)
    expect(b.attention).toEqual(a.attention)
  })

  it('keys an entry by the graph, not the path: a copy elsewhere (a browser re-upload) or a touched file hits, a changed graph does not', async () => {
    const decoder = readdirSync(join(folder, 'onnx')).find((f) => f.startsWith('decoder_model_merged'))!
    const later = new Date(Date.now() + 60_000)
    utimesSync(join(folder, 'onnx', decoder), later, later)
    expect((await run()).details.join('\n')).toMatch(/from the cache/)
    const copy = join(work, 'upload-2', 'marian')
    cpSync(folder, copy, { recursive: true })
    const m = await LoadedModel.open(copy)
    try {
      expect(m.formatDetails.join('\n')).toMatch(/from the cache/)
    } finally {
      await m.release()
    }
    expect(entries()).toHaveLength(1)
    // The same decoder with one more graph output: another graph, tapped again.
    const path = join(folder, 'onnx', decoder)
    const model = fromBinary(ModelProtoSchema, new Uint8Array(readFileSync(path)))
    model.graph!.output.push({ ...model.graph!.output[0], name: model.graph!.node[0].output[0] })
    writeFileSync(path, toBinary(ModelProtoSchema, model))
    const c = await run()
    expect(c.details.join('\n')).toMatch(/tapped now/)
    expect(entries()).toHaveLength(2)
  })

  it('keeps no entry when one of two tapped decoders could not be written (it would lose the KV cache)', async () => {
    const pair = join(work, 'marian-optimum')
    cpSync(join(ROOT, 'test', 'fixtures', 'hf', 'marian-optimum'), pair, { recursive: true })
    const graphs = await Promise.all(['decoder_model.onnx', 'decoder_with_past_model.onnx'].map(async (f) => (await readSlimModel(join(pair, f))).bytes))
    const key = cacheKey(graphs)
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
