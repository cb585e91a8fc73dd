import { createHash } from 'node:crypto'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { create } from '@bufbuild/protobuf'
import { translate, forcedDecode } from '../../../../src/engine/decode'
import { LoadedModel } from '../../../../src/engine/model'
import { parseOnnx, serializeWith } from '../../../../src/engine/onnx-graph'
import { NodeProtoSchema, type GraphProto } from '../../../../src/engine/onnx-proto'
import { crossSoftmaxes } from '../../../../src/engine/formats/hf/taps'
import { folderOf } from '../../../../src/engine/formats/hf'
import { ROOT } from '../../../helpers'

/**
 * Hugging Face folders in Optimum's and transformers.js's layouts (test/fixtures/hf, written with
 * the real transformers classes by training/hf_test_models.py) against the PyTorch references
 * written beside them: greedy ids of generate(num_beams=1), Marian's num_beams=4, and the
 * cross-attentions of output_attentions=True.
 */
const HF = join(ROOT, 'test', 'fixtures', 'hf')
// marian in transformers.js's layout (onnx/, merged decoder), marian-optimum in Optimum's (the pair beside config.json),
// marian-dynamo the same pair written by torch's dynamo exporter (other node names and attention patterns).
const FOLDERS = ['marian', 'marian-optimum', 'marian-dynamo', 'bart', 't5', 'm2m100']
/** PyTorch's references decode without repeat guards. */
const RAW = { noRepeatNgram: 0, maxRepeat: 0 }

interface Ref {
  start: number
  sentences: { text: string; input_ids: number[]; greedy: number[]; beam4?: number[]; cross_attentions: string; shape: number[] }[]
}
const ref = (name: string) => JSON.parse(readFileSync(join(HF, name, 'reference.json'), 'utf8')) as Ref
const floats = (b64: string) => {
  const buf = Buffer.from(b64, 'base64')
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length))
}
const idsOf = (m: LoadedModel, tokens: string[]) => {
  const index = new Map(m.spec.tgtVocab.map((p, i) => [p, i]))
  return tokens.map((t) => index.get(t) ?? -1)
}
const hashes = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [
        join(e.parentPath, e.name),
        createHash('sha256')
          .update(readFileSync(join(e.parentPath, e.name)))
          .digest('hex'),
      ]),
  )

const opened: LoadedModel[] = []
afterAll(async () => {
  for (const m of opened) await m.release()
})
async function open(path: string): Promise<LoadedModel> {
  const m = await LoadedModel.open(path)
  opened.push(m)
  return m
}

describe.each(FOLDERS)('Hugging Face folder %s', (name) => {
  const dir = join(HF, name)
  const r = ref(name)

  it('encodes the 20 sentences to the ids the transformers tokenizer gives', async () => {
    const m = await open(dir)
    expect(m.format).toBe('hf-seq2seq')
    for (const s of r.sentences) expect(m.sourceEncoder!(s.text).ids, s.text).toEqual(s.input_ids)
  })

  it('decodes greedily the ids PyTorch generate(num_beams=1) gives, 20 of 20, with its cross-attention within 1e-4', async () => {
    const before = hashes(dir)
    const m = await open(dir)
    let same = 0
    let worst = 0
    for (const s of r.sentences) {
      const t = await translate(m, s.text, { beam: 1, ...RAW })
      const ids = idsOf(m, t.tgtTokens)
      if (JSON.stringify(ids) === JSON.stringify(s.greedy)) same++
      else continue
      const [T, L, H, S] = s.shape
      const want = floats(s.cross_attentions)
      expect(t.crossAttention).toHaveLength(T)
      for (let i = 0; i < T; i++)
        for (let l = 0; l < L; l++)
          for (let h = 0; h < H; h++)
            for (let j = 0; j < S; j++) worst = Math.max(worst, Math.abs(want[((i * L + l) * H + h) * S + j] - t.crossAttention![i][l][h][j]))
    }
    expect(same).toBe(r.sentences.length)
    expect(worst).toBeLessThan(1e-4)
    // Opening adds outputs in memory only: the files are as they were.
    expect(hashes(dir)).toEqual(before)
  })

  it('scores the greedy output the same when it is forced (reference mode)', async () => {
    const m = await open(dir)
    const s = r.sentences[0]
    const free = await translate(m, s.text, { beam: 1, ...RAW })
    const forced = await forcedDecode(m, s.text, free.text)
    expect(forced.tgtTokens.length).toBeGreaterThan(0)
    expect(forced.crossAttention?.[0]).toHaveLength(m.spec.heads!.layers)
  })
})

