import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Translation } from '../../../src/shared/api'
import { checkFile, exitCode } from '../../../src/engine/check'
import { contractProblems } from '../../../src/engine/contract'
import { decodeSteps, encodeSource, forcedDecode, greedyBatch, maxTargetLength, translate, whatIf } from '../../../src/engine/decode'
import { LoadedModel } from '../../../src/engine/model'
import { encode, step } from '../../../src/engine/steps'
import { parseOnnx } from '../../../src/engine/onnx-graph'
import { create, TensorShapeProto_DimensionSchema } from '../../../src/engine/onnx-proto'
import { InferenceService } from '../../../src/engine/service'
import { NO_REPEAT_GUARD } from '../../../src/shared/repeat-guard'
import { editedModel, ROOT, setMeta, tensorTypeOf, tiny } from '../../helpers'
import { constant, inputToConstant, rewire } from './check-edits'

/**
 * The transformer kind (docs/model-format.md, "Transformer models") on the committed fixture
 * test/fixtures/models/tiny-transformer.onnx (2 decoder layers × 2 heads, d 32, at most T = 64 steps,
 * written with its PyTorch parity fixture by `training/train.py --pair en-fr --kind transformer
 * --tiny --name tiny-transformer`).
 */
const FILE = tiny('transformer')
const L = 2
const H = 2

interface Case {
  source: string
  src_ids: number[]
  tgt_ids: number[]
  attention: number[][]
  cross_attention: number[][][][]
  beam5_ids: number[]
}
const cases = (JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'parity', 'tiny-transformer.json'), 'utf8')) as { cases: Case[] }).cases

const opened: LoadedModel[] = []
async function open(path = FILE, plain = false): Promise<LoadedModel> {
  const m = await LoadedModel.open(path, 'cpu', { plain })
  opened.push(m)
  return m
}
afterAll(async () => {
  for (const m of opened) await m.release()
})

/** The largest absolute difference between two nested arrays of the same shape (−1 if the shapes differ). */
function maxDiff(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return -1
    let m = 0
    for (let i = 0; i < a.length; i++) {
      const d = maxDiff(a[i], b[i])
      if (d < 0) return -1
      m = Math.max(m, d)
    }
    return m
  }
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b)
  return -1
}

const ids = (m: LoadedModel, t: Translation) => t.tgtTokens.map((x) => m.spec.tgtVocab.indexOf(x))
/** PyTorch's ids stop before </s>; the engine's tokens end with it unless the step limit cut the sentence. */
const withEos = (m: LoadedModel, c: Case) =>
  c.tgt_ids.length < maxTargetLength(c.src_ids.length, m.spec.maxTarget) ? [...c.tgt_ids, m.spec.special.eos] : c.tgt_ids

