import {
  closeSync,
  cpSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire'
import { translate } from '../../../../src/engine/decode'
import { hfFolder } from '../../../../src/engine/formats/hf'
import { readSlimModel } from '../../../../src/engine/formats/model-bytes'
import { memoryShortfall } from '../../../../src/engine/memory'
import { LoadedModel } from '../../../../src/engine/model'
import { fromBinary, ModelProtoSchema, toBinary } from '../../../../src/engine/onnx-proto'
import { ROOT } from '../../../helpers'
import { externalise } from './external-data'

/**
 * Hugging Face folders whose weights sit in external data files (Optimum's layout for large
 * models): they open, their tapped decoders name the original weights (the cache keeps the graph
 * alone), and a missing or cut data file is refused with its cause before anything is made.
 */
const HF = join(ROOT, 'test', 'fixtures', 'hf')
const RAW = { beam: 1, noRepeatNgram: 0, maxRepeat: 0 }
const work = mkdtempSync(join(tmpdir(), 'al-hf-xd-'))
const cache = join(work, 'cache')
const saved = { cache: process.env.AL_CACHE_DIR, free: process.env.AL_FREE_MEMORY_BYTES }
beforeAll(() => {
  process.env.AL_CACHE_DIR = cache
})
afterAll(() => {
  process.env.AL_CACHE_DIR = saved.cache
  rmSync(work, { recursive: true, force: true })
})

const sentences = (name: string) =>
  (JSON.parse(readFileSync(join(HF, name, 'reference.json'), 'utf8')) as { sentences: { text: string }[] }).sentences.map((s) => s.text)
/** Everything in the cache folder: entries, graphs, temporary files. */
const cached = () => (existsSync(cache) ? readdirSync(cache) : [])

async function decodeAll(dir: string, texts: string[]): Promise<{ ids: string[]; attention: number[][][][][]; details: string }> {
  const m = await LoadedModel.open(dir)
  try {
    const ids: string[] = []
    const attention: number[][][][][] = []
    for (const t of texts) {
      const r = await translate(m, t, RAW)
      ids.push(r.tgtTokens.join(' '))
      attention.push(r.crossAttention!)
    }
    return { ids, attention, details: m.formatDetails.join('\n') }
  } finally {
    await m.release()
  }
}

describe('Hugging Face folders with external data', () => {
  // Optimum's layout (decoder_model + decoder_with_past_model) and transformers.js's (onnx/, merged decoder).
  it.each(['marian-optimum', 'marian'])('%s with its weights in .onnx_data files decodes as the single-file folder does, ids and attention', async (name) => {
    const dir = join(work, `${name}-external`)
    externalise(join(HF, name), dir)
    const onnx = readdirSync(dir, { recursive: true }).map(String)
    expect(onnx.filter((f) => f.endsWith('.onnx_data')).length).toBeGreaterThanOrEqual(2)
    const texts = sentences(name)
    const single = await decodeAll(join(HF, name), texts)
    const external = await decodeAll(dir, texts)
    expect(external.ids).toEqual(single.ids)
    expect(external.attention).toEqual(single.attention)
    expect(external.details).toMatch(/tapped now/)
    // The cache keeps the tapped graphs alone: each far smaller than the weights it names.
    const graphs = cached().filter((f) => f.endsWith('.onnx'))
    expect(graphs.length).toBeGreaterThan(0)
    for (const g of graphs) expect(statSync(join(cache, g)).size).toBeLessThan(400_000)
    const again = await decodeAll(dir, texts.slice(0, 2))
    expect(again.details).toMatch(/from the cache/)
    expect(again.ids).toEqual(single.ids.slice(0, 2))
  })

  describe('refusals, each before any session, leaving nothing in the cache', () => {
    const broken = (to: string) => {
      const dir = join(work, to)
      externalise(join(HF, 'marian-optimum'), dir)
      return dir
    }
    it('a missing .onnx_data names the file', async () => {
      const dir = broken('missing')
      rmSync(join(dir, 'decoder_with_past_model.onnx_data'))
      const before = cached()
      await expect(LoadedModel.open(dir)).rejects.toThrow(
        /decoder_with_past_model\.onnx keeps its weights in decoder_with_past_model\.onnx_data, which is not in its folder/,
      )
      expect(cached()).toEqual(before)
    })

    it('a truncated .onnx_data says how short it is', async () => {
      const dir = broken('truncated')
      const data = join(dir, 'decoder_model.onnx_data')
      const size = statSync(data).size
      truncateSync(data, size - 5000)
      const before = cached()
      await expect(LoadedModel.open(dir)).rejects.toThrow(
        new RegExp(
          `decoder_model\\.onnx_data is cut short: it has ${(size - 5000).toLocaleString('en-US')} bytes, and decoder_model\\.onnx's tensor .* needs bytes up to ${size.toLocaleString('en-US')}`,
        ),
      )
      expect(cached()).toEqual(before)
    })

    it('external data outside the folder is refused (onnxruntime reads only the model folder)', async () => {
      const dir = broken('escape')
      const path = join(dir, 'encoder_model.onnx')
      const m = fromBinary(ModelProtoSchema, new Uint8Array(readFileSync(path)))
      const t = m.graph!.initializer.find((x) => x.externalData.length)!
      t.externalData.find((e) => e.key === 'location')!.value = '../truncated/encoder_model.onnx_data'
      writeFileSync(path, toBinary(ModelProtoSchema, m))
      await expect(LoadedModel.open(dir)).rejects.toThrow(/keeps weights at "\.\.\/truncated\/encoder_model\.onnx_data", outside its folder/)
    })
  })
})

describe('model size: memory, not a per-file cap', () => {
  afterAll(() => {
    if (saved.free === undefined) delete process.env.AL_FREE_MEMORY_BYTES
    else process.env.AL_FREE_MEMORY_BYTES = saved.free
  })

  it('decides by the memory free: a 600 MB file fits 8 GB, 4 GB of files does not fit 2.3 GB', () => {
    expect(memoryShortfall(600 * 2 ** 20, 8e9)).toBeNull()
    expect(memoryShortfall(1.8e9, 8e9)).toBeNull()
    expect(memoryShortfall(3.15e9, 2.3e9)).toBe('needs about 4.1 GB, 2.3 GB free')
  })

  it('refuses a folder that will not fit the memory free, naming both, and leaves nothing behind', async () => {
    process.env.AL_FREE_MEMORY_BYTES = String(3_000_000)
    const before = cached()
    try {
      await expect(LoadedModel.open(join(HF, 'marian'))).rejects.toThrow(/The folder's fp32 model \(7 MB of files\) needs about 9 MB, 3 MB free/)
    } finally {
      delete process.env.AL_FREE_MEMORY_BYTES
    }
    expect(cached()).toEqual(before)
  })

  it('opens a folder whose encoder file is over 512 MB (a sparse file: an unused 600 MB initializer)', async () => {
    const dir = join(work, 'big')
    cpSync(join(HF, 'marian-optimum'), dir, { recursive: true })
    const path = join(dir, 'encoder_model.onnx')
    const bytes = new Uint8Array(readFileSync(path))
    const big = 600 * 2 ** 20
    // The file as it was, then one more top-level graph field holding an initializer whose 600 MB
    // raw_data is a hole (protobuf merges a repeated message field's occurrences into one graph).
    const tensor = new BinaryWriter()
      .tag(1, WireType.Varint)
      .int64(big / 4)
      .tag(2, WireType.Varint)
      .int32(1)
      .tag(8, WireType.LengthDelimited)
      .string('al_test_unused')
    const head = tensor.tag(9, WireType.LengthDelimited).uint32(big).finish()
    const tensorLen = head.length + big
    const graphBody = new BinaryWriter().tag(5, WireType.LengthDelimited).uint32(tensorLen).finish()
    const graphHead = new BinaryWriter()
      .tag(7, WireType.LengthDelimited)
      .uint32(graphBody.length + tensorLen)
      .finish()
    const fd = openSync(path, 'w')
    writeSync(fd, bytes)
    writeSync(fd, graphHead)
    writeSync(fd, graphBody)
    writeSync(fd, head)
    closeSync(fd)
    truncateSync(path, bytes.length + graphHead.length + graphBody.length + head.length + big)
    expect(statSync(path).size).toBeGreaterThan(512 * 2 ** 20)
    const slim = await readSlimModel(path)
    expect(slim.bytes.length).toBeLessThan(bytes.length + 1000)
    const m = await LoadedModel.open(dir)
    try {
      expect((await translate(m, 'A man in an orange hat.', RAW)).tgtTokens.length).toBeGreaterThan(0)
    } finally {
      await m.release()
    }
  })

  it('falls back to the next precision when the default one, once its graphs are read, needs more memory than is free (external data named by tensor, not by file)', async () => {
    const dir = join(work, 'by-tensor')
    // fp32 with its weights in files whose names do not carry the .onnx file's (as torch writes one file per tensor), and the q8 variant.
    externalise(join(HF, 'marian'), dir, { dataName: (f) => `weights-of-${f.replace('.onnx', '')}` })
    cpSync(join(HF, 'marian-q8', 'onnx'), join(dir, 'onnx'), { recursive: true })
    const size = (f: string) => statSync(join(dir, 'onnx', f)).size
    const fp32 = size('encoder_model.onnx') + size('decoder_model_merged.onnx') + size('weights-of-encoder_model') + size('weights-of-decoder_model_merged')
    const q8 = size('encoder_model_quantized.onnx') + size('decoder_model_merged_quantized.onnx')
    process.env.AL_FREE_MEMORY_BYTES = String(Math.round(((fp32 + q8) / 2) * 1.3))
    try {
      const m = await LoadedModel.open(dir)
      expect(m.spec.dtype).toBe('q8')
      await m.release()
      // Asked for by --dtype, fp32 is refused instead, with the memory it needs.
      await expect(LoadedModel.open(dir, 'cpu', { dtype: 'fp32' })).rejects.toThrow(
        /The folder's fp32 model \(7 MB of files\) needs about 9 MB, \d MB free.* The folder also has q8/,
      )
    } finally {
      delete process.env.AL_FREE_MEMORY_BYTES
    }
  })

  it("reads a tokenizer of NLLB's size (256,206 pieces) without overflowing the stack", async () => {
    const dir = join(work, 'big-vocab')
    cpSync(join(HF, 'marian'), dir, { recursive: true })
    const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8')) as Record<string, number>
    const n = Object.keys(vocab).length
    for (let i = n; i < 256_206; i++) vocab[`<x${i}>`] = i
    writeFileSync(join(dir, 'vocab.json'), JSON.stringify(vocab))
    const spec = await hfFolder.describe(dir)
    expect(spec.tgtVocab).toHaveLength(256_206)
  })

  it('refuses a file that is not an ONNX model by its first bytes, whatever its size, and one over 2 GiB as more than protobuf holds', async () => {
    const text = join(work, 'big.onnx')
    writeFileSync(text, 'not a model at all\n')
    truncateSync(text, 3 * 2 ** 30)
    await expect(readSlimModel(text)).rejects.toThrow(/big\.onnx is not an ONNX model: its bytes are not an ONNX protobuf/)
    const huge = join(work, 'huge.onnx')
    const graphHead = new BinaryWriter()
      .tag(7, WireType.LengthDelimited)
      .uint32(2 ** 31 + 10)
      .finish()
    writeFileSync(huge, graphHead)
    truncateSync(huge, graphHead.length + 2 ** 31 + 10)
    await expect(readSlimModel(huge)).rejects.toThrow(/more than the 2 GiB one ONNX protobuf can hold: save it with its weights in external data/)
  })
})
