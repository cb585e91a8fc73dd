import { create } from '@bufbuild/protobuf'
import { AttributeProto_AttributeType, AttributeProtoSchema, NodeProtoSchema, TensorProto_DataType, type GraphProto, type NodeProto } from '../../onnx-proto'
import { valueInfo } from '../../graph-surgery'
import type { GraphEdit } from '../../onnx-graph'

/**
 * Reading a Hugging Face decoder's cross-attention out of its graph. Optimum writes no attention
 * outputs, but the probabilities exist: each decoder layer's cross-attention ends in a Softmax
 * over scores Q·Kᵀ whose keys come from the encoder (`encoder_hidden_states`, or the encoder half
 * of the past). Those Softmax outputs are added as graph outputs when the model is opened; the
 * file on disk is never changed.
 */

/** The name a tapped layer's probabilities [B, H, T, S] get. */
export const tapName = (layer: number) => `al_cross.${layer}`

/** Optimizer-fused attention: the probabilities never exist as a tensor. */
const FUSED = new Set([
  'Attention',
  'MultiHeadAttention',
  'DecoderAttention',
  'DecoderMaskedMultiHeadAttention',
  'DecoderMaskedSelfAttention',
  'GroupQueryAttention',
  'PackedMultiHeadAttention',
  'PackedAttention',
  'SparseAttention',
])

/** Ops that carry the scores to the Softmax (the scale, the mask, a bias, a reshape). */
const SCORE_PATH = new Set(['Add', 'Sub', 'Mul', 'Div', 'Where', 'Cast', 'Reshape', 'Transpose', 'Squeeze', 'Unsqueeze', 'Identity', 'Expand'])

export const isEncoderSource = (name: string) => name === 'encoder_hidden_states' || /^past_key_values\.\d+\.encoder\.(key|value)$/.test(name)

export class TapError extends Error {}

/** The fused attention op in a graph (or its subgraphs), if any: "com.microsoft MultiHeadAttention". */
export function fusedAttention(graph: GraphProto): string | null {
  for (const n of graph.node) {
    if (FUSED.has(n.opType) && n.domain !== '' && n.domain !== 'ai.onnx') return `${n.domain} ${n.opType}`
    for (const a of n.attribute)
      for (const g of [a.g, ...a.graphs])
        if (g) {
          const inner = fusedAttention(g)
          if (inner) return inner
        }
  }
  return null
}

/**
 * The cross-attention Softmax outputs of one graph, lowest layer first. `outer` names values
 * that come from outside (a branch of an If reads the main graph's inputs and weights), `outer`
 * the graph around a branch.
 */
export function crossSoftmaxes(graph: GraphProto, outerConstants: ReadonlySet<string> = new Set(), outer: GraphProto | null = null): string[] {
  const producer = new Map<string, NodeProto>()
  // A branch reads values the main graph computes: an fp16 graph's inputs cast to float16 there
  // (encoder_hidden_states → Cast → the branch), so the outer nodes are followed too.
  for (const n of outer?.node ?? []) if (!n.attribute.some((a) => a.g || a.graphs.length)) for (const o of n.output) if (o) producer.set(o, n)
  for (const n of graph.node) for (const o of n.output) if (o) producer.set(o, n)
  const initializers = new Set([...graph.initializer.map((t) => t.name), ...outerConstants])
  const constMemo = new Map<string, boolean>()
  const constant = (name: string): boolean => {
    if (initializers.has(name)) return true
    let v = constMemo.get(name)
    if (v !== undefined) return v
    constMemo.set(name, false)
    const p = producer.get(name)
    v = !!p && (p.opType === 'Constant' || (p.input.length > 0 && p.input.every((i) => !i || constant(i))))
    constMemo.set(name, v)
    return v
  }
  // Two tensors that both change with the input: Q·Kᵀ or P·V, not a layer's weights.
  const attentionMatMul = (n: NodeProto) => n.opType === 'MatMul' && n.input.length === 2 && !constant(n.input[0]) && !constant(n.input[1])
  const reachMemo = new Map<string, boolean>()
  /** Whether `name` is computed from the encoder without passing another attention. */
  const fromEncoder = (name: string): boolean => {
    if (isEncoderSource(name)) return true
    let v = reachMemo.get(name)
    if (v !== undefined) return v
    reachMemo.set(name, false)
    const p = producer.get(name)
    v = !!p && p.opType !== 'Softmax' && !attentionMatMul(p) && p.input.some((i) => !!i && !constant(i) && fromEncoder(i))
    reachMemo.set(name, v)
    return v
  }
  /** The Q·Kᵀ MatMul behind a Softmax's input, through the scale, mask and bias. */
  const scoresOf = (name: string, depth: number): NodeProto | null => {
    const p = producer.get(name)
    if (!p || depth > 10) return null
    if (attentionMatMul(p)) return p
    if (!SCORE_PATH.has(p.opType)) return null
    for (const i of p.input) {
      if (!i || constant(i)) continue
      const m = scoresOf(i, depth + 1)
      if (m) return m
    }
    return null
  }
  const found: string[] = []
  for (const n of graph.node) {
    if (n.opType !== 'Softmax' || !n.input[0]) continue
    const qk = scoresOf(n.input[0], 0)
    if (qk && qk.input.some((i) => fromEncoder(i))) found.push(n.output[0])
  }
  return found
}

