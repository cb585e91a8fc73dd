import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { modelPath } from '../../../../src/cli/options'
import { checkFile } from '../../../../src/engine/check'
import { translate } from '../../../../src/engine/decode'
import { chooseVariant, folderVariants, type Variant } from '../../../../src/engine/formats/hf/variants'
import { LoadedModel } from '../../../../src/engine/model'
import { fromBinary, ModelProtoSchema, TensorProto_DataType, toBinary } from '../../../../src/engine/onnx-proto'
import { floatToHalf, halfToFloat } from '../../../../src/engine/formats/hf/parts'
import { ROOT } from '../../../helpers'
import { InferenceService } from '../../../../src/engine/service'
import { withDtype } from '../../../../src/shared/model-id'
import { externalise } from './external-data'

/**
 * A Hugging Face folder's precision variants (issue 39): test/fixtures/hf/marian-q8 and
 * marian-fp16 hold only `_quantized` or only `_fp16` files, transformers.js's conversions of the
 * marian folder (training/hf_test_models.py --variants), with onnxruntime-python's greedy ids and
 * tapped attention on the same files as their reference.
 */
const HF = join(ROOT, 'test', 'fixtures', 'hf')
const RAW = { beam: 1, noRepeatNgram: 0, maxRepeat: 0 }
const work = mkdtempSync(join(tmpdir(), 'al-hf-variants-'))
const cache = join(work, 'cache')
const saved = { cache: process.env.AL_CACHE_DIR, free: process.env.AL_FREE_MEMORY_BYTES }
beforeAll(() => {
  process.env.AL_CACHE_DIR = cache
})
afterAll(() => {
  process.env.AL_CACHE_DIR = saved.cache
  if (saved.free === undefined) delete process.env.AL_FREE_MEMORY_BYTES
  else process.env.AL_FREE_MEMORY_BYTES = saved.free
  rmSync(work, { recursive: true, force: true })
})

interface Ref {
  sentences: { text: string; greedy: number[]; cross_attentions: string; shape: number[] }[]
}
const floats = (b64: string) => {
  const buf = Buffer.from(b64, 'base64')
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length))
}

describe.each([
  ['marian-q8', 'q8', 1e-4],
  ['marian-fp16', 'fp16', 1e-2],
] as const)('the %s folder', (name, dtype, tolerance) => {
  it(`opens as ${dtype}: greedy ids equal onnxruntime-python's on the same files, 20 of 20, tapped attention float32 and within ${tolerance}`, async () => {
    const dir = join(HF, name)
    const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Ref
    // This variant's tapped graphs alone in the cache, to read below.
    rmSync(cache, { recursive: true, force: true })
    const m = await LoadedModel.open(dir)
    try {
      expect(m.spec.dtype).toBe(dtype)
      expect(m.spec.variants?.map((v) => v.dtype)).toEqual([dtype])
      const index = new Map(m.spec.tgtVocab.map((p, i) => [p, i]))
      let same = 0
      let worst = 0
      for (const s of ref.sentences) {
        const t = await translate(m, s.text, RAW)
        const ids = t.tgtTokens.map((p) => index.get(p) ?? -1)
        expect(ids, s.text).toEqual(s.greedy)
        same++
        const [T, L, H, S] = s.shape
        const want = floats(s.cross_attentions)
        for (let i = 0; i < T; i++)
          for (let l = 0; l < L; l++)
            for (let h = 0; h < H; h++)
              for (let j = 0; j < S; j++) worst = Math.max(worst, Math.abs(want[((i * L + l) * H + h) * S + j] - t.crossAttention![i][l][h][j]))
      }
      expect(same).toBe(20)
      expect(worst).toBeLessThan(tolerance)
    } finally {
      await m.release()
    }
    // The tapped graph declares its attention outputs float32, each a Cast of a Softmax (float16 in the fp16 graph).
    const graphs = readdirSync(cache).filter((f) => f.endsWith('.onnx'))
    const tapped = graphs
      .map((g) => fromBinary(ModelProtoSchema, new Uint8Array(readFileSync(join(cache, g)))))
      .find((g) => g.graph!.output.some((o) => o.name === 'al_cross.0'))!
    const out = tapped.graph!.output.find((o) => o.name === 'al_cross.0')!
    expect(out.type?.value.case === 'tensorType' && out.type.value.value.elemType).toBe(TensorProto_DataType.FLOAT)
    // q8: the merged decoder's with-past branch, lifted out of its If (hf/split.ts), the Cast a node of the main graph.
    // fp16: the merged decoder as exported (lifted, its sums differ in their last bits), the Cast in the with-past branch.
    const ifNode = tapped.graph!.node.find((n) => n.opType === 'If')
    expect(ifNode !== undefined).toBe(dtype === 'fp16')
    const nodes = ifNode ? ifNode.attribute.find((a) => a.name === 'else_branch')!.g!.node : tapped.graph!.node
    const cast = nodes.find((n) => n.output[0] === (ifNode ? 'else_branch/al_cross.0' : 'al_cross.0'))!
    expect(cast.opType).toBe('Cast')
    expect(cast.attribute[0].i).toBe(BigInt(TensorProto_DataType.FLOAT))
  })
})

