import { readFileSync } from 'node:fs'
import * as ort from '../onnxruntime'
import { sessionClock } from './session-clock'
import { CONTEXT_NORM, contextShare, type ContextNorm, type ContextPartRole } from '../../shared/context-norm'
import { checkContract, neverGenerated, type ModelSpec } from '../contract'
import { maxTargetLength } from '../decode'
import { sessionOptions } from '../formats/ort-sessions'
import { valueInfo } from '../graph-surgery'
import { extractGraph, parseOnnx, serializeWith } from '../onnx-graph'
import { TensorProto_DataType, type GraphProto } from '../onnx-proto'
import { encodeSource, encodeTarget, greedyNext } from './pieces'
import { rnnTaps, type RnnTaps } from './rnn-taps'
import { ContributionTapError } from './taps'

/**
 * The RNN analogue of the source share (src/shared/context-norm.ts) on a bundled RNN: the file's
 * encoder and a decoder step with the output layer's inputs added as outputs, as two onnxruntime
 * sessions of their own (the app's translation sessions gain no outputs; the file on disk is not
 * changed), one forward pass over the output (greedy, or a given target), then each part's norm.
 */

/** One sentence's forward pass: per row, the layer's inputs and the attention weights. */
export interface RnnPass {
  srcIds: number[]
  /** Output ids with the final `</s>`. */
  tgtIds: number[]
  S: number
  T: number
  /** [T][P]: each part of the layer's input at each row. */
  parts: Float32Array[][]
  /** [T][S] */
  weights: Float32Array[]
  runSeconds: number
}

export class RnnContextModel {
  private constructor(
    readonly spec: ModelSpec,
    readonly taps: RnnTaps,
    private readonly encoder: ort.InferenceSession,
    private readonly step: ort.InferenceSession,
    private readonly overrideDims: number[],
  ) {}

  /** Opens an RNN's file; a ContributionTapError says what its graph lacks (no attention, no output layer that reads the context). */
  static async open(path: string): Promise<RnnContextModel> {
    const file = parseOnnx(readFileSync(path))
    const spec = checkContract(file)
    if (spec.task !== 'translation') throw new ContributionTapError(`${spec.name} is not a translation model`)
    if (spec.attention === 'transformer') throw new ContributionTapError(`${spec.name} is a Transformer: its contributions are the Transformer methods`)
    const graph = file.model.graph as GraphProto
    const taps = rnnTaps(graph)
    const declared = new Set(graph.output.map((o) => o.name))
    const outs = [...new Set(['logits', 'next_state', 'attention', ...taps.layer.parts.map((p) => p.name)])]
    const typed = (g: GraphProto): GraphProto => ({
      ...g,
      output: outs.map((o, i) => (declared.has(o) ? g.output[i] : valueInfo(o, TensorProto_DataType.FLOAT, null))),
    })
    const opts = sessionOptions('cpu')
    const encoder = await ort.InferenceSession.create(serializeWith(file, extractGraph(graph, ['encoder_out', 'decoder_init'])), opts)
    try {
      const step = await ort.InferenceSession.create(serializeWith(file, typed(extractGraph(graph, outs))), opts)
      return new RnnContextModel(spec, taps, encoder, step, file.inputs.get('override_on')?.dims.length === 2 ? [1, 1] : [1])
    } catch (e) {
      await encoder.release()
      throw e
    }
  }

  async release(): Promise<void> {
    await this.encoder.release()
    await this.step.release()
  }

  /** Source text to pieces and ids, `</s>` last (the app's tokenizer, cut as the app cuts it). */
  encodeSource(text: string): { tokens: string[]; ids: number[] } {
    return encodeSource(this.spec, text)
  }

  /** Target text to ids with `</s>` last, cut to the step limit. */
  encodeTarget(text: string, srcLen: number): number[] {
    return encodeTarget(this.spec, text, srcLen)
  }

