/**
 * The per-step floor of `npm run bench`: one bare `session.run` of nothing but the decoder step's
 * matrix products (MatMul, Gemm and GRU nodes, on their own weights, the keys already computed once per
 * sentence), on the operands a real step had. What a decoder step cannot do without on this
 * machine with onnxruntime; the engine's time is reported as a multiple of it.
 */
import type { PartSession } from '../src/engine/formats/types'
import { readFileSync } from 'node:fs'
import * as ort from '../src/engine/onnxruntime'
import { ENCODER_OUTPUTS } from '../src/engine/contract'
import { splitStep, tensor, valueInfo } from '../src/engine/graph-surgery'
import type { LoadedModel } from '../src/engine/model'
import { extractGraph, parseOnnx, serializeWith } from '../src/engine/onnx-graph'
import { create, GraphProtoSchema, NodeProtoSchema, TensorProto_DataType, type GraphProto } from '../src/engine/onnx-proto'
import { encode, sourceBatch } from '../src/engine/steps'

// A decoder cell exported as one GRU node (training/attention_lens/export.py) counts whole: its two matrix
// products cannot be fed apart, and its gates are a few hundred element-wise operations beside them.
const PRODUCTS = new Set(['MatMul', 'Gemm', 'GRU'])

export interface Floor {
  /** One step's matrix products. */
  step: ort.InferenceSession
  /** Runs them once. */
  runStep(): Promise<void>
  /** The model's encoder part as the engine runs it (keys included). */
  encoder: PartSession
  encoderFeeds: (ids: number[]) => Record<string, ort.Tensor>
  release(): Promise<void>
}

export async function stepFloor(model: LoadedModel): Promise<Floor> {
  const file = parseOnnx(new Uint8Array(readFileSync(model.path)))
  const graph = file.model.graph as GraphProto
  const { spec } = model
  const keys = splitStep(graph, spec.stepOutputs, ENCODER_OUTPUTS).keys.filter((k) => model.keys.includes(k))
  const step = extractGraph(graph, spec.stepOutputs, new Map(keys.map((k) => [k, valueInfo(k, TensorProto_DataType.FLOAT, null)])))
  const initializers = new Set(step.initializer.map((t) => t.name))
  const products = step.node.filter((n) => PRODUCTS.has(n.opType))
  const operands = [...new Set(products.flatMap((n) => n.input).filter((i) => i && !initializers.has(i)))]

  // A real first step of a 20-token sentence, with the operands as extra outputs.
  const ops = create(GraphProtoSchema, { ...step, output: [...step.output, ...operands.map((o) => valueInfo(o, TensorProto_DataType.FLOAT, null))] })
  const probe = await ort.InferenceSession.create(serializeWith(file, ops))
  const ids = Array.from({ length: 20 }, (_, i) => 4 + (i % 50)).concat(spec.special.eos)
  const enc = await encode(model, [ids])
  const B = 1
  const all: Record<string, ort.Tensor> = {
    ...enc.keys,
    prev_token: new ort.Tensor('int64', BigInt64Array.of(BigInt(spec.special.bos)), [B]),
    state: enc.init,
    encoder_states: enc.memory,
    src_mask: enc.mask,
    step: new ort.Tensor('float32', new Float32Array(B), [B]),
    attn_override: new ort.Tensor('float32', new Float32Array(B * enc.memLen), [B, enc.memLen]),
    override_on: new ort.Tensor('float32', new Float32Array(B), [B]),
  }
  // A transformer's per-head inputs, at their defaults: every gate 1, no head overridden.
  if (spec.heads) {
    const n = B * spec.heads.layers * spec.heads.heads
    const dims = [B, spec.heads.layers, spec.heads.heads]
    all.head_gate = new ort.Tensor('float32', new Float32Array(n).fill(1), dims)
    all.head_override = new ort.Tensor('float32', new Float32Array(n), dims)
  }
  const got = await probe.run(Object.fromEntries(probe.inputNames.map((n) => [n, all[n]])))
  await probe.release()

  // Every product reads its operands as constants (renamed, as one product's output can be
  // another's input), so a run binds no inputs, and fetches one output (onnxruntime still runs
  // every node); the session does no graph optimisation, or it would fold the constant products
  // away. Weights are prepacked as in the engine's sessions. (Fed as inputs and all fetched, the
  // Transformer's 40-odd operands and outputs cost more than its products: a "floor" above the engine.)
  const fed = (o: string) => `fed:${o}`
  const last = products.at(-1)!.output.find((o) => o)!
  const bare = create(GraphProtoSchema, {
    name: 'step-products',
    node: products.map((n) => create(NodeProtoSchema, { ...n, input: n.input.map((i) => (initializers.has(i) || !i ? i : fed(i))) })),
    initializer: [
      ...step.initializer.filter((t) => products.some((n) => n.input.includes(t.name))),
      ...operands.map((o) => tensor(fed(o), TensorProto_DataType.FLOAT, got[o].dims.map(Number), got[o].data as Float32Array)),
    ],
    input: [],
    output: products.map((n) =>
      valueInfo(
        n.output.find((o) => o)!,
        TensorProto_DataType.FLOAT,
        null,
      ),
    ),
  })
  const options: ort.InferenceSession.SessionOptions = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  }
  const session = await ort.InferenceSession.create(serializeWith(file, bare), options)
  return {
    step: session,
    runStep: async () => void (await session.run({}, [last])),
    encoder: model.encoder,
    encoderFeeds: (src: number[]) => {
      const { ids: t, mask } = sourceBatch(model, [src])
      const feeds: Record<string, ort.Tensor> = { src_ids: t }
      if (model.encoder.inputNames.includes('src_mask')) feeds.src_mask = mask
      return feeds
    },
    release: () => session.release(),
  }
}