describe('which variant opens', () => {
  const v = (dtype: string, bytes: number): Variant => ({ dtype, suffix: dtype, bytes, note: '' })
  const GB = 1e9

  it('fp32 where the folder has it and memory allows, else the most precise that fits, else the smallest (refused on opening)', () => {
    const all = [v('fp32', 3.5 * GB), v('fp16', 1.8 * GB), v('q8', 0.9 * GB)]
    expect(chooseVariant(all, {}, 16 * GB)?.dtype).toBe('fp32')
    expect(chooseVariant(all, {}, 3 * GB)?.dtype).toBe('fp16')
    expect(chooseVariant(all, {}, 1.5 * GB)?.dtype).toBe('q8')
    expect(chooseVariant(all, {}, 0.5 * GB)?.dtype).toBe('q8')
    expect(chooseVariant(all, { dtype: 'fp16' }, 0.5 * GB)?.dtype).toBe('fp16')
    expect(() => chooseVariant(all, { dtype: 'int8' })).toThrow(/The folder has no int8 variant: it has fp32 \(3\.5 GB\), fp16 \(1\.8 GB\), q8 \(900 MB\)/)
  })

  it('orders a folder by precision, not by name: fp16 > q8 (_quantized) > q4 > bnb4', () => {
    const dir = join(work, 'names')
    mkdirSync(join(dir, 'onnx'), { recursive: true })
    writeFileSync(join(dir, 'config.json'), '{}')
    for (const s of ['_bnb4', '_q4', '_quantized', '_fp16'])
      for (const p of ['encoder_model', 'decoder_model_merged']) writeFileSync(join(dir, 'onnx', `${p}${s}.onnx`), 'x')
    expect(folderVariants(dir).map((x) => x.dtype)).toEqual(['fp16', 'q8', 'q4', 'bnb4'])
  })

  describe('a folder with _fp16 and _quantized files and no fp32', () => {
    let both: string
    beforeAll(() => {
      both = join(work, 'both')
      for (const n of ['marian-fp16', 'marian-q8']) cpSync(join(HF, n), both, { recursive: true })
    })

    it('opens fp16 (the most precise), lists both with their sizes, and opens q8 by --dtype or by its file', async () => {
      const m = await LoadedModel.open(both)
      try {
        expect(m.spec.dtype).toBe('fp16')
        expect(m.spec.variants?.map((x) => x.dtype)).toEqual(['fp16', 'q8'])
        expect(m.spec.variants![0].bytes).toBeGreaterThan(m.spec.variants![1].bytes)
      } finally {
        await m.release()
      }
      const path = modelPath(both, '--model', { dtype: 'q8' })
      expect(path).toBe(join(both, 'onnx', 'encoder_model_quantized.onnx'))
      const q = await LoadedModel.open(path)
      try {
        expect(q.spec.dtype).toBe('q8')
        expect((await translate(q, 'A man in an orange hat.', RAW)).tgtTokens.length).toBeGreaterThan(0)
      } finally {
        await q.release()
      }
      expect(() => modelPath(both, '--model', { dtype: 'fp32' })).toThrow(/no fp32 variant: it has fp16 \(\d+ MB\), q8 \(\d+ MB\)/)
    })

    it('opens q8 where fp16 would not fit the memory free', async () => {
      const [fp16, q8] = folderVariants(both)
      process.env.AL_FREE_MEMORY_BYTES = String(Math.round((fp16.bytes * 1.3 + q8.bytes * 1.3) / 2))
      try {
        const m = await LoadedModel.open(both)
        expect(m.spec.dtype).toBe('q8')
        await m.release()
      } finally {
        delete process.env.AL_FREE_MEMORY_BYTES
      }
      expect(existsSync(cache)).toBe(true)
    })
  })
})

