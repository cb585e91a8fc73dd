import { tensor } from '../graph-surgery'
import {
  AttributeProto_AttributeType,
  AttributeProtoSchema,
  create,
  NodeProtoSchema,
  TensorProto_DataType,
  type GraphProto,
  type NodeProto,
  type TensorProto,
} from '../onnx-proto'
import type { BlockWeights } from './math'

/**
 * Where the contribution methods read a bundled Transformer (training/attention_lens/
 * export_transformer.py, pre-norm): every LayerNormalization's input is the residual stream
 * before a sub-layer, and each layer's attention weights are the Softmax between its first and
 * second norm. The names found here are added as outputs of the parts the app runs (the file on
 * disk is not changed); the weights W_V, b_V, W_O and the norms' γ are read from the initializers.
 */

export class ContributionTapError extends Error {}

export interface EncoderTaps {
  /** ln1's input: the block's input x [B, S, d]. */
  x: string
  /** ln2's input: the attention block's output y. */
  y: string
  /** The self-attention weights [B, H, S, S]. */
  weights: string
  /** Added: each position's per-head W_O^h v^h of its value projection v = W_V LN(x) + b_V, [S, H, 1, d]. */
  values: string
}

export interface DecoderTaps {
  /** ln1's, ln2's and ln3's inputs at this step [B, d]: self-attention's input, its output (= cross-attention's input), cross-attention's output. */
  x1: string
  x2: string
  x3: string
  /** The self-attention weights over positions 0 … t, [B, H, t + 1]. */
  selfWeights: string
  /** Added: this position's per-head W_O^h v^h in the self-attention [1, H, 1, d]. */
  selfValues: string
  /** Added: each source position's per-head W_O^h v^h in the cross-attention [S, H, 1, d] (computed once a sentence). */
  crossValues: string
}

export interface TransformerTaps {
  encoder: EncoderTaps[]
  /** The encoder's last residual stream (the final norm's input) [B, S, d]. */
  encoderFinal: string
  decoder: DecoderTaps[]
  d: number
  heads: number
  /** Per encoder layer its self-attention's weights; per decoder layer its self- and cross-attention's. */
  encoderBlocks: BlockWeights[]
  selfBlocks: BlockWeights[]
  crossBlocks: BlockWeights[]
  /** The nodes and initializers that compute the added `values` tensors, to append to the graph. */
  nodes: NodeProto[]
  initializers: TensorProto[]
}

const LN = /^model\.(enc|dec)\.(\d+)\.ln([123])\.weight$/

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1
  const e = (h >> 10) & 0x1f
  const m = h & 0x3ff
  if (e === 0) return s * m * 2 ** -24
  if (e === 31) return m ? NaN : s * Infinity
  return s * (1 + m / 1024) * 2 ** (e - 15)
}

/** An initializer's values as float32 (float32 or float16, raw or typed). */
export function initializerValues(t: TensorProto): Float32Array {
  const n = t.dims.reduce((a, d) => a * Number(d), 1)
  const raw = t.rawData
  if (t.dataType === TensorProto_DataType.FLOAT) {
    if (raw && raw.length > 0) return new Float32Array(Uint8Array.from(raw).buffer, 0, n)
    return Float32Array.from(t.floatData)
  }
  if (t.dataType === TensorProto_DataType.FLOAT16) {
    const out = new Float32Array(n)
    if (raw && raw.length > 0) {
      const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
      for (let i = 0; i < n; i++) out[i] = halfToFloat(dv.getUint16(2 * i, true))
    } else for (let i = 0; i < n; i++) out[i] = halfToFloat(t.int32Data[i] & 0xffff)
    return out
  }
  throw new ContributionTapError(`initializer ${t.name} has data type ${t.dataType}, not float32 or float16`)
}

