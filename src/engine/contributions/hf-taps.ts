import { producers } from '../onnx-graph'
import { create, NodeProtoSchema, TensorProto_DataType, type GraphProto, type NodeProto, type TensorProto } from '../onnx-proto'
import { crossSoftmaxes } from '../formats/hf/taps'
import type { BlockWeights } from './math'
import { ContributionTapError, initializerValues } from './taps'

/**
 * Where the contribution methods read a Hugging Face encoder or decoder graph (Optimum's and
 * transformers.js's exports of Marian, BART, T5, M2M100/NLLB). Nothing is named after the
 * PyTorch modules there (the TorchScript exporter calls the weights onnx::MatMul_N, a merged
 * decoder w0, w1 …), so each attention block is found from its Softmax by the shape every one of
 * these models shares:
 *
 *   source ─MatMul W_V─(+ b_V)─ V ─┐
 *   Softmax ───────────────────── MatMul ─ reshape ─MatMul W_O─(+ b_O)─ Add(x) = z ─┬─ LayerNormalization = y   (post-norm: Marian, BART)
 *                                                                               └─ z is the output           (pre-norm: T5, M2M100)
 *
 * A block is post-norm where z goes only into a LayerNormalization (no later residual Add reads
 * it). The weights are read from the graph's constants, whatever their names.
 */

export interface PostNorm {
  /** The LayerNormalization's output: the block's output. */
  y: string
  gamma: Float32Array
  eps: number
}

export interface HfBlock {
  /** The attention probabilities [B, H, Nq, Nk] (the Softmax output). */
  weights: string
  /** What the values are projected from, [B, Nk, d]: the block's input (post-norm), its norm's output (pre-norm) or encoder_hidden_states. */
  source: string
  /** The residual: the block's input [B, Nq, d]. */
  x: string
  /** x plus the attention's output, [B, Nq, d]: the pre-norm block's output, the post-norm block's norm input. */
  z: string
  post: PostNorm | null
  /** W_V, b_V, W_O as [out][in]; β is what the source's own norm adds (pre-norm), to take out of each value: zeros for RMSNorm and post-norm. */
  w: BlockWeights
  /** b_O: with Σ_j a_ij = 1 and b_V, the part of z no token contributes. */
  bo: Float32Array
}

export interface HfDecoderLayer {
  self: HfBlock
  cross: HfBlock
}

/** Ops between the probabilities and P·V, and between P·V and W_O (masking NaN rows, casts, head reshapes, q8's quantisation of W_O's input). */
const PASS = new Set(['Cast', 'Where', 'Identity', 'Transpose', 'Reshape', 'Squeeze', 'Unsqueeze', 'DynamicQuantizeLinear'])

/** An initializer with its bytes: those kept outside the graph read (hf-weights.ts), the others as they are. */
export type WeightBytes = (t: TensorProto) => TensorProto

interface Constant {
  values: Float32Array
  dims: number[]
}

/** x · W: where x comes from, the float result's name, the weight [in, out] (null where it is not a constant). */
interface Projection {
  input: string
  out: string
  weight: Constant | null
}

/** A weight's values as float32: float32 or float16 (initializerValues), or q8's int8 / uint8 weights and zero points. */
function tensorValues(t: TensorProto): Float32Array {
  const n = t.dims.reduce((a, d) => a * Number(d), 1)
  const signed = t.dataType === TensorProto_DataType.INT8
  if (!signed && t.dataType !== TensorProto_DataType.UINT8) return initializerValues(t)
  if (t.rawData.length === 0) return Float32Array.from(t.int32Data.slice(0, n))
  const raw = t.rawData.subarray(0, n)
  return Float32Array.from(signed ? new Int8Array(raw.buffer, raw.byteOffset, n) : raw)
}

class GraphReader {
  readonly producer: Map<string, number>
  readonly consumers = new Map<string, NodeProto[]>()
  private readonly inits: Map<string, TensorProto>

  constructor(
    readonly graph: GraphProto,
    private readonly resolve: WeightBytes,
  ) {
    this.producer = producers(graph)
    for (const n of graph.node) for (const i of n.input) if (i) this.consumers.set(i, [...(this.consumers.get(i) ?? []), n])
    this.inits = new Map(graph.initializer.map((t) => [t.name, t]))
  }

  producerOf(name: string): NodeProto | undefined {
    const i = this.producer.get(name)
    return i === undefined ? undefined : this.graph.node[i]
  }

  /** A weight: an initializer, a Constant node's value, or either through Identity / Cast (fp16 weights are cast to float32 or used as they are). */
  constant(name: string): Constant | null {
    const t = this.inits.get(name)
    if (t) return { values: tensorValues(this.resolve(t)), dims: t.dims.map(Number) }
    const p = this.producerOf(name)
    if (!p) return null
    if (p.opType === 'Constant') {
      const v = p.attribute.find((a) => a.name === 'value')?.t
      return v ? { values: tensorValues(this.resolve(v)), dims: v.dims.map(Number) } : null
    }
    return p.opType === 'Identity' || p.opType === 'Cast' ? this.constant(p.input[0]) : null
  }

