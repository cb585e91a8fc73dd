import { cpSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HfContributionModel, type BlockTensors, type HfTapped } from '../../../../src/engine/contributions/hf'
import type { HfBlock } from '../../../../src/engine/contributions/hf-taps'
import { headOutputsInto } from '../../../../src/engine/contributions/math'
import { fromBinary, ModelProtoSchema, TensorProto_DataType, toBinary, type GraphProto, type TensorProto } from '../../../../src/engine/onnx-proto'
import type { Contributions } from '../../../../src/shared/contributions'
import { ROOT, tempDir } from '../../../helpers'
import { externalise } from '../formats/external-data'

/**
 * The contribution methods on the other forms a Hugging Face folder comes in (issue 41): weights
 * in .onnx_data files, transformers.js's fp16 and q8 files. Each is held to the fp32 numbers of the
 * same model: hf-contributions.test.ts holds those to transformers' own (marian-dynamo, whose
 * contributions reference exists), and the trained test/fixtures/hf/marian, from which marian-fp16
 * and marian-q8 were converted (training/hf_variants.py), cannot be remade in PyTorch from a seed.
 *
 * Each form is also checked on its own terms: the weights read (W_V, b_V, W_O, b_O) must give back
 * the block's output as the graph computed it, z_i = x_i + Σ_h Σ_j a^h_ij W_O^h (W_V^h u_j + b_V^h)
 * + b_O, within that form's rounding: weights read wrong (a transpose, a scale, the wrong zero
 * point, the wrong file offset) miss by far more.
 */
const HF = join(ROOT, 'test/fixtures/hf')
const TOL = 1e-4

function maxDiff(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b)
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return Infinity
  return a.reduce((m: number, x, i) => Math.max(m, maxDiff(x, b[i])), 0)
}

/** The largest difference over every method's numbers, the norms relative to the largest norm. */
function methodsDiff(a: Contributions, b: Contributions): Record<string, number> {
  const scale = Math.max(1, ...b.crossNormTotal.flat(2))
  return {
    alti: Math.max(maxDiff(a.encoderAlti, b.encoderAlti), maxDiff(a.selfAlti, b.selfAlti), maxDiff(a.crossAlti, b.crossAlti)),
    norms: Math.max(maxDiff(a.crossNorms, b.crossNorms), maxDiff(a.crossNormTotal, b.crossNormTotal)) / scale,
    normShare: maxDiff(a.normSourceShare, b.normSourceShare),
    altiPlus: Math.max(maxDiff(a.altiPlus.source, b.altiPlus.source), maxDiff(a.altiPlus.target, b.altiPlus.target)),
    rollout: Math.max(maxDiff(a.rollout.source, b.rollout.source), maxDiff(a.rollout.target, b.rollout.target)),
  }
}

/** max_i |z_i − (x_i + Σ_h Σ_j a^h_ij f^h(u_j) + b_O)| / max_i |z_i − x_i|: how far the weights read are from the graph's block. */
function blockMiss(t: BlockTensors, b: HfBlock): number {
  const { d, heads } = b.w
  const f = new Float64Array(t.source.length * heads * d)
  t.source.forEach((u, j) => headOutputsInto(u, b.w, true, f, j * heads * d))
  let miss = 0
  let size = 0
  t.z.forEach((z, i) => {
    for (let k = 0; k < d; k++) {
      let s = t.x[i][k] + b.bo[k]
      for (let h = 0; h < heads; h++) for (let j = 0; j < t.source.length; j++) s += t.a[h][i][j] * f[(j * heads + h) * d + k]
      miss = Math.max(miss, Math.abs(z[k] - s))
      size = Math.max(size, Math.abs(z[k] - t.x[i][k]))
    }
  })
  return miss / size
}

function worstBlockMiss(m: HfContributionModel, tp: HfTapped): number {
  const blocks = [
    ...tp.enc.map((t, l) => blockMiss(t, m.encoderTaps[l])),
    ...tp.dec.flatMap((t, l) => [blockMiss(t.self, m.decoderTaps[l].self), blockMiss(t.crossBlock, m.decoderTaps[l].cross)]),
  ]
  return Math.max(...blocks)
}

/**
 * A variant's folder: test/fixtures/hf's, or marian-q4's, whose two files alone are kept
 * (test/fixtures/contributions/marian-q4: hf_variants.quantize_q4 on marian's onnx/ files), put
 * beside marian's tokenizer and config in `work`.
 */
function folder(name: string, work: string): string {
  if (name !== 'marian-q4') return join(HF, name)
  const dir = join(work, name)
  cpSync(join(HF, 'marian'), dir, { recursive: true, filter: (f) => !f.endsWith('.onnx') })
  cpSync(join(ROOT, 'test/fixtures/contributions/marian-q4/onnx'), join(dir, 'onnx'), { recursive: true })
  return dir
}