describe('the contract: al.layers, al.heads, al.max_target, cross_attention', () => {
  it('reads the grid and the cache length; ModelInfo carries the grid', async () => {
    const m = await open()
    expect(m.spec.attention).toBe('transformer')
    expect(m.spec.heads).toEqual({ layers: L, heads: H })
    expect(m.spec.maxTarget).toBe(64)
    // No `scores` for this kind; every head's weights instead.
    expect(m.spec.stepOutputs).toEqual(['logits', 'next_state', 'attention', 'cross_attention'])
    const service = new InferenceService()
    try {
      expect((await service.describe(FILE)).heads).toEqual({ layers: L, heads: H })
      expect((await service.describe(tiny('bahdanau'))).heads).toBeUndefined()
    } finally {
      await service.closeAll()
    }
  })

  it('refuses a transformer without al.layers / al.heads, or with a grid that is not positive whole numbers', () => {
    const problems = (edit: Parameters<typeof editedModel>[1]) => contractProblems(parseOnnx(readFileSync(editedModel(FILE, edit)))).problems
    expect(problems((m) => setMeta(m, 'al.heads', null))).toEqual(['The transformer model lacks "al.heads", heads per layer (a positive whole number).'])
    expect(problems((m) => setMeta(m, 'al.layers', '1.5'))).toEqual([
      'The transformer model\'s "al.layers" is "1.5", not a positive whole number (decoder layers).',
    ])
    expect(problems((m) => setMeta(m, 'al.max_target', '0'))).toEqual([
      'The transformer model\'s "al.max_target" is "0", not a positive whole number (the longest output).',
    ])
    // al.max_target is optional: without it only 2·S + 10 limits the steps.
    expect(problems((m) => setMeta(m, 'al.max_target', null))).toEqual([])
  })

  it('an RNN kind still needs scores; a transformer needs cross_attention instead', () => {
    const dropOutput = (src: string, name: string) =>
      contractProblems(
        parseOnnx(
          readFileSync(
            editedModel(src, (m) => {
              const g = m.graph!
              g.output = g.output.filter((o) => o.name !== name)
            }),
          ),
        ),
      ).problems
    expect(dropOutput(tiny('bahdanau'), 'scores')).toEqual(['The model has no output named "scores".'])
    expect(dropOutput(FILE, 'cross_attention')).toEqual(['The model has no output named "cross_attention".'])
    expect(contractProblems(parseOnnx(readFileSync(FILE))).problems).toEqual([])
  })
})

describe('ONNX reproduces PyTorch (test/fixtures/parity/tiny-transformer.json)', () => {
  it.each(cases)('$source: tokens exact, attention and every head within 1e-4, beam 5 exact', async (c) => {
    const m = await open()
    // PyTorch decodes without the repeat guards: the model's own outputs, guards off.
    const t = (await greedyBatch(m, [c.source], { guard: NO_REPEAT_GUARD }))[0]
    expect(ids(m, t)).toEqual(withEos(m, c))
    expect(t.attention.length).toBe(c.attention.length)
    const a = maxDiff(t.attention, c.attention)
    expect(a).toBeGreaterThanOrEqual(0)
    expect(a).toBeLessThan(1e-4)
    expect(t.crossAttention).toBeDefined()
    const x = maxDiff(t.crossAttention, c.cross_attention)
    expect(x).toBeGreaterThanOrEqual(0) // same shape: [steps][L][H][S]
    expect(x).toBeLessThan(1e-4)
    // No scores for a transformer: one empty row per step.
    expect(t.scores).toEqual(t.tgtTokens.map(() => []))
    const b = await translate(m, c.source, { beam: 5, ...NO_REPEAT_GUARD })
    const beamIds = ids(m, b)
    expect(beamIds.filter((i) => i !== m.spec.special.eos)).toEqual(c.beam5_ids)
  })

  it('the average of the heads is `attention`, at every step', async () => {
    const m = await open()
    for (const c of cases) {
      const t = (await greedyBatch(m, [c.source]))[0]
      t.attention.forEach((row, i) => {
        const heads = t.crossAttention![i]
        expect(heads.length).toBe(L)
        heads.forEach((l) => expect(l.length).toBe(H))
        const mean = row.map((_, s) => heads.flat().reduce((acc, w) => acc + w[s], 0) / (L * H))
        expect(maxDiff(mean, row)).toBeLessThan(1e-6)
      })
    }
  })
})

describe('the state: a key/value cache that grows one position a step', () => {
  it('is [B, 0] before the first step and [B, (t + 1)·Z] after step t (Z = al.state_size = L·2·d), the earlier positions unchanged', async () => {
    const m = await open()
    const Z = m.spec.stateSize
    expect(Z).toBe(L * 2 * 32)
    const ids = encodeSource(m, cases[0].source).ids
    const enc = await encode(m, [ids, ids])
    expect(enc.init.dims).toEqual([2, 0])
    let state = enc.init
    for (let t = 0; t < 4; t++) {
      const prev = t === 0 ? [m.spec.special.bos, m.spec.special.bos] : [cases[0].tgt_ids[t - 1], cases[0].tgt_ids[t - 1]]
      const o = await step(m, { prev, state, memory: enc.memory, mask: enc.mask, keys: enc.keys, t, k: 1 })
      const next = o.next_state
      expect(next.dims).toEqual([2, (t + 1) * Z])
      const [a, b] = [state.data as Float32Array, next.data as Float32Array]
      for (let r = 0; r < 2; r++)
        expect(Array.from(b.subarray(r * (t + 1) * Z, r * (t + 1) * Z + t * Z))).toEqual(Array.from(a.subarray(r * t * Z, (r + 1) * t * Z)))
      state = next
    }
  })
})