/**
 * A tap: the Softmax output cast to float32 as it leaves the graph. In an fp16 graph (a `_fp16`
 * variant) the probabilities are float16, and an output declared float32 would not type-check;
 * the engine always gets float32 attention. On a float32 graph the Cast is a no-op (onnxruntime
 * removes it), so every variant is tapped the same way.
 */
export function floatTap(from: string, to: string): NodeProto {
  return create(NodeProtoSchema, {
    opType: 'Cast',
    input: [from],
    output: [to],
    name: `al_tap_${to}`,
    attribute: [create(AttributeProtoSchema, { name: 'to', type: AttributeProto_AttributeType.INT, i: BigInt(TensorProto_DataType.FLOAT) })],
  })
}

/**
 * What opening adds to a decoder graph so every layer's cross-attention becomes an output
 * `al_cross.{l}`: Cast-to-float32 nodes from the Softmax nodes, in the main graph or inside both branches
 * of a merged decoder's If (which is then replaced). Returns the edit (applied to the file's bytes
 * by editedModelBytes) and where the Softmax nodes are (for `check`), or throws TapError saying
 * what was found.
 */
export function crossAttentionTaps(graph: GraphProto, layers: number): { edit: GraphEdit; where: string } {
  const fused = fusedAttention(graph)
  if (fused) throw new TapError(`its attention is fused into ${fused} nodes by an optimiser, so no attention probabilities exist to read`)
  const taps = Array.from({ length: layers }, (_, l) => tapName(l))
  const outs = taps.map((t) => valueInfo(t, TensorProto_DataType.FLOAT, null))
  const direct = crossSoftmaxes(graph)
  if (direct.length === layers) {
    return {
      edit: { addNodes: direct.map((s, l) => floatTap(s, taps[l])), addOutputs: outs, replaceNodes: new Map() },
      where: `${layers} Softmax nodes (${direct[0]} …)`,
    }
  }
  const at = graph.node.findIndex((n) => n.opType === 'If' && n.attribute.some((a) => a.name === 'then_branch'))
  if (direct.length === 0 && at >= 0) {
    const ifNode = graph.node[at]
    const outer = new Set(graph.initializer.map((t) => t.name))
    const branches = ifNode.attribute.map((a) => {
      if (!a.g || (a.name !== 'then_branch' && a.name !== 'else_branch')) return a
      const found = crossSoftmaxes(a.g, outer, graph)
      if (found.length !== layers)
        throw new TapError(`its merged decoder's ${a.name} has ${found.length} cross-attention Softmax nodes, not one per decoder layer (${layers})`)
      const names = taps.map((t) => `${a.name}/${t}`)
      const g: GraphProto = {
        ...a.g,
        node: [...a.g.node, ...found.map((s, l) => floatTap(s, names[l]))],
        output: [...a.g.output, ...names.map((n) => valueInfo(n, TensorProto_DataType.FLOAT, null))],
      }
      return { ...a, g }
    })
    const tapped: NodeProto = { ...ifNode, attribute: branches, output: [...ifNode.output, ...taps] }
    return {
      edit: { addNodes: [], addOutputs: outs, replaceNodes: new Map([[at, tapped]]) },
      where: `${layers} Softmax nodes in each branch of the merged decoder's If`,
    }
  }
  throw new TapError(
    `${direct.length} of its Softmax nodes read keys computed from the encoder, not one per decoder layer (${layers}), so its cross-attention cannot be told apart`,
  )
}