interface Sentence {
  src: number[]
  tgt: number[]
}

/** Every method on `sentences` (teacher-forced on the given output), and the worst block miss. */
async function run(dir: string, sentences: Sentence[]): Promise<{ model: HfContributionModel; got: Contributions[]; miss: number }> {
  const model = await HfContributionModel.open(dir)
  const got: Contributions[] = []
  let miss = 0
  const eos = model.spec.special.eos
  for (const s of sentences) {
    const tp = await model.run(s.src, s.tgt.at(-1) === eos ? s.tgt : [...s.tgt, eos])
    got.push(model.contributions(tp))
    miss = Math.max(miss, worstBlockMiss(model, tp))
  }
  return { model, got, miss }
}

/**
 * Runs on the reference sentences of test/fixtures/hf/marian, once per folder for the whole file:
 * the fp32 folder is every variant's reference, and marian-q8's run is also the int8 side of the
 * uint8 test below. Their models are released when the file ends.
 */
const referenceRuns = new Map<string, ReturnType<typeof run>>()
const referenceSentences = (): Sentence[] =>
  (JSON.parse(readFileSync(join(HF, 'marian/reference.json'), 'utf8')) as { sentences: { input_ids: number[]; greedy: number[] }[] }).sentences.map((s) => ({
    src: s.input_ids,
    tgt: s.greedy,
  }))
function referenceRun(dir: string): ReturnType<typeof run> {
  let r = referenceRuns.get(dir)
  if (!r) {
    r = run(dir, referenceSentences())
    referenceRuns.set(dir, r)
  }
  return r
}
/** Folders made for a variant (marian-q4's), removed once its model is released. */
const variantDirs: string[] = []
afterAll(async () => {
  for (const r of referenceRuns.values()) await (await r.catch(() => null))?.model.release()
  for (const d of variantDirs) rmSync(d, { recursive: true, force: true })
})

const worstOf = (pairs: [Contributions, Contributions][]) => {
  const worst: Record<string, number> = {}
  for (const [a, b] of pairs) for (const [k, v] of Object.entries(methodsDiff(a, b))) worst[k] = Math.max(worst[k] ?? 0, v)
  return worst
}
const shown = (w: Record<string, number>) =>
  Object.entries(w)
    .map(([k, v]) => `${k} ${v.toExponential(1)}`)
    .join(', ')

describe("contributions on a folder whose weights are in .onnx_data files (Optimum's layout for large models)", () => {
  interface Case {
    src_ids: number[]
    tgt_ids: number[]
    encoder: { alti: number[][][] }
    decoder: { self_alti: number[][][]; cross_alti: number[][][] }
    alti_plus: { source: number[][] }
  }
  const { cases } = JSON.parse(gunzipSync(readFileSync(join(ROOT, 'test/fixtures/contributions/hf-marian-dynamo.json.gz'))).toString('utf8')) as {
    cases: Case[]
  }
  const sentences = cases.slice(0, 6).map((c) => ({ src: c.src_ids, tgt: c.tgt_ids }))
  const work = tempDir()
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  // marian-dynamo: Optimum's decoder_model.onnx; marian: transformers.js's merged decoder
  it.each(['marian-dynamo', 'marian'])('%s: every method as from the single-file folder, within 1e-5', async (name) => {
    const dir = join(work, name)
    externalise(join(HF, name), dir)
    const single = await run(join(HF, name), sentences)
    const external = await run(dir, sentences)
    try {
      const worst = worstOf(external.got.map((g, i) => [g, single.got[i]]))
      console.log(`${name} external data vs single file: ${shown(worst)}; block miss ${external.miss.toExponential(1)}`)
      for (const v of Object.values(worst)) expect(v).toBeLessThan(1e-5)
      expect(external.miss).toBeLessThan(1e-4)
      if (name === 'marian-dynamo')
        external.got.forEach((g, i) => {
          expect(maxDiff(g.encoderAlti, cases[i].encoder.alti)).toBeLessThan(TOL)
          expect(maxDiff(g.crossAlti, cases[i].decoder.cross_alti)).toBeLessThan(TOL)
          expect(maxDiff(g.altiPlus.source, cases[i].alti_plus.source)).toBeLessThan(TOL)
        })
    } finally {
      await single.model.release()
      await external.model.release()
    }
  })

  it('refuses a cut-short .onnx_data file by name, as opening the folder does', async () => {
    const dir = join(work, 'cut')
    externalise(join(HF, 'marian-dynamo'), dir)
    truncateSync(join(dir, 'encoder_model.onnx_data'), 1000)
    await expect(HfContributionModel.open(dir)).rejects.toThrow(/encoder_model\.onnx_data is cut short/)
  })
})