/** The weights by their PyTorch names: `name` itself, or `name.float16` read through a Cast. */
function weightReader(graph: GraphProto): (name: string) => Float32Array {
  const byName = new Map(graph.initializer.map((t) => [t.name, t]))
  return (name) => {
    const t = byName.get(name) ?? byName.get(`${name}.float16`)
    if (!t) throw new ContributionTapError(`its graph has no weight ${name}`)
    return initializerValues(t)
  }
}

function epsilonOf(n: NodeProto): number {
  const a = n.attribute.find((x) => x.name === 'epsilon')
  return a ? a.f : 1e-5
}

/** The taps and weights of a bundled Transformer's graph, or a ContributionTapError saying what is missing. */
export function transformerTaps(graph: GraphProto, heads: number): TransformerTaps {
  const lnAt = new Map<string, number>()
  graph.node.forEach((n, i) => {
    if (n.opType === 'LayerNormalization' && n.input[1]) {
      const m = LN.exec(n.input[1])
      if (m) lnAt.set(`${m[1]}.${m[2]}.ln${m[3]}`, i)
      else if (n.input[1] === 'model.enc_norm.weight') lnAt.set('enc_norm', i)
    }
  })
  const node = (key: string) => {
    const i = lnAt.get(key)
    if (i === undefined)
      throw new ContributionTapError(`its graph has no LayerNormalization for ${key} (a bundled pre-norm Transformer has one before each sub-layer)`)
    return i
  }
  const consumers = new Map<string, NodeProto[]>()
  for (const n of graph.node) for (const i of n.input) if (i) consumers.set(i, [...(consumers.get(i) ?? []), n])
  const softmaxBetween = (from: number, to: number, what: string) => {
    const found = graph.node.slice(from + 1, to).filter((n) => n.opType === 'Softmax')
    if (found.length !== 1) throw new ContributionTapError(`${found.length} Softmax nodes in ${what}, not one`)
    return found[0].output[0]
  }
  const encLayers = [...lnAt.keys()].filter((k) => /^enc\.\d+\.ln1$/.test(k)).length
  const decLayers = [...lnAt.keys()].filter((k) => /^dec\.\d+\.ln1$/.test(k)).length
  if (encLayers === 0 || decLayers === 0)
    throw new ContributionTapError('its graph is not a bundled pre-norm Transformer (no model.enc.N.ln1 / model.dec.N.ln1 norms)')
  const read = weightReader(graph)
  const encoderFinal = graph.node[node('enc_norm')]
  const block = (prefix: string, gammaName: string, eps: number): BlockWeights => {
    const wv = read(`${prefix}.v.weight`)
    const d = Math.round(Math.sqrt(wv.length))
    if (d * d !== wv.length || d % heads !== 0) throw new ContributionTapError(`${prefix}.v.weight is not d × d with d a multiple of ${heads} heads`)
    const betaName = gammaName.replace(/\.weight$/, '.bias')
    return { d, heads, wv, bv: read(`${prefix}.v.bias`), wo: read(`${prefix}.o.weight`), gamma: read(gammaName), beta: read(betaName), eps }
  }
  // The value projection v = W_V LN(z) + b_V is the node that adds b_V; W_O as float32 is the
  // value named like the PyTorch weight (the initializer itself, or the Cast from float16).
  const producerOf = new Set(graph.node.flatMap((n) => n.output))
  const initNames = new Set(graph.initializer.map((t) => t.name))
  const valueOf = (prefix: string) => {
    const found = graph.node.filter((n) => n.input.includes(`${prefix}.v.bias`))
    if (found.length !== 1) throw new ContributionTapError(`${found.length} nodes add ${prefix}.v.bias, not one`)
    return found[0].output[0]
  }
  const woOf = (prefix: string) => {
    const name = `${prefix}.o.weight`
    if (!producerOf.has(name) && !initNames.has(name)) throw new ContributionTapError(`its graph has no float32 value ${name}`)
    return name
  }
  const nodes: NodeProto[] = []
  const SHAPE_V = 'contrib/shape_v'
  const SHAPE_W = 'contrib/shape_wo'
  const added = (opType: string, input: string[], output: string, perm?: number[]) =>
    create(NodeProtoSchema, {
      opType,
      input,
      output: [output],
      name: output,
      attribute: perm ? [create(AttributeProtoSchema, { name: 'perm', type: AttributeProto_AttributeType.INTS, ints: perm.map(BigInt) })] : [],
    })
  /** v [.., N, d] -> [N, H, 1, dh] times W_O^T as [H, dh, d] -> [N, H, 1, d]: each head's W_O^h v^h. */
  const perHead = (prefix: string, tag: string) => {
    const out = `contrib/${tag}/values`
    nodes.push(
      added('Transpose', [woOf(prefix)], `contrib/${tag}/wo_t`, [1, 0]),
      added('Reshape', [`contrib/${tag}/wo_t`, SHAPE_W], `contrib/${tag}/wo_heads`),
      added('Reshape', [valueOf(prefix), SHAPE_V], `contrib/${tag}/v_heads`),
      added('MatMul', [`contrib/${tag}/v_heads`, `contrib/${tag}/wo_heads`], out),
    )
    return out
  }
  const encoder: EncoderTaps[] = []
  const encoderBlocks: BlockWeights[] = []
  for (let l = 0; l < encLayers; l++) {
    const a = node(`enc.${l}.ln1`)
    const b = node(`enc.${l}.ln2`)
    encoder.push({
      x: graph.node[a].input[0],
      y: graph.node[b].input[0],
      weights: softmaxBetween(a, b, `encoder layer ${l}'s self-attention`),
      values: perHead(`model.enc.${l}.attn`, `enc.${l}`),
    })
    encoderBlocks.push(block(`model.enc.${l}.attn`, `model.enc.${l}.ln1.weight`, epsilonOf(graph.node[a])))
  }
  const decoder: DecoderTaps[] = []
  const selfBlocks: BlockWeights[] = []
  const crossBlocks: BlockWeights[] = []
  for (let l = 0; l < decLayers; l++) {
    const [a, b, c] = [1, 2, 3].map((k) => node(`dec.${l}.ln${k}`))
    const soft = softmaxBetween(a, b, `decoder layer ${l}'s self-attention`)
    // The step's self-attention softmax runs over positions (axis 1) and is transposed to [B, H, t + 1].
    const next = consumers.get(soft) ?? []
    const transposed = next.length === 1 && next[0].opType === 'Transpose' ? next[0].output[0] : null
    if (!transposed)
      throw new ContributionTapError(
        `decoder layer ${l}'s self-attention weights are not transposed to [batch, heads, positions] as the bundled exporter writes them`,
      )
    decoder.push({
      x1: graph.node[a].input[0],
      x2: graph.node[b].input[0],
      x3: graph.node[c].input[0],
      selfWeights: transposed,
      selfValues: perHead(`model.dec.${l}.self_attn`, `dec.${l}.self`),
      crossValues: perHead(`model.dec.${l}.cross`, `dec.${l}.cross`),
    })
    selfBlocks.push(block(`model.dec.${l}.self_attn`, `model.dec.${l}.ln1.weight`, epsilonOf(graph.node[a])))
    crossBlocks.push(block(`model.dec.${l}.cross`, 'model.enc_norm.weight', epsilonOf(encoderFinal)))
  }
  const d = encoderBlocks[0].d
  const initializers = [
    tensor(SHAPE_V, TensorProto_DataType.INT64, [4], [-1, heads, 1, d / heads]),
    tensor(SHAPE_W, TensorProto_DataType.INT64, [3], [heads, d / heads, d]),
  ]
  return { encoder, encoderFinal: encoderFinal.input[0], decoder, d, heads, encoderBlocks, selfBlocks, crossBlocks, nodes, initializers }
}