describe('Hugging Face folders: decoding modes', () => {
  // A folder's beam search stops by transformers' rule (early_stopping=False): on marian-optimum
  // (trained 3 minutes) PyTorch's beam runs on to the length limit on 3 of 20 sentences.
  it.each(['marian', 'marian-optimum'])('beam search (4) gives the ids of PyTorch generate(num_beams=4) on the Marian model (%s)', async (name) => {
    const m = await open(join(HF, name))
    const r = ref(name)
    let same = 0
    const off: string[] = []
    for (const s of r.sentences) {
      const t = await translate(m, s.text, { beam: 4, ...RAW })
      const ids = idsOf(m, t.tgtTokens)
      if (JSON.stringify(ids) === JSON.stringify(s.beam4)) same++
      else off.push(`${s.text}: ${ids.join(' ')} vs ${s.beam4!.join(' ')}`)
    }
    expect(off).toEqual([])
    expect(same).toBe(20)
  })

  it("opens from any of the folder's .onnx files, in the folder or in onnx/", async () => {
    expect(await folderOf(join(HF, 'marian', 'onnx', 'decoder_model_merged.onnx'))).toBe(join(HF, 'marian'))
    expect(await folderOf(join(HF, 't5', 'encoder_model.onnx'))).toBe(join(HF, 't5'))
    expect(await folderOf(join(ROOT, 'resources', 'models', 'en-fr-transformer.onnx'))).toBeNull()
    const m = await open(join(HF, 't5', 'decoder_with_past_model.onnx'))
    expect(m.spec.heads).toEqual({ layers: 2, heads: 4 })
    // "_merged" is part of the name, not a precision such as "_quantized".
    const merged = await open(join(HF, 'marian', 'onnx', 'decoder_model_merged.onnx'))
    expect(merged.formatDetails[0]).toMatch(/onnx\/encoder_model\.onnx, onnx\/decoder_model_merged\.onnx$/)
  })
})

describe('Hugging Face folders: the cross-attention Softmax nodes', () => {
  const graph = (path: string) => parseOnnx(new Uint8Array(readFileSync(path))).model.graph as GraphProto
  it('finds one per decoder layer in decoder_model and decoder_with_past_model, and none in self-attention', () => {
    const first = graph(join(HF, 't5', 'decoder_model.onnx'))
    const past = graph(join(HF, 't5', 'decoder_with_past_model.onnx'))
    const all = (g: GraphProto) => g.node.filter((n) => n.opType === 'Softmax').length
    // T5's decoder: a self-attention and a cross-attention Softmax per layer (and none else).
    expect(all(first)).toBe(4)
    expect(crossSoftmaxes(first)).toHaveLength(2)
    expect(crossSoftmaxes(past)).toHaveLength(2)
    for (const s of crossSoftmaxes(first)) expect(s).toMatch(/EncDecAttention/)
  })
})

describe('Hugging Face folders: refusals name their cause', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'al-hf-'))
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))
  const copy = (name: string, to: string) => {
    const dest = join(tmp, to)
    cpSync(join(HF, name), dest, { recursive: true })
    return dest
  }

  it("a decoder whose attention an optimiser fused, naming the folder's file that works", async () => {
    const dir = copy('t5', 'fused')
    // The plain files become the "_quantized" variant; the plain names get a fused decoder.
    for (const f of ['encoder_model', 'decoder_model', 'decoder_with_past_model']) copyFileSync(join(dir, `${f}.onnx`), join(dir, `${f}_quantized.onnx`))
    const file = parseOnnx(new Uint8Array(readFileSync(join(dir, 'decoder_model.onnx'))))
    const g = file.model.graph as GraphProto
    const fused = create(NodeProtoSchema, {
      opType: 'MultiHeadAttention',
      domain: 'com.microsoft',
      input: [g.input[0].name],
      output: ['fused_out'],
      name: 'fused',
    })
    writeFileSync(join(dir, 'decoder_model.onnx'), serializeWith(file, { ...g, node: [...g.node, fused] }))
    await expect(LoadedModel.open(dir)).rejects.toThrow(/fused into com\.microsoft MultiHeadAttention.*Open decoder_model_quantized\.onnx instead/)
    const m = await open(join(dir, 'decoder_model_quantized.onnx'))
    expect(m.spec.heads?.layers).toBe(2)
  })

  it('a folder without a tokenizer', async () => {
    const dir = copy('t5', 'no-tokenizer')
    rmSync(join(dir, 'tokenizer.json'))
    await expect(LoadedModel.open(dir)).rejects.toThrow(/no tokenizer: it needs tokenizer\.json, or Marian's source\.spm \+ target\.spm \+ vocab\.json/)
  })

  it('a decoder-only (GPT-2 style) model and an encoder-only one', async () => {
    const gpt = join(tmp, 'gpt2')
    mkdirSync(join(gpt, 'onnx'), { recursive: true })
    writeFileSync(join(gpt, 'config.json'), JSON.stringify({ model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_layer: 2 }))
    writeFileSync(join(gpt, 'onnx', 'decoder_model_merged.onnx'), readFileSync(join(HF, 'm2m100', 'decoder_model_merged.onnx')))
    await expect(LoadedModel.open(gpt)).rejects.toThrow(/decoder-only model \(gpt2\)/)
    const bert = join(tmp, 'bert')
    mkdirSync(bert)
    writeFileSync(join(bert, 'config.json'), JSON.stringify({ model_type: 'bert', architectures: ['BertModel'] }))
    await expect(LoadedModel.open(bert)).rejects.toThrow(/encoder-only model \(bert/)
  })

  it('a multilingual model asked for a language it does not know', async () => {
    await expect(LoadedModel.open(join(HF, 'm2m100'), 'cpu', { tgtLang: 'xx' })).rejects.toThrow(
      /m2m100 has no target language "xx"; it knows 3 languages \(English \(en\), French \(fr\), German \(de\)\)/,
    )
  })
})