  /** One forward pass over `target` (ids with `</s>` last), or greedy where it is null. */
  async run(srcIds: number[], target: number[] | null): Promise<RnnPass> {
    const { spec, taps } = this
    const S = srcIds.length
    const clock = sessionClock()
    const timed = clock.run
    const mask = new ort.Tensor('float32', new Float32Array(S).fill(1), [1, S])
    const eo = await timed(this.encoder, { src_ids: new ort.Tensor('int64', BigInt64Array.from(srcIds.map(BigInt)), [1, S]), src_mask: mask })
    const inputs = new Set(this.step.inputNames)
    const never = new Set(neverGenerated(spec))
    const limit = target ? target.length : maxTargetLength(S, spec.maxTarget)
    const ids: number[] = []
    const parts: Float32Array[][] = []
    const weights: Float32Array[] = []
    let state = eo.decoder_init
    let prev = spec.special.bos
    for (let t = 0; t < limit; t++) {
      const feeds: Record<string, ort.Tensor> = {
        prev_token: new ort.Tensor('int64', BigInt64Array.of(BigInt(prev)), [1]),
        state,
        encoder_states: eo.encoder_out,
        src_mask: mask,
        step: new ort.Tensor('float32', Float32Array.of(t), [1]),
        attn_override: new ort.Tensor('float32', new Float32Array(S), [1, S]),
        override_on: new ort.Tensor('float32', new Float32Array(1), this.overrideDims),
      }
      const o = await timed(this.step, Object.fromEntries(Object.entries(feeds).filter(([k]) => inputs.has(k))))
      state = o.next_state
      parts.push(taps.layer.parts.map((p) => (o[p.name].data as Float32Array).slice()))
      weights.push((o.attention.data as Float32Array).slice(0, S))
      const next = target ? target[t] : greedyNext(o.logits.data as Float32Array, never)
      ids.push(next)
      prev = next
      if (!target && next === spec.special.eos) break
    }
    if (ids[ids.length - 1] !== spec.special.eos && !target) ids.push(spec.special.eos)
    const T = parts.length
    return { srcIds, tgtIds: ids.slice(0, T), S, T, parts, weights, runSeconds: clock.seconds() }
  }

  /** The analogue from one pass; `leave` drops the parts of a role from the sum (the tests' omission). */
  contextNorm(p: RnnPass, leave?: ContextPartRole): ContextNorm {
    const { taps, spec } = this
    const widths = p.parts[0]?.map((x) => x.length) ?? taps.layer.parts.map(() => 0)
    const total = widths.reduce((a, b) => a + b, 0)
    if (p.T > 0 && total !== taps.in) throw new ContributionTapError(`its output layer reads ${taps.in} values, but the Concat's inputs hold ${total}`)
    const roles = taps.layer.parts.map((x) => x.role)
    const norms = p.parts.map((row) => {
      let col = 0
      return row.map((x, k) => {
        const at = col
        col += x.length
        if (leave && roles[k] === leave) return 0
        return partNorm(taps.weight, taps.in, taps.out, at, x)
      })
    })
    const tgt = spec.tgtVocab
    return {
      method: CONTEXT_NORM,
      srcTokens: p.srcIds.map((i) => spec.srcVocab[i]),
      tgtTokens: p.tgtIds.map((i) => tgt[i]),
      prefixTokens: [spec.special.bos, ...p.tgtIds.slice(0, -1)].map((i) => tgt[i]),
      layer: { weight: taps.layer.weight, parts: taps.layer.parts.map((x, k) => ({ ...x, width: widths[k] })) },
      norms,
      sourceShare: norms.map((n) => contextShare(n, roles)),
      weights: p.weights.map((r) => Array.from(r)),
    }
  }
}

/** ‖W[:, at … at + |x|) x‖₂ for W [out][in] as rows, in float64. */
function partNorm(w: Float32Array, inDim: number, out: number, at: number, x: Float32Array): number {
  let sq = 0
  for (let o = 0; o < out; o++) {
    const row = o * inDim + at
    let v = 0
    for (let k = 0; k < x.length; k++) v += w[row + k] * x[k]
    sq += v * v
  }
  return Math.sqrt(sq)
}