describe('the paths agree: greedy ONNX Loop, step by step, batches, beam', () => {
  it('the Loop (after graph surgery) decodes as the plain step-by-step parts do, cross_attention included', async () => {
    const [loop, plain] = [await open(), await open(FILE, true)]
    // The surgery really happened, so the two sides run different graphs.
    expect(loop.greedy).not.toBeNull()
    expect(loop.surgeryNote).toBeNull()
    expect(loop.keys.length).toBeGreaterThan(0)
    expect(plain.greedy).toBeNull()
    const texts = cases.map((c) => c.source)
    const got = await greedyBatch(loop, texts)
    const ref = await greedyBatch(plain, texts)
    got.forEach((g, i) => {
      expect(g.tgtTokens).toEqual(ref[i].tgtTokens)
      expect(maxDiff(g.attention, ref[i].attention)).toBeLessThan(1e-6)
      expect(maxDiff(g.crossAttention, ref[i].crossAttention)).toBeGreaterThanOrEqual(0)
      expect(maxDiff(g.crossAttention, ref[i].crossAttention)).toBeLessThan(1e-6)
      expect(maxDiff(g.tokenLogProbs, ref[i].tokenLogProbs)).toBeLessThan(1e-5)
    })
    // A padded batch of four lengths gives each sentence what it gets alone.
    for (const [i, text] of texts.entries()) {
      const alone = (await greedyBatch(loop, [text]))[0]
      expect(alone.tgtTokens).toEqual(got[i].tgtTokens)
      expect(maxDiff(alone.crossAttention, got[i].crossAttention)).toBeLessThan(1e-5)
    }
  })

  it('batched evaluation can leave the heads out', async () => {
    const m = await open()
    const [t] = await greedyBatch(m, [cases[0].source], { topK: 1, encoderStates: false, crossAttention: false })
    expect(t.crossAttention).toBeUndefined()
    expect(t.attention.length).toBe(t.tgtTokens.length)
  })

  it("beam search keeps each hypothesis' own heads: they equal a forced decode of the chosen tokens", async () => {
    const m = await open()
    for (const c of cases) {
      const b = await translate(m, c.source, { beam: 5 })
      const src = encodeSource(m, c.source)
      const forced = await decodeSteps(m, [src], { topK: 5, forced: [ids(m, b)] })
      const heads = forced.steps[0].map((s) => s.capture.cross)
      expect(b.crossAttention!.length).toBe(b.tgtTokens.length)
      expect(maxDiff(b.crossAttention, heads)).toBeGreaterThanOrEqual(0)
      expect(maxDiff(b.crossAttention, heads)).toBeLessThan(1e-5)
    }
  })
})