describe("the app's precision choice (issue 39 #3: the picker lists a folder's variants with their sizes)", () => {
  let three: string
  const bytesOf = (dir: string, test: (name: string) => boolean) =>
    readdirSync(dir)
      .filter(test)
      .reduce((n, f) => n + statSync(join(dir, f)).size, 0)
  beforeAll(() => {
    // fp32 with its weights in .onnx_data files (Optimum's layout), beside transformers.js's _fp16 and _quantized files.
    three = join(work, 'three')
    externalise(join(HF, 'marian'), three)
    for (const n of ['marian-fp16', 'marian-q8']) cpSync(join(HF, n, 'onnx'), join(three, 'onnx'), { recursive: true })
  })

  it("the model info lists every variant, most precise first, with its files' size (external data included) and one line on it", async () => {
    const service = new InferenceService()
    const d = await service.describe(three)
    const onnx = join(three, 'onnx')
    expect(d.dtype).toBe('fp32')
    expect(d.variants).toEqual([
      { dtype: 'fp32', bytes: bytesOf(onnx, (f) => /^(encoder_model|decoder_model_merged)\.onnx(_data)?$/.test(f)), note: expect.stringMatching(/^exact/) },
      { dtype: 'fp16', bytes: bytesOf(onnx, (f) => f.endsWith('_fp16.onnx')), note: expect.stringMatching(/half precision/) },
      { dtype: 'q8', bytes: bytesOf(onnx, (f) => f.endsWith('_quantized.onnx')), note: expect.stringMatching(/about 4× smaller than fp32 and faster on CPU/) },
    ])
    // The external data counts: the fp32 files alone are a few KB of graph.
    expect(d.variants![0].bytes).toBeGreaterThan(bytesOf(onnx, (f) => /^(encoder_model|decoder_model_merged)\.onnx$/.test(f)) * 10)
    expect((await service.describe(withDtype(three, 'q8'))).dtype).toBe('q8')
  })

  it("the folder's path asking for a dtype (the picker's choice) opens that variant, named by the folder or by any of its files", async () => {
    const q = await LoadedModel.open(withDtype(three, 'q8'))
    try {
      expect(q.spec.dtype).toBe('q8')
      expect((await translate(q, 'A man in an orange hat.', RAW)).tgtTokens.length).toBeGreaterThan(0)
    } finally {
      await q.release()
    }
    const h = await LoadedModel.open(withDtype(join(three, 'onnx', 'encoder_model.onnx'), 'fp16'))
    try {
      expect(h.spec.dtype).toBe('fp16')
    } finally {
      await h.release()
    }
    await expect(LoadedModel.open(withDtype(three, 'q4'))).rejects.toThrow(/The folder has no q4 variant: it has fp32 \(.*\), fp16 \(.*\), q8 \(/)
  })
})

describe("check's batch advice on a quantized folder", () => {
  it('names the per-tensor dynamic scale and the ways round it, not RNN advice (pack_padded_sequence)', async () => {
    const report = await checkFile(join(HF, 'marian-q8'))
    const batch = report.findings.filter((f) => f.feature === 'batch')
    expect(batch).toHaveLength(1)
    expect(batch[0].message).toMatch(
      /this q8 variant quantizes each MatMul's input with one scale computed over the whole batch \(per-tensor dynamic quantization\)/,
    )
    expect(batch[0].message).toMatch(/decode one sentence at a time, or open the fp32 or fp16 variant/)
    expect(batch[0].message).not.toMatch(/pack_padded_sequence|backward pass/)
  })
})

/**
 * marian-fp16 as Optimum's `--dtype fp16` writes a model: float16 inputs and outputs (the encoder
 * states, the KV cache, the logits), not float32 ones cast inside as transformers.js's converter
 * keeps them. Each float32 input's Cast to float16 and each output's Cast to float32 become
 * float16 to float16, so the graph computes exactly what the fixture's does.
 */
function withFloat16Io(from: string, to: string): void {
  cpSync(from, to, { recursive: true })
  for (const f of readdirSync(join(to, 'onnx')).filter((x) => x.endsWith('.onnx'))) {
    const path = join(to, 'onnx', f)
    const m = fromBinary(ModelProtoSchema, new Uint8Array(readFileSync(path)))
    const g = m.graph!
    const tensorOf = (v: (typeof g.input)[number]) => (v.type?.value.case === 'tensorType' ? v.type.value.value : null)
    for (const v of g.input) {
      const t = tensorOf(v)
      if (t?.elemType !== TensorProto_DataType.FLOAT) continue
      expect(g.node.filter((n) => n.input.includes(v.name)).every((n) => n.opType === 'Cast')).toBe(true)
      t.elemType = TensorProto_DataType.FLOAT16
    }
    for (const v of g.output) {
      const t = tensorOf(v)
      if (t?.elemType !== TensorProto_DataType.FLOAT) continue
      const cast = g.node.find((n) => n.output.includes(v.name))!
      expect(cast.opType).toBe('Cast')
      cast.attribute.find((a) => a.name === 'to')!.i = BigInt(TensorProto_DataType.FLOAT16)
      t.elemType = TensorProto_DataType.FLOAT16
    }
    writeFileSync(path, toBinary(ModelProtoSchema, m))
  }
}

describe('an fp16 export with float16 inputs and outputs (Optimum --dtype fp16)', () => {
  it('decodes as the same graph with float32 ones: the same ids and attention, 20 of 20', async () => {
    const dir = join(work, 'fp16-io')
    withFloat16Io(join(HF, 'marian-fp16'), dir)
    const ref = JSON.parse(readFileSync(join(HF, 'marian-fp16', 'reference.json'), 'utf8')) as Ref
    const m = await LoadedModel.open(dir)
    try {
      const index = new Map(m.spec.tgtVocab.map((p, i) => [p, i]))
      let worst = 0
      for (const s of ref.sentences) {
        const t = await translate(m, s.text, RAW)
        expect(
          t.tgtTokens.map((p) => index.get(p) ?? -1),
          s.text,
        ).toEqual(s.greedy)
        const [T, L, H, S] = s.shape
        const want = floats(s.cross_attentions)
        for (let i = 0; i < T; i++)
          for (let l = 0; l < L; l++)
            for (let h = 0; h < H; h++)
              for (let j = 0; j < S; j++) worst = Math.max(worst, Math.abs(want[((i * L + l) * H + h) * S + j] - t.crossAttention![i][l][h][j]))
      }
      expect(worst).toBeLessThan(1e-2)
      // Beam search reorders the float16 KV cache's rows.
      expect((await translate(m, ref.sentences[0].text, { ...RAW, beam: 4 })).tgtTokens.length).toBeGreaterThan(0)
    } finally {
      await m.release()
    }
  })

  it('converts float32 to float16 and back as numpy does (round to nearest even, subnormals, infinities)', () => {
    for (const [x, bits] of [
      [1, 0x3c00],
      [-2, 0xc000],
      [65504, 0x7bff],
      [65520, 0x7c00],
      [2 ** -24, 0x0001],
      [2 ** -25, 0x0000],
      [1 + 2 ** -11, 0x3c00],
      [1 + 3 * 2 ** -11, 0x3c02],
      [0.1, 0x2e66],
    ] as const) {
      expect(floatToHalf(x), String(x)).toBe(bits)
    }
    expect(halfToFloat(0x2e66)).toBeCloseTo(0.0999755859375, 12)
    expect(halfToFloat(0x7c00)).toBe(Infinity)
  })
})
