import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkFile } from '../../../src/engine/check'
import { encodeSource } from '../../../src/engine/decode'
import { LoadedModel } from '../../../src/engine/model'
import { InferenceService } from '../../../src/engine/service'
import { encode, step } from '../../../src/engine/steps'
import { ROOT } from '../../helpers'

/** The models of test/fixtures/unusual (make_fixtures.py beside them says how each was built). */
const unusual = (name: string) => join(ROOT, 'test', 'fixtures', 'unusual', `${name}.onnx`)
const service = new InferenceService()
afterAll(() => service.closeAll())

describe('a decoder state that grows with the source (coverage, Tu et al. 2016)', () => {
  it('is refused at open with the cause in words and the fix, never onnxruntime node names', async () => {
    const err = await service.open(unusual('coverage-state')).catch((e: Error) => e)
    expect(err).toMatchObject({ name: 'ContractError' })
    expect((err as Error).message).toBe(
      "The model opens but cannot be used: The decoder state's width depends on the source length: 26 floats for a 10-token source, 20 for 4. Attention Lens needs a fixed-width state: keep what grows with the source (a coverage vector, say) in a fixed-size buffer of max_source floats (padded to that width in the encoder, its first S read in the step), or compute it in the step from encoder_states and src_mask.",
    )
    const report = await checkFile(unusual('coverage-state'))
    for (const f of report.findings) expect(f.message).not.toMatch(/Name:'|node|Loop|Split/)
  })
})

describe('a bidirectional encoder that reads the padding (no packing)', () => {
  it('opens, with a note that says where the outputs part, why (the backward direction), the fix and the cost', async () => {
    const info = await service.open(unusual('bidi-padding'))
    const batch = info.findings.filter((f) => f.feature === 'batch')
    expect(batch).toHaveLength(1)
    expect(batch[0].level).toBe('warning')
    const m = batch[0].message
    expect(m).toMatch(/comes out differently from output token \d+ on: alone "[^"]+", in the batch "[^"]+"/)
    // The two quotes differ: each starts a little before the first token that differs.
    const [alone, inBatch] = [...m.matchAll(/(?:alone|in the batch) "([^"]+)"/g)].map((x) => x[1])
    expect(alone).not.toBe(inBatch)
    expect(m).toContain("a bidirectional encoder's backward direction reads the padding before the sentence")
    expect(m).toContain('pack_padded_sequence')
    expect(m).toContain('reverse each sentence within its length')
    expect(m).toContain('BLEU by length decodes this model one sentence at a time (the same scores, slower)')
    expect(m).not.toContain('src_mask')
  })
})

describe('a model whose <pad> logit is forced high', () => {
  const model = unusual('pad-forced')
  const text = 'a dog runs in the park'

  it('would write <pad> at every step if nothing masked it (the fixture does what it says)', async () => {
    const m = await LoadedModel.open(model, 'cpu', { plain: true })
    try {
      const ids = [encodeSource(m, text).ids]
      const e = await encode(m, ids)
      const o = await step(m, { prev: [m.spec.special.bos], state: e.init, memory: e.memory, mask: e.mask, keys: e.keys, t: 0, k: 1 })
      const logits = Array.from(o.logits.data as Float32Array)
      expect(logits.indexOf(Math.max(...logits))).toBe(m.spec.special.pad)
    } finally {
      await m.release()
    }
  })

  it('greedy, beam and what-if (every mode) never emit <pad>, <s> or <unk>, nor offer them as alternatives', async () => {
    const never = ['<pad>', '<s>', '<unk>']
    const outputs = [await service.translate(model, text), await service.translate(model, text, { beam: 4 })]
    for (const mode of ['uniform', 'onehot', 'diagonal'] as const) {
      const r = await service.whatIf(model, { modelId: '', text, steps: 'all', mode, sourceIndex: 1 })
      outputs.push(r.original, r.modified)
    }
    for (const t of outputs) {
      expect(t.tgtTokens.length).toBeGreaterThan(0)
      for (const tok of never) expect(t.tgtTokens).not.toContain(tok)
      for (const alts of t.alternatives) for (const a of alts) expect(never).not.toContain(a.token)
    }
  })
})