  /** The one consumer of `name` that is not a pass-through op, following pass-throughs (breadth first, a few steps). */
  forwardTo(name: string, op: string | string[], what: string): NodeProto {
    const ops = new Set(typeof op === 'string' ? [op] : op)
    let frontier = [name]
    for (let depth = 0; depth < 6 && frontier.length; depth++) {
      const next: string[] = []
      for (const f of frontier)
        for (const c of this.consumers.get(f) ?? []) {
          if (ops.has(c.opType)) return c
          if (PASS.has(c.opType)) next.push(c.output[0])
        }
      frontier = next
    }
    throw new ContributionTapError(`no ${[...ops].join(' or ')} after ${what}`)
  }

  /** Back from `name` through pass-through ops to the first node that is not one. */
  backFrom(name: string): NodeProto | undefined {
    let p = this.producerOf(name)
    // a Concat of one tensor: the KV cache's, with no past
    const passes = (n: NodeProto) => PASS.has(n.opType) || (n.opType === 'Concat' && n.input.filter(Boolean).length === 1)
    for (let depth = 0; p && passes(p) && depth < 8; depth++) p = this.producerOf(p.input[0])
    return p
  }

  /** A constant d × d weight [in, out] as [out][in]. */
  matrix(c: Constant | null, what: string): { w: Float32Array; d: number } {
    if (!c || c.dims.length !== 2 || c.dims[0] !== c.dims[1]) throw new ContributionTapError(`${what} is not a constant d × d MatMul weight`)
    const d = c.dims[0]
    const w = new Float32Array(d * d)
    for (let i = 0; i < d; i++) for (let o = 0; o < d; o++) w[o * d + i] = c.values[i * d + o]
    return { w, d }
  }

  /** The projection computing `out`: a MatMul by a weight, or its dynamic quantisation (quantized). */
  projectionTo(out: string): Projection | null {
    const p = this.producerOf(out)
    if (p?.opType === 'MatMul' || p?.opType === 'MatMulNBits') return this.projectionFrom(p)
    if (p?.opType !== 'Mul') return null
    for (const i of p.input) {
      const cast = this.producerOf(i)
      const mi = cast?.opType === 'Cast' ? this.producerOf(cast.input[0]) : undefined
      if (mi?.opType === 'MatMulInteger') {
        const q = this.quantized(mi)
        return q?.out === out ? q : null
      }
    }
    return null
  }

  /** The projection a MatMul, MatMulNBits or MatMulInteger node starts. */
  projectionFrom(mm: NodeProto): Projection | null {
    if (mm.opType === 'MatMul') return { input: mm.input[0], out: mm.output[0], weight: this.constant(mm.input[1]) }
    if (mm.opType === 'MatMulNBits') return { input: mm.input[0], out: mm.output[0], weight: this.blockQuantized(mm) }
    return this.quantized(mm)
  }

  /**
   * onnxruntime's MatMulNBits (transformers.js's q4 and q4f16, MatMulNBitsQuantizer): W^T as
   * [N][K / block_size][block_size · bits / 8] bytes, elements packed low bits first, one scale a
   * block and a zero point a block (packed the same way; absent: 2^(bits − 1)). Read dequantized,
   * (q − zp) · scale. Floating zero points, g_idx and a fused bias are not read (null: refused).
   */
  private blockQuantized(mm: NodeProto): Constant | null {
    const attr = (name: string, or: number) => Number(mm.attribute.find((a) => a.name === name)?.i ?? or)
    const [K, N, bits, block] = [attr('K', 0), attr('N', 0), attr('bits', 4), attr('block_size', 0)]
    const packed = this.inits.get(mm.input[1])
    const scales = this.constant(mm.input[2])
    const zpInit = mm.input[3] ? this.inits.get(mm.input[3]) : undefined
    if (mm.input.slice(4).some(Boolean) || (mm.input[3] && zpInit?.dataType !== TensorProto_DataType.UINT8)) return null
    if (!packed || !scales || ![2, 4, 8].includes(bits) || block <= 0 || K <= 0 || N <= 0) return null
    const q = this.resolve(packed).rawData
    const zp = zpInit ? this.resolve(zpInit).rawData : null
    const blocks = Math.ceil(K / block)
    const blob = (block * bits) / 8
    const zpRow = Math.ceil((blocks * bits) / 8)
    if (q.length < N * blocks * blob || scales.values.length < N * blocks || (zp && zp.length < N * zpRow)) return null
    const nibble = (bytes: Uint8Array, at: number, i: number) => (bytes[at + Math.floor((i * bits) / 8)] >> ((i * bits) % 8)) & ((1 << bits) - 1)
    const values = new Float32Array(K * N)
    for (let n = 0; n < N; n++)
      for (let b = 0; b < blocks; b++) {
        const scale = scales.values[n * blocks + b]
        const zero = zp ? nibble(zp, n * zpRow, b) : 1 << (bits - 1)
        for (let i = 0; i < block && b * block + i < K; i++) values[(b * block + i) * N + n] = (nibble(q, (n * blocks + b) * blob, i) - zero) * scale
      }
    return { values, dims: [K, N] }
  }