describe('what-if per head', () => {
  const text = cases[0].source
  const T0 = 3

  /** Steps before `t0` bit-identical: tokens, probabilities, attention and every head. */
  function sameBefore(a: Translation, b: Translation, t0: number): void {
    expect(b.tgtTokens.slice(0, t0)).toEqual(a.tgtTokens.slice(0, t0))
    expect(b.tokenLogProbs.slice(0, t0)).toEqual(a.tokenLogProbs.slice(0, t0))
    expect(b.attention.slice(0, t0)).toEqual(a.attention.slice(0, t0))
    expect(b.crossAttention!.slice(0, t0)).toEqual(a.crossAttention!.slice(0, t0))
  }

  it('silencing one head at one step changes nothing before it, and the outputs from it on', async () => {
    const m = await open()
    const r = await whatIf(m, { modelId: '', text, steps: [T0], mode: 'silence', head: { layer: 0, head: 1 } })
    const { original: o, modified: w } = r
    expect(o.tgtTokens.length).toBeGreaterThan(T0 + 1)
    sameBefore(o, w, T0)
    // At the step: layer 0's own weights are computed before its gate acts, so they stay; the
    // silenced head drops out of `attention`, the average of the three heads still used.
    expect(w.crossAttention![T0][0]).toEqual(o.crossAttention![T0][0])
    const used = [w.crossAttention![T0][0][0], ...w.crossAttention![T0][1]]
    const mean = w.attention[T0].map((_, s) => used.reduce((acc, x) => acc + x[s], 0) / used.length)
    expect(maxDiff(mean, w.attention[T0])).toBeLessThan(1e-6)
    expect(maxDiff(w.attention[T0], o.attention[T0])).toBeGreaterThan(1e-4)
    // Layer 1 reads what layer 0 wrote: its weights move, and so does the next token's distribution.
    expect(maxDiff(w.crossAttention![T0][1], o.crossAttention![T0][1])).toBeGreaterThan(1e-6)
    expect(w.tokenLogProbs[T0]).not.toBe(o.tokenLogProbs[T0])
  })

  it('silencing every head at every step: `attention` is all zeros, the heads still show', async () => {
    const m = await open()
    const { modified: w } = await whatIf(m, { modelId: '', text, steps: 'all', mode: 'silence' })
    for (const row of w.attention) expect(row.every((x) => x === 0)).toBe(true)
    for (const step of w.crossAttention!) for (const l of step) for (const h of l) expect(Math.abs(h.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-4)
  })

  it("overriding one head of the top layer changes only that head's row at that step", async () => {
    const m = await open()
    const S = encodeSource(m, text).ids.length
    const r = await whatIf(m, { modelId: '', text, steps: [T0], mode: 'onehot', sourceIndex: 2, head: { layer: L - 1, head: 1 } })
    const { original: o, modified: w } = r
    sameBefore(o, w, T0)
    const oneHot = Array.from({ length: S }, (_, s) => (s === 2 ? 1 : 0))
    expect(o.crossAttention![T0][L - 1][1]).not.toEqual(oneHot)
    expect(w.crossAttention![T0][L - 1][1]).toEqual(oneHot)
    // Every other head at that step: bit-identical (the top layer's queries were computed before it).
    const others = (t: Translation) => t.crossAttention![T0].flatMap((l, li) => l.filter((_, hi) => !(li === L - 1 && hi === 1)))
    expect(others(w)).toEqual(others(o))
    // `attention` is the mean as used, with the forced head in it.
    const mean = w.attention[T0].map((_, s) => w.crossAttention![T0].flat().reduce((acc, x) => acc + x[s], 0) / (L * H))
    expect(maxDiff(mean, w.attention[T0])).toBeLessThan(1e-6)
  })

  it('overriding a head of the lowest layer: the rest of that layer is unchanged, the layer above moves', async () => {
    const m = await open()
    const { original: o, modified: w } = await whatIf(m, { modelId: '', text, steps: [T0], mode: 'uniform', head: { layer: 0, head: 0 } })
    sameBefore(o, w, T0)
    const S = encodeSource(m, text).ids.length
    expect(maxDiff(w.crossAttention![T0][0][0], new Array(S).fill(1 / S))).toBeLessThan(1e-6)
    expect(w.crossAttention![T0][0][1]).toEqual(o.crossAttention![T0][0][1])
    expect(maxDiff(w.crossAttention![T0][1], o.crossAttention![T0][1])).toBeGreaterThan(1e-6)
  })

  it('without a head, an override goes to every head of every layer', async () => {
    const m = await open()
    const { modified: w } = await whatIf(m, { modelId: '', text, steps: [0], mode: 'uniform' })
    const S = w.srcTokens.length
    for (const l of w.crossAttention![0]) for (const h of l) expect(maxDiff(h, new Array(S).fill(1 / S))).toBeLessThan(1e-6)
    expect(maxDiff(w.attention[0], new Array(S).fill(1 / S))).toBeLessThan(1e-6)
  })

  it('refuses a head the model does not have, and heads on an RNN', async () => {
    const m = await open()
    await expect(whatIf(m, { modelId: '', text, steps: [0], mode: 'silence', head: { layer: L, head: 0 } })).rejects.toThrow(
      'There is no head 0 in layer 2: the model has layers 0–1 with heads 0–1.',
    )
    const rnn = await open(tiny('bahdanau'))
    await expect(whatIf(rnn, { modelId: '', text, steps: [0], mode: 'silence' })).rejects.toThrow('has one attention, not several heads to silence')
    await expect(whatIf(rnn, { modelId: '', text, steps: [0], mode: 'uniform', head: { layer: 0, head: 0 } })).rejects.toThrow(
      'not several heads to choose from',
    )
  })
})

describe('al.max_target caps the steps', () => {
  it('min(2·S + 10, T)', () => {
    expect(maxTargetLength(20)).toBe(50)
    expect(maxTargetLength(20, 64)).toBe(50)
    expect(maxTargetLength(30, 64)).toBe(64)
  })

  it('a file declaring T = 4 stops every decoder after 4 steps, each the same as without the cap', async () => {
    const capped = editedModel(FILE, (m) => setMeta(m, 'al.max_target', '4'))
    const [full, loop, plain] = [await open(), await open(capped), await open(capped, true)]
    expect(loop.spec.maxTarget).toBe(4)
    const c = cases[0]
    expect(c.tgt_ids.length).toBeGreaterThan(4)
    const ref = (await greedyBatch(full, [c.source]))[0]
    for (const m of [loop, plain]) {
      const t = (await greedyBatch(m, [c.source]))[0]
      expect(t.tgtTokens).toEqual(ref.tgtTokens.slice(0, 4))
      expect(t.crossAttention).toEqual(ref.crossAttention!.slice(0, 4))
      const b = await translate(m, c.source, { beam: 5 })
      expect(b.tgtTokens.length).toBeLessThanOrEqual(4)
      const f = await forcedDecode(m, c.source, ref.text)
      expect(f.tgtTokens.length).toBe(4)
      const w = await whatIf(m, { modelId: '', text: c.source, steps: 'all', mode: 'silence', head: { layer: 1, head: 0 } })
      expect(w.modified.tgtTokens.length).toBeLessThanOrEqual(4)
    }
  })
})

describe('attention-lens check', () => {
  it('the fixture: every feature works, per-head what-ifs included (exit 0)', async () => {
    const r = await checkFile(FILE)
    expect(r.fatal).toEqual([])
    expect(r.findings).toEqual([])
    expect(exitCode(r)).toBe(0)
    expect(r.passed).toContain('a silenced head (what-if, head_gate)')
    expect(r.passed).toContain('one head overridden (what-if, head_override)')
  })

  it('al.heads that disagrees with the fixed shape of cross_attention: the file does not open, and says why', async () => {
    const r = await checkFile(editedModel(FILE, (m) => setMeta(m, 'al.heads', '3')))
    expect(exitCode(r)).toBe(2)
    expect(r.fatal).toEqual([
      'The model\'s output "cross_attention" is [batch, 2, 2, src_len] (batch, layers, heads, source), but its "al.heads" is 3: declare the layers and heads the graph has.',
      'The model\'s input "head_gate" is [batch, 2, 2] (batch, layers, heads), but its "al.heads" is 3: declare the layers and heads the graph has.',
      'The model\'s input "head_override" is [batch, 2, 2] (batch, layers, heads), but its "al.heads" is 3: declare the layers and heads the graph has.',
    ])
  })

  it('the same with symbolic axes: found when decoding, named', async () => {
    const symbolic = (m: Parameters<Parameters<typeof editedModel>[1]>[0], names: string[]) => {
      for (const v of [...m.graph!.input, ...m.graph!.output].filter((x) => names.includes(x.name))) {
        tensorTypeOf(v).shape!.dim[1] = create(TensorShapeProto_DimensionSchema, { value: { case: 'dimParam', value: 'layers' } })
      }
    }
    // Without head inputs, the app reads cross_attention with the declared grid and finds it wrong.
    const noHeads = await checkFile(
      editedModel(FILE, (m) => {
        setMeta(m, 'al.layers', '3')
        for (const [name, value] of [
          ['head_gate', 1],
          ['head_override', 0],
        ] as const)
          inputToConstant(m, name, new Array(L * H).fill(value), [1, L, H])
        symbolic(m, ['cross_attention'])
      }),
    )
    expect(exitCode(noHeads)).toBe(1)
    expect(noHeads.findings.filter((f) => f.level === 'error')[0]).toEqual({
      level: 'error',
      feature: 'translate',
      message:
        'Translating "a e n" fails: The model\'s cross_attention is [B, 2, 2, 4], but its al.layers and al.heads say [B, 3, 2, S]: declare the layers and heads the graph has.',
    })
    // With them, onnxruntime fails on the inputs fed from the metadata: the finding says what was fed.
    const fed = await checkFile(
      editedModel(FILE, (m) => {
        setMeta(m, 'al.layers', '3')
        symbolic(m, ['cross_attention', 'head_gate', 'head_override'])
      }),
    )
    expect(exitCode(fed)).toBe(1)
    expect(fed.findings.filter((f) => f.level === 'error')[0].message).toMatch(
      /^Translating "a e n" \(fed head_gate and head_override as \[B, 3, 2\] from "al.layers" and "al.heads"\) fails: /,
    )
  })

  it('head_gate is optional: without it the heads show but cannot be silenced (a warning, exit 0)', async () => {
    const ones = new Array(L * H).fill(1)
    const path = editedModel(FILE, (m) => inputToConstant(m, 'head_gate', ones, [1, L, H]))
    const r = await checkFile(path)
    expect(exitCode(r)).toBe(0)
    expect(r.findings).toEqual([
      {
        level: 'warning',
        feature: 'what-if',
        message:
          'The decoder step has no input "head_gate", so what-if cannot silence a head: add head_gate and head_override [B, L, H] (docs/model-format.md, "Transformer models").',
      },
    ])
    const m = await open(path)
    expect((await greedyBatch(m, [cases[0].source]))[0].tgtTokens).toEqual((await greedyBatch(await open(), [cases[0].source]))[0].tgtTokens)
    await expect(whatIf(m, { modelId: '', text: cases[0].source, steps: [0], mode: 'silence', head: { layer: 0, head: 0 } })).rejects.toThrow(
      "This model's decoder step has no head_gate input, so its heads cannot be silenced.",
    )
  })

  it('a head_gate the graph ignores: declared, read by nothing, said so; silencing is refused', async () => {
    const path = editedModel(FILE, (m) => rewire(m, 'head_gate', constant(m, new Array(L * H).fill(1), [1, L, H])))
    const r = await checkFile(path)
    expect(exitCode(r)).toBe(0)
    expect(r.findings.filter((f) => f.feature === 'what-if').map((f) => f.message)).toEqual([
      'The decoder step declares "head_gate" but nothing computes its outputs from it, so silencing or forcing one head would change nothing.',
    ])
    expect(r.passed).not.toContain('a silenced head (what-if, head_gate)')
    // The step part, cut by output name, no longer declares the input: nothing is fed that nothing reads.
    const m = await open(path)
    await expect(whatIf(m, { modelId: '', text: cases[0].source, steps: [0], mode: 'silence' })).rejects.toThrow('has no head_gate input')
  })
})
