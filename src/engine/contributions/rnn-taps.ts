import type { ContextNormLayer, ContextPartRole } from '../../shared/context-norm'
import { nodesFor, producers } from '../onnx-graph'
import type { GraphProto, NodeProto } from '../onnx-proto'
import { ContributionTapError, initializerValues } from './taps'

/**
 * Where the RNN analogue of the source share (src/shared/context-norm.ts) reads a model: found
 * from the graph's structure, not its node names, so a user's RNN exported by the same contract
 * is read too where its graph has the same shape.
 *
 * - The context vector c_t = Σ α_tj h_j is the MatMul of the step's `attention` output (through
 *   reshapes) with its `encoder_states` input.
 * - The layer is a Gemm or MatMul with a constant weight (an initializer, maybe cast from float16
 *   or transposed) whose input is a Concat, along the last axis, of c_t and the other vectors,
 *   on the way to `logits`.
 * - The other parts are named by what they are computed from: the `state` input (the decoder
 *   state), else `prev_token` alone (the previous word's embedding).
 */
export interface RnnTaps {
  /** The weight's name as the layer reads it, and the Concat's inputs in order with what each is (their widths are known once a step has run). */
  layer: { weight: string; parts: Omit<ContextNormLayer['parts'][number], 'width'>[] }
  /** W as [out][in] rows, float32, times Gemm's alpha. */
  weight: Float32Array
  out: number
  in: number
}

/** Ops that change a tensor's shape or type but not its values. */
const PASS_THROUGH = new Set(['Identity', 'Squeeze', 'Unsqueeze', 'Reshape', 'Flatten', 'Cast'])

function intAttr(n: NodeProto, name: string, fallback: number): number {
  const a = n.attribute.find((x) => x.name === name)
  return a ? Number(a.i) : fallback
}

/** The taps of an RNN's output layer, or a ContributionTapError saying what its graph lacks. */
export function rnnTaps(graph: GraphProto): RnnTaps {
  const outputs = new Set(graph.output.map((o) => o.name))
  const inputs = new Set(graph.input.map((i) => i.name))
  if (!outputs.has('attention'))
    throw new ContributionTapError(
      'its decoder step has no "attention" output, so there is no context vector c_t = Σ α_tj h_j to weigh against the decoder state (a model without attention reads one fixed summary of the source)',
    )
  if (!inputs.has('encoder_states')) throw new ContributionTapError('its decoder step has no "encoder_states" input for the context to be read from')
  const producer = producers(graph)
  const consumers = new Map<string, NodeProto[]>()
  for (const n of graph.node) for (const i of n.input) if (i) consumers.set(i, [...(consumers.get(i) ?? []), n])
  /** The value `name` is a reshape or cast of (itself where it is not one). */
  const origin = (name: string): string => {
    for (;;) {
      const i = producer.get(name)
      const n = i === undefined ? undefined : graph.node[i]
      if (!n || !PASS_THROUGH.has(n.opType)) return name
      name = n.input[0]
    }
  }
  /** `name` and every value that is a reshape or cast of it. */
  const aliases = (name: string): Set<string> => {
    const out = new Set([name])
    const stack = [name]
    while (stack.length)
      for (const n of consumers.get(stack.pop()!) ?? [])
        if (PASS_THROUGH.has(n.opType) && !out.has(n.output[0])) {
          stack.push(n.output[0])
          out.add(n.output[0])
        }
    return out
  }
  const contexts = new Set<string>()
  for (const n of graph.node)
    if (n.opType === 'MatMul' && n.input.includes('encoder_states') && n.input.some((i) => i !== 'encoder_states' && origin(i) === 'attention'))
      for (const a of aliases(n.output[0])) contexts.add(a)
  if (contexts.size === 0)
    throw new ContributionTapError('no MatMul of its "attention" output with "encoder_states" computes a context vector in its decoder step')

  const initializers = new Map(graph.initializer.map((t) => [t.name, t]))
  /** A constant weight: the initializer behind casts and 2-D transposes, and whether it is transposed. */
  const constant = (name: string): { name: string; transposed: boolean } | null => {
    let transposed = false
    for (;;) {
      if (initializers.has(name)) return { name, transposed }
      const i = producer.get(name)
      const n = i === undefined ? undefined : graph.node[i]
      if (n?.opType === 'Cast' || n?.opType === 'Identity') name = n.input[0]
      else if (n?.opType === 'Transpose') {
        const perm = n.attribute.find((a) => a.name === 'perm')?.ints.map(Number) ?? [1, 0]
        if (perm.length !== 2 || perm[0] !== 1) return null
        transposed = !transposed
        name = n.input[0]
      } else return null
    }
  }
  const toLogits = nodesFor(graph, ['logits']).nodes
  const nodeIndex = new Map(graph.node.map((n, i) => [n, i]))
  const found: { concat: NodeProto; input: string; weight: string; transposed: boolean; alpha: number }[] = []
  for (const concat of graph.node) {
    if (concat.opType !== 'Concat' || !concat.input.some((i) => contexts.has(i))) continue
    for (const value of aliases(concat.output[0]))
      for (const lin of consumers.get(value) ?? []) {
        if (!toLogits.has(nodeIndex.get(lin)!)) continue
        if (lin.opType === 'Gemm' && lin.input[0] === value && intAttr(lin, 'transA', 0) === 0) {
          const w = constant(lin.input[1])
          const alpha = lin.attribute.find((a) => a.name === 'alpha')?.f ?? 1
          // Gemm's B is [in, out], or [out, in] with transB.
          if (w) found.push({ concat, input: lin.input[1], weight: w.name, transposed: w.transposed !== (intAttr(lin, 'transB', 0) === 1), alpha })
        } else if (lin.opType === 'MatMul' && lin.input[0] === value) {
          const w = constant(lin.input[1])
          if (w) found.push({ concat, input: lin.input[1], weight: w.name, transposed: w.transposed, alpha: 1 })
        }
      }
  }
  if (found.length !== 1)
    throw new ContributionTapError(
      found.length === 0
        ? 'no Concat of its context vector feeds a linear layer (a Gemm or MatMul with a constant weight) on the way to its logits'
        : `${found.length} linear layers read a Concat of its context vector, not one`,
    )
  const { concat, input: weightInput, weight, transposed, alpha } = found[0]
  const axis = intAttr(concat, 'axis', 0)
  if (axis !== 1 && axis !== -1) throw new ContributionTapError(`the Concat before its output layer joins along axis ${axis}, not the vectors' last axis`)
  const t = initializers.get(weight)!
  if (t.dims.length !== 2) throw new ContributionTapError(`its output layer's weight ${weight} is not a matrix`)
  const raw = initializerValues(t)
  // Stored [rows][cols]; transposed: the layer's W [out][in] is the stored matrix, else its transpose.
  const [rows, cols] = t.dims.map(Number)
  const [out, inDim] = transposed ? [rows, cols] : [cols, rows]
  const w = new Float32Array(out * inDim)
  for (let o = 0; o < out; o++) for (let k = 0; k < inDim; k++) w[o * inDim + k] = alpha * (transposed ? raw[o * cols + k] : raw[k * cols + o])
  const stateAncestors = (name: string) => nodesFor(graph, [name]).names
  const role = (name: string): ContextPartRole => {
    if (contexts.has(name)) return 'context'
    const reads = stateAncestors(name)
    if (reads.has('state')) return 'state'
    return reads.has('prev_token') ? 'embedding' : 'other'
  }
  return {
    layer: { weight: weightInput, parts: concat.input.map((name) => ({ role: role(name), name })) },
    weight: w,
    out,
    in: inDim,
  }
}