  /**
   * onnxruntime's quantize_dynamic (IntegerOps; transformers.js's q8): DynamicQuantizeLinear(x) →
   * MatMulInteger(x_q, W_q, x_zp, W_zp) → Cast → Mul by x_scale · W_scale. The weight read is the
   * dequantized (W_q − W_zp) · W_scale (per tensor, or per output column), so the methods describe
   * the model with those weights; the activations' rounding stays in the tapped tensors.
   */
  private quantized(mi: NodeProto): Projection | null {
    const dq = this.producerOf(mi.input[0])
    const only = (name: string, op: string) => {
      const cs = this.consumers.get(name) ?? []
      return cs.length === 1 && cs[0].opType === op ? cs[0] : null
    }
    const cast = only(mi.output[0], 'Cast')
    const mul = cast && only(cast.output[0], 'Mul')
    if (dq?.opType !== 'DynamicQuantizeLinear' || !mul) return null
    const scales = this.producerOf(mul.input[mul.input[0] === cast.output[0] ? 1 : 0])
    const wScale = scales?.opType === 'Mul' ? scales.input.filter((n) => n !== dq.output[1]).map((n) => this.constant(n))[0] : null
    const q = this.constant(mi.input[1])
    if (!wScale || !q || q.dims.length !== 2) return null
    const zp = mi.input[3] ? this.constant(mi.input[3])?.values : undefined
    const cols = q.dims[1]
    const at = (v: Float32Array | undefined, col: number) => (v === undefined ? 0 : v.length === 1 ? v[0] : v[col])
    const values = q.values.map((x, k) => (x - at(zp, k % cols)) * at(wScale.values, k % cols))
    return { input: dq.input[0], out: mul.output[0], weight: { values, dims: q.dims } }
  }

  /** `node`'s constant input (a bias) and its other input, where `node` is an Add with one. */
  biasAdd(node: NodeProto | undefined): { bias: Float32Array; other: string } | null {
    if (node?.opType !== 'Add') return null
    for (const k of [0, 1]) {
      const c = this.constant(node.input[k])
      if (c) return { bias: c.values, other: node.input[1 - k] }
    }
    return null
  }
}

function epsilonOf(n: NodeProto): number {
  const a = n.attribute.find((x) => x.name === 'epsilon')
  return a ? a.f : 1e-5
}

/** One attention block from its Softmax output. `sourceBeta`: the β of the norm behind encoder_hidden_states (cross-attention, pre-norm). */
function blockAt(g: GraphReader, softmax: string, heads: number, what: string, sourceBeta: Float32Array | null): HfBlock {
  const pv = g.forwardTo(softmax, 'MatMul', `${what}'s attention probabilities`)
  // V = (source · W_V^T) + b_V, then split into heads
  const vNode = g.backFrom(pv.input[1])
  const vBias = g.biasAdd(vNode)
  const vOut = vBias ? vBias.other : vNode?.output[0]
  const vProj = vOut === undefined ? null : g.projectionTo(vOut)
  if (!vProj) {
    // a quantisation whose weights are not read (bitsandbytes' MatMulBnb4, QDQ's DequantizeLinear …) named as it is
    const op = vOut === undefined ? undefined : g.producerOf(vOut)?.opType
    throw new ContributionTapError(`${what}'s values are not a MatMul with a weight (plus a bias)${op ? `: they come from a ${op}` : ''}`)
  }
  const { w: wv, d } = g.matrix(vProj.weight, `${what}'s value projection`)
  if (d % heads !== 0) throw new ContributionTapError(`${what}'s width ${d} is not a multiple of ${heads} heads`)
  const oProj = g.projectionFrom(g.forwardTo(pv.output[0], ['MatMul', 'MatMulInteger', 'MatMulNBits'], `${what}'s heads`))
  if (!oProj) throw new ContributionTapError(`${what}'s heads do not go into a MatMul with a weight`)
  const { w: wo } = g.matrix(oProj.weight, `${what}'s output projection`)
  // then + b_O (not in T5), then + x, the residual
  const next = (name: string) => {
    const cs = g.consumers.get(name) ?? []
    if (cs.length !== 1) throw new ContributionTapError(`${what}'s output goes to ${cs.length} nodes, not to one residual Add`)
    return cs[0]
  }
  let attnOut = oProj.out
  let add = next(attnOut)
  const oBias = g.biasAdd(add)
  if (oBias) {
    attnOut = add.output[0]
    add = next(attnOut)
  }
  if (add.opType !== 'Add' || g.biasAdd(add)) throw new ContributionTapError(`${what}'s output is not added to a residual`)
  const x = add.input[add.input[0] === attnOut ? 1 : 0]
  const z = add.output[0]
  const after = g.consumers.get(z) ?? []
  const ln = after.find((n) => n.opType === 'LayerNormalization')
  const zeros: Float32Array = new Float32Array(d)
  let post: PostNorm | null = null
  let beta: Float32Array = zeros
  if (ln && !after.some((n) => n.opType === 'Add')) {
    const gamma = g.constant(ln.input[1])
    if (!gamma) throw new ContributionTapError(`${what}'s post-norm has no constant γ`)
    post = { y: ln.output[0], gamma: gamma.values, eps: epsilonOf(ln) }
  } else {
    // pre-norm: the values read LN(x_j) = L_j(x_j) + β; β goes with the biases
    const norm = g.producerOf(vProj.input)
    if (norm?.opType === 'LayerNormalization') beta = (norm.input[2] ? g.constant(norm.input[2])?.values : null) ?? zeros
    else if (vProj.input === 'encoder_hidden_states' && sourceBeta) beta = sourceBeta
  }
  return {
    weights: softmax,
    source: vProj.input,
    x,
    z,
    post,
    w: { d, heads, wv, bv: vBias?.bias ?? zeros, wo, gamma: zeros, beta, eps: 0 },
    bo: oBias?.bias ?? zeros,
  }
}

