import { floatTap } from '../formats/hf/taps'
import { tensor } from '../graph-surgery'
import { create, NodeProtoSchema, TensorProto_DataType, type NodeProto, type TensorProto } from '../onnx-proto'
import type { HfBlock } from './hf-taps'

/**
 * Each key's per-head W_O^h W_V^h (u_j − β), [Nk, H, 1, d], computed by the folder's own session
 * (ALTI's values; with valueBias added, the norms' f^h): 2 d² multiply-adds a key that JavaScript
 * did one key at a time. The weights are the ones hf-taps.ts read, whatever the variant stored
 * (float16, q8's or q4's dequantized), added as float32 initializers: every variant then gives the
 * numbers the methods are defined on, and the graph's own projections stay as they were.
 */
export interface ValueNodes {
  nodes: NodeProto[]
  initializers: TensorProto[]
  /** The added output, float32 [Nk, H, 1, d]. */
  output: string
}

/** The output a block's values are under, by the tag valueNodes was given. */
export const valuesOutput = (tag: string) => `al_contrib/values/${tag}/out`

const node = (opType: string, input: string[], output: string) => create(NodeProtoSchema, { opType, input, output: [output], name: output })

export function valueNodes(b: HfBlock, tag: string): ValueNodes {
  const { d, heads, wv, wo, beta } = b.w
  const dh = d / heads
  const at = (s: string) => `al_contrib/values/${tag}/${s}`
  // W_V as x · W ([in][out]) from hf-taps' [out][in]; W_O split by the heads its input rows belong to, [H][dh][d]
  const wvT = new Float32Array(d * d)
  const woHeads = new Float32Array(d * d)
  for (let o = 0; o < d; o++)
    for (let i = 0; i < d; i++) {
      wvT[i * d + o] = wv[o * d + i]
      woHeads[i * d + o] = wo[o * d + i]
    }
  const initializers = [
    tensor(at('wv'), TensorProto_DataType.FLOAT, [d, d], wvT),
    tensor(at('wo'), TensorProto_DataType.FLOAT, [heads, dh, d], woHeads),
    tensor(at('shape'), TensorProto_DataType.INT64, [4], [-1, heads, 1, dh]),
  ]
  const nodes = [floatTap(b.source, at('u'))]
  let u = at('u')
  if (beta.some((x) => x !== 0)) {
    initializers.push(tensor(at('beta'), TensorProto_DataType.FLOAT, [d], beta))
    nodes.push(node('Sub', [u, at('beta')], at('u_less_beta')))
    u = at('u_less_beta')
  }
  const output = valuesOutput(tag)
  nodes.push(node('MatMul', [u, at('wv')], at('v')), node('Reshape', [at('v'), at('shape')], at('v_heads')), node('MatMul', [at('v_heads'), at('wo')], output))
  return { nodes, initializers, output }
}
