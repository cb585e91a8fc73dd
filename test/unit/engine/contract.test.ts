import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ContractError } from '../../../src/engine/contract'
import { LoadedModel } from '../../../src/engine/model'
import { editedModel, ROOT, setMeta, tempDir, tensorTypeOf, tiny } from '../../helpers'

async function refusal(path: string): Promise<string> {
  const err = await LoadedModel.open(path).then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ContractError)
  const msg = (err as Error).message
  // One sentence, no stack trace.
  expect(msg).not.toMatch(/\n| {4}at /)
  return msg
}

describe('opening a model under the contract', () => {
  it('opens the fixture model as two sessions with the documented inputs and outputs', async () => {
    const m = await LoadedModel.open(tiny('local-p'), 'cpu', { plain: true })
    expect([...m.encoder.inputNames].sort()).toEqual(['src_ids', 'src_mask'])
    expect(m.encoder.outputNames).toEqual(['encoder_out', 'decoder_init'])
    expect([...m.step.inputNames].sort()).toEqual(['attn_override', 'encoder_states', 'override_on', 'prev_token', 'src_mask', 'state'])
    expect(m.step.outputNames).toEqual(['logits', 'next_state', 'attention', 'scores', 'position', 'window', 'gaussian', 'align'])
    expect(m.spec.attention).toBe('local-p')
    expect(m.spec.windowD).toBe(4)
    await m.release()
  })

  it('the no-attention model has a step part without attention outputs', async () => {
    const m = await LoadedModel.open(tiny('none'), 'cpu', { plain: true })
    expect(m.step.outputNames).toEqual(['logits', 'next_state'])
    expect(m.step.inputNames).not.toContain('attn_override')
    await m.release()
  })

  it('refuses files that are not models, each with one sentence', async () => {
    const dir = tempDir()
    const empty = join(dir, 'empty.onnx')
    writeFileSync(empty, '')
    expect(await refusal(empty)).toBe('The file is empty.')
    const text = join(dir, 'text.onnx')
    writeFileSync(text, 'this is not a model at all, just some text '.repeat(20))
    expect(await refusal(text)).toMatch(/^The file is not an ONNX model/)
    const folder = join(dir, 'folder.onnx')
    mkdirSync(folder)
    expect(await refusal(folder)).toMatch(/is a folder/)
    expect(await refusal(join(dir, 'missing.onnx'))).toMatch(/does not exist/)
    const cut = join(dir, 'cut.onnx')
    const bytes = readFileSync(tiny('bahdanau'))
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)))
    expect(await refusal(cut)).toMatch(/^The file is not an ONNX model/)
  })

  it('refuses an ONNX model of something else (an image classifier) and a file too large to be a model', async () => {
    expect(await refusal(join(ROOT, 'test/fixtures/other/image-classifier.onnx'))).toBe(
      'The file is an ONNX model but carries no Attention Lens metadata (al.* keys), so it was not exported for this app.',
    )
    const big = join(tempDir(), 'huge.onnx')
    truncateSync((writeFileSync(big, ''), big), 600 * 1024 * 1024) // sparse: no disk used
    // No per-file cap: 600 MB of zeros is refused by its first bytes (its protobuf structure), not its size.
    expect(await refusal(big)).toBe('The file is not an ONNX model: its bytes are not an ONNX protobuf (byte 0 does not start a ModelProto field).')
  })

  it('names what is missing when the contract is half met', async () => {
    const noMeta = editedModel(tiny('bahdanau'), (m) => m.metadataProps.splice(0))
    expect(await refusal(noMeta)).toMatch(/carries no Attention Lens metadata/)
    const noVocab = editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.tgt_vocab', null))
    expect(await refusal(noVocab)).toBe('The model\'s metadata lacks "al.tgt_vocab".')
    const badVocab = editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.src_vocab', '["a", 3'))
    expect(await refusal(badVocab)).toBe('The model\'s metadata "al.src_vocab" is not valid JSON (it starts "["a", 3").')
    const badKind = editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.attention', 'telepathy'))
    expect(await refusal(badKind)).toMatch(/attention kind "telepathy" is not one of/)
    const shortVocab = editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.tgt_vocab', '["<pad>","<unk>","<s>","</s>","x"]'))
    expect(await refusal(shortVocab)).toMatch(/logits have \d+ entries but its target vocabulary has 5/)
    const renamed = editedModel(tiny('bahdanau'), (m) => {
      const o = m.graph!.output.find((v) => v.name === 'attention')!
      o.name = 'attn'
    })
    expect(await refusal(renamed)).toBe('The model has no output named "attention".')
    const dtype = editedModel(tiny('bahdanau'), (m) => {
      tensorTypeOf(m.graph!.input.find((v) => v.name === 'src_ids')!).elemType = 1
    })
    expect(await refusal(dtype)).toBe('The model\'s input "src_ids" is float32, not int64.')
    const traversal = editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.src_lang', 'x/../../../etc/passwd'))
    expect(await refusal(traversal)).toBe('The model\'s "al.src_lang" is "x/../../../etc/passwd", not a language code such as "en", "zh" or "pt-BR".')
    const nan = editedModel(tiny('bahdanau'), (m) => {
      const w = m.graph!.initializer.find((t) => t.name === 'model.init.weight')!
      const f = new Float32Array(Uint8Array.from(w.rawData).buffer)
      f[3] = NaN
      w.rawData = new Uint8Array(f.buffer)
    })
    expect(await refusal(nan)).toBe('The model\'s weights contain NaN or infinite values (in "model.init.weight").')
    const huge = editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.src_vocab', JSON.stringify(Array.from({ length: 1_000_000 }, (_, i) => `w${i}`))))
    expect(await refusal(huge)).toBe('The model\'s vocabulary "al.src_vocab" has 1000000 entries, more than the 200000 this app accepts.')
    const version = editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.format_version', '9'))
    expect(await refusal(version)).toMatch(/format version 9/)
  })
})