describe.each([
  // fp16: weights and activations rounded to 11 bits; q8: weights to 8 bits per tensor, each MatMul's input quantised at run
  // time; q4: weights to 4 bits in blocks of 32, activations float32 (so the weights read give back the block exactly)
  ['marian-fp16', 1e-2, 2e-2],
  ['marian-q8', 3e-2, 2e-2],
  ['marian-q4', 0.1, 1e-4],
])('contributions on %s against the fp32 folder it was converted from', (name, tol, missTol) => {
  let fp32: Awaited<ReturnType<typeof run>>
  let variant: Awaited<ReturnType<typeof run>>
  const work = tempDir()
  variantDirs.push(work)
  beforeAll(async () => {
    fp32 = await referenceRun(join(HF, 'marian'))
    variant = await referenceRun(folder(name, work))
  }, 120_000)

  it(`finds a post-norm block in every layer, whose weights give back the graph's own output (within ${missTol} of its size)`, () => {
    for (const b of [...variant.model.encoderTaps, ...variant.model.decoderTaps.flatMap((l) => [l.self, l.cross])]) expect(b.post).not.toBeNull()
    expect(variant.model.encoderTaps).toHaveLength(fp32.model.encoderTaps.length)
    expect(variant.model.decoderTaps).toHaveLength(fp32.model.decoderTaps.length)
    console.log(`${name}: block miss ${variant.miss.toExponential(1)} (fp32 ${fp32.miss.toExponential(1)})`)
    expect(fp32.miss).toBeLessThan(1e-4)
    expect(variant.miss).toBeLessThan(missTol)
  })

  it(`every method within ${tol} of the fp32 folder's`, () => {
    const worst = worstOf(variant.got.map((g, i) => [g, fp32.got[i]]))
    console.log(`${name} vs fp32: ${shown(worst)}`)
    for (const v of Object.values(worst)) expect(v).toBeLessThan(tol)
  })
})

/**
 * marian-q8 as quantize_dynamic writes it with weight_type QUInt8: every MatMulInteger weight and
 * its zero point moved from int8 to uint8 by + 128, the same dequantized weights, (W_q − W_zp) · s,
 * with a zero point of about 128 instead of 0.
 */
function toUint8(from: string, to: string): void {
  cpSync(from, to, { recursive: true })
  const dir = join(to, 'onnx')
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.onnx'))) {
    const model = fromBinary(ModelProtoSchema, new Uint8Array(readFileSync(join(dir, f))))
    const inits = new Map<string, TensorProto>()
    const weights = new Set<string>()
    const walk = (g: GraphProto | undefined) => {
      if (!g) return
      for (const t of g.initializer) inits.set(t.name, t)
      for (const n of g.node) {
        if (n.opType === 'MatMulInteger') [n.input[1], n.input[3]].forEach((w) => w && weights.add(w))
        for (const a of n.attribute) [a.g, ...a.graphs].forEach(walk)
      }
    }
    walk(model.graph)
    for (const w of weights) {
      const t = inits.get(w)
      if (t?.dataType !== TensorProto_DataType.INT8) continue
      // raw bytes (a weight), or int32_data (a scalar zero point)
      if (t.rawData.length > 0) t.rawData = t.rawData.map((b) => (b + 128) & 0xff)
      else t.int32Data = t.int32Data.map((v) => v + 128)
      t.dataType = TensorProto_DataType.UINT8
    }
    writeFileSync(join(dir, f), toBinary(ModelProtoSchema, model))
  }
}

it('reads a q8 weight with its zero point: marian-q8 with uint8 weights (zero point ≈ 128) gives its int8 numbers', async () => {
  const work = tempDir()
  try {
    toUint8(join(HF, 'marian-q8'), join(work, 'u8'))
    const sentences = referenceSentences().slice(0, 4)
    // int8: the first four of marian-q8's runs above (the same sentences, teacher-forced alike).
    const int8 = { got: (await referenceRun(join(HF, 'marian-q8'))).got.slice(0, 4) }
    const uint8 = await run(join(work, 'u8'), sentences)
    await uint8.model.release()
    const worst = worstOf(uint8.got.map((g, i) => [g, int8.got[i]]))
    console.log(`marian-q8 as uint8 vs int8: ${shown(worst)}; block miss ${uint8.miss.toExponential(1)}`)
    expect(uint8.miss).toBeLessThan(2e-2)
    for (const v of Object.values(worst)) expect(v).toBeLessThan(1e-5)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}, 120_000)