const softmaxes = (graph: GraphProto) => graph.node.filter((n) => n.opType === 'Softmax').map((n) => n.output[0])

/** The encoder's blocks, lowest layer first, and the β of its final norm (pre-norm: M2M100's layer_norm; null where there is none with a β). */
export function hfEncoderTaps(graph: GraphProto, heads: number, layers: number, resolve: WeightBytes): { blocks: HfBlock[]; finalBeta: Float32Array | null } {
  const g = new GraphReader(graph, resolve)
  const found = softmaxes(graph)
  if (found.length !== layers) throw new ContributionTapError(`its encoder has ${found.length} Softmax nodes, not one per layer (${layers})`)
  const blocks = found.map((s, l) => blockAt(g, s, heads, `encoder layer ${l}`, null))
  const out = graph.output[0]?.name ?? ''
  const last = g.backFrom(out) ?? g.producerOf(out)
  const finalBeta = last?.opType === 'LayerNormalization' && last.input[2] ? (g.constant(last.input[2])?.values ?? null) : null
  return { blocks, finalBeta }
}

/** The decoder's blocks, lowest layer first: in each layer the self-attention, then the cross-attention (hf/taps.ts tells them apart). */
export function hfDecoderTaps(graph: GraphProto, heads: number, layers: number, encoderBeta: Float32Array | null, resolve: WeightBytes): HfDecoderLayer[] {
  const g = new GraphReader(graph, resolve)
  const cross = crossSoftmaxes(graph)
  const self = softmaxes(graph).filter((s) => !cross.includes(s))
  if (cross.length !== layers || self.length !== layers)
    throw new ContributionTapError(
      `its decoder has ${self.length} self- and ${cross.length} cross-attention Softmax nodes, not one of each per layer (${layers})`,
    )
  return self.map((s, l) => ({
    self: blockAt(g, s, heads, `decoder layer ${l}'s self-attention`, null),
    cross: blockAt(g, cross[l], heads, `decoder layer ${l}'s cross-attention`, encoderBeta),
  }))
}

/**
 * A merged decoder (decoder_model_merged.onnx: one If on use_cache_branch) as the plain graph of
 * its no-cache branch: the branch's nodes read the main graph's inputs and weights by name, so
 * they run as the main graph once put there, each of its outputs passed on under the If's output
 * name (an fp16 conversion's Casts back to float32 after the If read those, and `logits` is
 * found under its own name either way).
 */
export function unmerged(graph: GraphProto): GraphProto {
  const ifNode = graph.node.find((n) => n.opType === 'If')
  const branch = ifNode?.attribute.find((a) => a.name === 'else_branch')?.g
  if (!ifNode || !branch) return graph
  const passOn = ifNode.output.map((name, k) =>
    create(NodeProtoSchema, { opType: 'Identity', name: `al_contrib/unmerged/${k}`, input: [branch.output[k].name], output: [name] }),
  )
  return { ...graph, node: [...graph.node.filter((n) => n !== ifNode), ...branch.node, ...passOn], initializer: [...graph.initializer, ...branch.initializer] }
}
