import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RnnContextModel, type RnnPass } from '../../../../src/engine/contributions/rnn'
import { rnnTaps } from '../../../../src/engine/contributions/rnn-taps'
import { ContributionTapError } from '../../../../src/engine/contributions/taps'
import { parseOnnx } from '../../../../src/engine/onnx-graph'
import type { GraphProto } from '../../../../src/engine/onnx-proto'
import type { ContextNorm } from '../../../../src/shared/context-norm'
import { ROOT } from '../../../helpers'

/**
 * The RNN analogue of the source share (src/shared/context-norm.ts) against
 * training/contributions_reference_rnn.py: the training code's Seq2Seq rebuilt from each file's
 * initializers, a forward hook on the layer that reads the context vector, the parts split by the
 * training code's widths. The app finds the layer in the ONNX graph instead.
 */
interface Case {
  source: string
  src_ids: number[]
  tgt_ids: number[]
  tgt_tokens: string[]
  parts: string[]
  norms: number[][]
  source_share: number[]
  no_state_share: number[]
  weights: number[][]
}
const FIXTURE = JSON.parse(gunzipSync(readFileSync(join(ROOT, 'test/fixtures/contributions/rnn-context-norm.json.gz'))).toString('utf8')) as {
  models: Record<string, { kind: string; cases: Case[] }>
}
const TOL = 1e-4

function maxDiff(a: readonly number[] | readonly number[][], b: readonly number[] | readonly number[][]): number {
  if (a.length !== b.length) return Infinity
  return a.reduce((m: number, x, i) => {
    const y = b[i]
    return Math.max(m, typeof x === 'number' && typeof y === 'number' ? Math.abs(x - y) : maxDiff(x as number[], y as number[]))
  }, 0)
}

describe.each(['en-fr-bahdanau', 'en-fr-luong-general', 'en-fr-local-p'])('the context-norm share on %s against the PyTorch reference', (name) => {
  const { cases } = FIXTURE.models[name]
  let model: RnnContextModel
  const ran: { c: Case; pass: RnnPass; got: ContextNorm }[] = []

  beforeAll(async () => {
    model = await RnnContextModel.open(join(ROOT, `resources/models/${name}.onnx`))
    for (const c of cases) {
      const pass = await model.run(c.src_ids, [...c.tgt_ids, model.spec.special.eos])
      ran.push({ c, pass, got: model.contextNorm(pass) })
    }
  }, 60_000)
  afterAll(async () => {
    await model?.release()
  })

  it('tokenizes as the reference and decodes greedily to its output', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(5)
    for (const c of cases.slice(0, 2)) {
      expect(model.encodeSource(c.source).ids).toEqual(c.src_ids)
      expect((await model.run(c.src_ids, null)).tgtIds).toEqual([...c.tgt_ids, model.spec.special.eos])
    }
  })

  it("finds the layer's parts in the graph in the training code's order", () => {
    expect(model.taps.layer.parts.map((p) => p.role)).toEqual(cases[0].parts)
  })

  it("each part's norm, the share and the attention weights equal the reference within 1e-4; the share lies in [0, 1]", () => {
    for (const { c, got } of ran) {
      expect(got.tgtTokens).toEqual(c.tgt_tokens)
      expect(maxDiff(got.norms, c.norms)).toBeLessThan(TOL)
      expect(maxDiff(got.sourceShare, c.source_share)).toBeLessThan(TOL)
      expect(maxDiff(got.weights, c.weights)).toBeLessThan(TOL)
      for (const s of got.sourceShare) expect(s >= 0 && s <= 1).toBe(true)
    }
  })

  it("leaving the state's part out gives the reference's no-state variant, which the full share is not", () => {
    for (const { c, pass } of ran) {
      const without = model.contextNorm(pass, 'state')
      expect(maxDiff(without.sourceShare, c.no_state_share)).toBeLessThan(TOL)
      expect(maxDiff(without.sourceShare, c.source_share)).toBeGreaterThan(0.05)
    }
  })
})

describe('the layer is found by the graph, not by its names', () => {
  it('on en-fr-luong-general with every node, value and weight renamed, the same parts and weights', () => {
    const graph = parseOnnx(readFileSync(join(ROOT, 'resources/models/en-fr-luong-general.onnx'))).model.graph as GraphProto
    const before = rnnTaps(graph)
    const contract = new Set([...graph.input.map((v) => v.name), ...graph.output.map((v) => v.name)])
    const names = new Map<string, string>()
    const rename = (n: string) => (!n || contract.has(n) ? n : (names.get(n) ?? names.set(n, `v${names.size}`).get(n)!))
    for (const t of graph.initializer) t.name = rename(t.name)
    graph.node.forEach((n, i) => {
      n.name = `n${i}`
      n.input = n.input.map(rename)
      n.output = n.output.map(rename)
    })
    const after = rnnTaps(graph)
    expect(after.layer.parts.map((p) => p.role)).toEqual(['context', 'state'])
    expect(after.layer.parts.map((p) => p.name)).toEqual(before.layer.parts.map((p) => rename(p.name)))
    expect(after.layer.weight).not.toBe(before.layer.weight)
    expect(after.weight).toEqual(before.weight)
  })
})

describe('a model whose graph has no context vector', () => {
  it('en-fr-none is refused, saying there is no attention output', async () => {
    const e = await RnnContextModel.open(join(ROOT, 'resources/models/en-fr-none.onnx')).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ContributionTapError)
    expect((e as Error).message).toMatch(/no "attention" output/)
  })
})
