import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { ENCODER_OUTPUTS, neverGenerated } from '../../../src/engine/contract'
import { translate } from '../../../src/engine/decode'
import { splitStep, TOPK_IDS, TOPK_LOGP } from '../../../src/engine/graph-surgery'
import { LoadedModel } from '../../../src/engine/model'
import { parseOnnx } from '../../../src/engine/onnx-graph'
import type { GraphProto } from '../../../src/engine/onnx-proto'
import { encode, logitRow, step, topK } from '../../../src/engine/steps'
import { editedModel, tiny } from '../../helpers'

const SENTENCE = 'Two dogs are playing in the snow near a red fence.'
const opened: LoadedModel[] = []
afterAll(async () => {
  for (const m of opened) await m.release()
})
async function open(path: string, plain = false): Promise<LoadedModel> {
  const m = await LoadedModel.open(path, 'cpu', { plain })
  opened.push(m)
  return m
}

describe('graph surgery at open time', () => {
  it.each([
    ['bahdanau', ['/U_a/Add_output_0']],
    ['local-p', ['/W_gen/MatMul_output_0']],
    ['local-m', ['/W_gen/MatMul_output_0']],
  ])('%s: the keys (the step nodes that read only the encoder states) move into the encoder part', async (kind, keys) => {
    const file = parseOnnx(new Uint8Array(readFileSync(tiny(kind))))
    const spec = (await open(tiny(kind))).spec
    const split = splitStep(file.model.graph as GraphProto, spec.stepOutputs, ENCODER_OUTPUTS)
    expect(split.keys).toEqual(keys)
    // Nothing that depends on the decoder state is ever taken for a per-sentence value.
    const g = file.model.graph!
    for (const i of split.invariant) expect(g.node[i].input).not.toContain('state')
    const m = await open(tiny(kind))
    expect(m.keys).toEqual(keys)
    expect(m.encoder.outputNames).toEqual([...ENCODER_OUTPUTS, ...keys])
    for (const k of keys) expect(m.step.inputNames).toContain(k)
    expect(m.step.inputNames).toContain('encoder_states') // still read by the context vector
  })

  it.each(['bahdanau', 'local-p', 'none'])(
    "%s: one rewritten step gives the plain step's attention, and its top-k is the masked top-k of the plain logits",
    async (kind) => {
      const [plain, fast] = [await open(tiny(kind), true), await open(tiny(kind))]
      const ids = [
        [5, 9, 14, 7, 3],
        [6, 3],
      ]
      const [ep, ef] = [await encode(plain, ids), await encode(fast, ids)]
      const input = (e: typeof ep) => ({ prev: [2, 2], state: e.init, memory: e.memory, mask: e.mask, keys: e.keys, t: 0, k: 4 })
      const [op, of] = [await step(plain, input(ep)), await step(fast, input(ef))]
      expect(of.logits).toBeUndefined() // the logits stay in the graph
      for (const b of [0, 1]) {
        const r = logitRow(op.logits, b, neverGenerated(fast.spec))
        const want = topK(r.x, 4)
        const got = Array.from(of[TOPK_IDS].data as BigInt64Array)
          .slice(b * 4, b * 4 + 4)
          .map(Number)
        expect(got).toEqual(want)
        expect(got).not.toContain(fast.spec.special.unk)
        const lp = Array.from((of[TOPK_LOGP].data as Float32Array).subarray(b * 4, b * 4 + 4))
        lp.forEach((x, i) => expect(x).toBeCloseTo(r.x[want[i]] - r.lse, 4))
      }
      if (kind !== 'none') expect(Array.from(of.attention.data as Float32Array)).toEqual(Array.from(op.attention.data as Float32Array))
    },
  )

  it('a file at opset 18 (ReduceLogSumExp takes its axes as an input there) decodes the same after surgery', async () => {
    const path = editedModel(tiny('local-p'), (m) => {
      m.opsetImport.find((o) => o.domain === '')!.version = 18n
    })
    const [plain, fast] = [await open(path, true), await open(path)]
    expect(fast.surgeryNote).toBeNull()
    const [a, b] = [await translate(plain, SENTENCE), await translate(fast, SENTENCE)]
    expect(b.tgtTokens).toEqual(a.tgtTokens)
    b.attention.forEach((row, t) => row.forEach((w, s) => expect(Math.abs(w - a.attention[t][s])).toBeLessThan(1e-6)))
  })

  it('a graph the surgery cannot rewrite still opens, decodes step by step and says why', async () => {
    // A value named like the engine's own additions.
    const path = editedModel(tiny('bahdanau'), (m) => {
      for (const n of m.graph!.node) n.output = n.output.map((o) => (o === '/U_a/Add_output_0' ? 'al_keys' : o))
      for (const n of m.graph!.node) n.input = n.input.map((o) => (o === '/U_a/Add_output_0' ? 'al_keys' : o))
    })
    const m = await open(path)
    expect(m.greedy).toBeNull()
    expect(m.topKInGraph).toBe(false)
    expect(m.surgeryNote).toMatch(/^decoding step by step: the graph could not be rewritten \(the graph already uses the name al_keys\)$/)
    const reference = await translate(await open(tiny('bahdanau')), SENTENCE)
    expect((await translate(m, SENTENCE)).tgtTokens).toEqual(reference.tgtTokens)
  })

  it('a translation without encoder states when the view does not draw them', async () => {
    const m = await open(tiny('bahdanau'))
    const [withStates, without] = [await translate(m, SENTENCE), await translate(m, SENTENCE, { encoderStates: false })]
    expect(withStates.encoderStates).toHaveLength(withStates.srcTokens.length)
    expect(without.encoderStates).toEqual([])
    expect(without.tgtTokens).toEqual(withStates.tgtTokens)
    expect((await translate(m, SENTENCE, { beam: 3, encoderStates: false })).encoderStates).toEqual([])
  })
})
