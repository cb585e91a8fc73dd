import { readFileSync } from 'node:fs'
import * as ort from '../onnxruntime'
import { sessionClock } from './session-clock'
import type { Contributions } from '../../shared/contributions'
import { checkContract, neverGenerated, type ModelSpec } from '../contract'
import { splitStep, valueInfo } from '../graph-surgery'
import { extractGraph, nodesFor, parseOnnx, serializeWith, type OnnxFile } from '../onnx-graph'
import { concatArrays } from '../onnx-write'
import { create, NodeProtoSchema, TensorProto_DataType, type GraphProto } from '../onnx-proto'
import { maxTargetLength } from '../decode'
import { sessionOptions } from '../formats/ort-sessions'
import { altiBlock, crossNorms, FULL, headValues, tappedHeadValues, valueBias, type AltiOptions, type BlockWeights } from './math'
import { folderOf } from '../formats/hf'
import { modelFile } from '../formats'
import { HfContributionModel } from './hf'
import { assemble, type Attributor } from './pass'
import { encodeSource, encodeTarget, greedyNext } from './pieces'
import { ContributionTapError, transformerTaps, type TransformerTaps } from './taps'

export { ContributionTapError } from './taps'
export { HfContributionModel } from './hf'
export type { Attributor } from './pass'

/** The contribution methods' reader for a model: a Hugging Face folder's (hf.ts), or a bundled Transformer's one file. */
export async function openAttributor(id: string): Promise<Attributor> {
  return (await folderOf(modelFile(id))) ? HfContributionModel.open(id) : ContributionModel.open(modelFile(id))
}

/**
 * The contribution methods (issue 41) on a bundled Transformer: the file's encoder and decoder
 * step run as two onnxruntime sessions cut from its graph with the residual stream and every
 * attention's weights added as outputs (the file on disk is not changed), one forward pass over
 * the output (greedy, or a given target), then the arithmetic of ./math.ts.
 */

/** The tensors one sentence's forward pass leaves, per layer. */
export interface Tapped {
  srcIds: number[]
  /** Output ids with the final `</s>`; decoder inputs are `<s>` then all but the last. */
  tgtIds: number[]
  S: number
  T: number
  /** Encoder, per layer: inputs x [S][d], outputs y [S][d], weights [H][S][S], per-head W_O^h v^h [S][H][d]. */
  enc: { x: Float32Array[]; y: Float32Array[]; a: Float32Array[][]; values: Float32Array }[]
  /** The encoder's last residual stream e [S][d] and its output h [S][d]. */
  e: Float32Array[]
  h: Float32Array[]
  /**
   * Decoder, per layer: x1, x2, x3 [T][d]; self weights [H][T][T] (0 above the diagonal); cross
   * weights [H][T][S]; per-head W_O^h v^h of the self-attention [T][H][d] and the cross-attention [S][H][d].
   */
  dec: {
    x1: Float32Array[]
    x2: Float32Array[]
    x3: Float32Array[]
    self: Float32Array[][]
    cross: Float32Array[][]
    selfValues: Float32Array
    crossValues: Float32Array
  }[]
  /** Seconds spent in onnxruntime. */
  runSeconds: number
}

function rowsOf(t: ort.Tensor, rows: number, d: number, offset = 0): Float32Array[] {
  const data = t.data as Float32Array
  return Array.from({ length: rows }, (_, i) => data.slice(offset + i * d, offset + (i + 1) * d))
}

export class ContributionModel implements Attributor<Tapped> {
  private constructor(
    readonly spec: ModelSpec,
    readonly taps: TransformerTaps,
    private readonly encoder: ort.InferenceSession,
    private readonly step: ort.InferenceSession,
    /** The step without its logits, for a given target: the projection onto the vocabulary is about half a small model's step. */
    private readonly forced: ort.InferenceSession,
    private readonly file: OnnxFile,
    /** The per-sentence values the encoder part computes for the step (graph-surgery.ts's keys). */
    private readonly keys: string[],
  ) {}

  /** Opens a bundled Transformer's file (throws ContributionTapError where it is not one). */
  static async open(path: string): Promise<ContributionModel> {
    const file = parseOnnx(readFileSync(path))
    const spec = checkContract(file)
    if (spec.attention !== 'transformer' || !spec.heads)
      throw new ContributionTapError(`${spec.name} is not a Transformer (its attention is ${spec.attention})`)
    let graph = file.model.graph as GraphProto
    const taps = transformerTaps(graph, spec.heads.heads)
    const declared = new Set(graph.output.map((o) => o.name))
    const typed = (g: GraphProto, outputs: string[]): GraphProto => ({
      ...g,
      output: outputs.map((o, i) => (declared.has(o) ? g.output[i] : valueInfo(o, TensorProto_DataType.FLOAT, null))),
    })
    const uniq = (xs: string[]) => [...new Set(xs)]
    const encOut = uniq([
      'encoder_out',
      'decoder_init',
      taps.encoderFinal,
      ...taps.encoder.flatMap((t) => [t.x, t.y, t.weights, t.values]),
      ...taps.decoder.map((t) => t.crossValues),
    ])
    const stepOut = uniq(['logits', 'next_state', 'cross_attention', ...taps.decoder.flatMap((t) => [t.x1, t.x2, t.x3, t.selfWeights, t.selfValues])])
    // The nodes that compute each head's W_O^h v^h go at the end (they read only existing values).
    graph = { ...graph, node: [...graph.node, ...taps.nodes], initializer: [...graph.initializer, ...taps.initializers] }
    // As the app does (graph-surgery.ts): what the step computes from the encoder states alone
    // (the cross-attention's keys and values) is computed once, by the encoder part.
    const keys = splitStep(graph, stepOut, ['encoder_out', 'decoder_init']).keys
    // The encoder part computes the step's keys too: encoder_states := encoder_out, placed after
    // the encoder's nodes (as graph-surgery's encoderGraph does), then whatever reads them.
    const encoderNodes = nodesFor(graph, ['encoder_out', 'decoder_init', ...taps.encoder.map((t) => t.values)]).nodes
    const withStates: GraphProto = {
      ...graph,
      node: [
        ...graph.node.filter((_, i) => encoderNodes.has(i)),
        create(NodeProtoSchema, { opType: 'Identity', input: ['encoder_out'], output: ['encoder_states'], name: 'contrib/encoder_states' }),
        ...graph.node.filter((_, i) => !encoderNodes.has(i)),
      ],
      input: graph.input.filter((v) => v.name !== 'encoder_states'),
    }
    const encBytes = serializeWith(file, typed(extractGraph(withStates, [...encOut, ...keys]), [...encOut, ...keys]))
    const keyInfo = new Map(keys.map((k) => [k, valueInfo(k, TensorProto_DataType.FLOAT, null)]))
    const forcedOut = stepOut.filter((o) => o !== 'logits')
    const opts = sessionOptions('cpu')
    const encoder = await ort.InferenceSession.create(encBytes, opts)
    const sessions: ort.InferenceSession[] = [encoder]
    try {
      for (const outs of [stepOut, forcedOut])
        sessions.push(await ort.InferenceSession.create(serializeWith(file, typed(extractGraph(graph, outs, keyInfo), outs)), opts))
    } catch (e) {
      await Promise.all(sessions.map((s) => s.release()))
      throw e
    }
    return new ContributionModel(spec, taps, encoder, sessions[1], sessions[2], file, keys)
  }

  async release(): Promise<void> {
    await this.encoder.release()
    await this.step.release()
    await this.forced.release()
  }

  /** Source text to pieces and ids, `</s>` last (the app's tokenizer, cut as the app cuts it). */
  encodeSource(text: string): { tokens: string[]; ids: number[] } {
    return encodeSource(this.spec, text)
  }

  /** Target text to ids with `</s>` last, cut to the step limit. */
  encodeTarget(text: string, srcLen: number): number[] {
    return encodeTarget(this.spec, text, srcLen)
  }

  /** One forward pass with the taps: over `target` (ids with `</s>` last), or greedy where it is null. */
  async run(srcIds: number[], target: number[] | null): Promise<Tapped> {
    const { taps, spec } = this
    const S = srcIds.length
    const d = taps.d
    const H = taps.heads
    const clock = sessionClock()
    const timed = clock.run
    const mask = new ort.Tensor('float32', new Float32Array(S).fill(1), [1, S])
    const eo = await timed(this.encoder, { src_ids: new ort.Tensor('int64', BigInt64Array.from(srcIds.map(BigInt)), [1, S]), src_mask: mask })
    const enc = taps.encoder.map((t) => ({
      x: rowsOf(eo[t.x], S, d),
      y: rowsOf(eo[t.y], S, d),
      a: Array.from({ length: H }, (_, h) => rowsOf(eo[t.weights], S, S, h * S * S)),
      values: (eo[t.values].data as Float32Array).slice(),
    }))
    const e = rowsOf(eo[taps.encoderFinal], S, d)
    const hEnc = rowsOf(eo.encoder_out, S, d)
    const L = taps.decoder.length
    const never = new Set(neverGenerated(spec))
    const limit = target ? target.length : maxTargetLength(S, spec.maxTarget)
    const ids: number[] = []
    let state = eo.decoder_init
    let prev = spec.special.bos
    const perStep: { x1: Float32Array[]; x2: Float32Array[]; x3: Float32Array[]; self: Float32Array[]; cross: Float32Array[]; values: Float32Array[] }[] = []
    const session = target ? this.forced : this.step
    const inputs = new Set(session.inputNames)
    const constant = {
      attn_override: new ort.Tensor('float32', new Float32Array(S), [1, S]),
      override_on: new ort.Tensor('float32', new Float32Array(1), this.file.inputs.get('override_on')?.dims.length === 2 ? [1, 1] : [1]),
      head_gate: new ort.Tensor('float32', new Float32Array(L * H).fill(1), [1, L, H]),
      head_override: new ort.Tensor('float32', new Float32Array(L * H), [1, L, H]),
    }
    for (let t = 0; t < limit; t++) {
      const feeds: Record<string, ort.Tensor> = {
        prev_token: new ort.Tensor('int64', BigInt64Array.of(BigInt(prev)), [1]),
        state,
        encoder_states: eo.encoder_out,
        src_mask: mask,
        step: new ort.Tensor('float32', Float32Array.of(t), [1]),
        ...constant,
        ...Object.fromEntries(this.keys.map((k) => [k, eo[k]])),
      }
      const o = await timed(session, Object.fromEntries(Object.entries(feeds).filter(([k]) => inputs.has(k))))
      state = o.next_state
      perStep.push({
        x1: taps.decoder.map((tp) => (o[tp.x1].data as Float32Array).slice(0, d)),
        x2: taps.decoder.map((tp) => (o[tp.x2].data as Float32Array).slice(0, d)),
        x3: taps.decoder.map((tp) => (o[tp.x3].data as Float32Array).slice(0, d)),
        self: taps.decoder.map((tp) => {
          const w = o[tp.selfWeights]
          if (w.dims[1] !== H || w.dims[2] !== t + 1)
            throw new ContributionTapError(`decoder self-attention weights have shape [${w.dims.join(', ')}], not [1, ${H}, ${t + 1}]`)
          return (w.data as Float32Array).slice()
        }),
        cross: Array.from({ length: L }, (_, l) => (o.cross_attention.data as Float32Array).slice(l * H * S, (l + 1) * H * S)),
        values: taps.decoder.map((tp) => (o[tp.selfValues].data as Float32Array).slice(0, H * d)),
      })
      const next = target ? target[t] : greedyNext(o.logits.data as Float32Array, never)
      ids.push(next)
      prev = next
      if (!target && next === spec.special.eos) break
    }
    if (ids[ids.length - 1] !== spec.special.eos && !target) ids.push(spec.special.eos)
    const T = perStep.length
    const dec = Array.from({ length: L }, (_, l) => ({
      x1: perStep.map((s) => s.x1[l]),
      x2: perStep.map((s) => s.x2[l]),
      x3: perStep.map((s) => s.x3[l]),
      self: Array.from({ length: H }, (_, h) =>
        perStep.map((s, t) => {
          const row = new Float32Array(T)
          row.set(s.self[l].subarray(h * (t + 1), (h + 1) * (t + 1)))
          return row
        }),
      ),
      cross: Array.from({ length: H }, (_, h) => perStep.map((s) => s.cross[l].slice(h * S, (h + 1) * S))),
      selfValues: concatArrays(
        perStep.map((s) => s.values[l]),
        (n) => new Float32Array(n),
      ),
      crossValues: (eo[taps.decoder[l].crossValues].data as Float32Array).slice(),
    }))
    return { srcIds, tgtIds: ids.slice(0, T), S, T, enc, e, h: hEnc, dec, runSeconds: clock.seconds() }
  }

  private readonly biases = new Map<BlockWeights, Float64Array>()
  private biasOf(w: BlockWeights): Float64Array {
    let b = this.biases.get(w)
    if (!b) this.biases.set(w, (b = valueBias(w)))
    return b
  }

  /** Every method from one forward pass's tensors; `opts` leaves out the residual or the norm (for tests). */
  contributions(tp: Tapped, opts: AltiOptions = FULL): Contributions {
    const { taps, spec } = this
    // W_O^h W_V^h L_j(z_j): the graph's own value projections less what β and b_V add; without the
    // norm (the tests' omission), from z_j and the weights.
    const values = (tapped: Float32Array, z: Float32Array[], w: BlockWeights) =>
      opts.layerNorm ? tappedHeadValues(tapped, w, this.biasOf(w)) : headValues(z, w, false)
    const encoderAlti = tp.enc.map((l, i) => altiBlock(l.x, l.y, values(l.values, l.x, taps.encoderBlocks[i]), l.a, taps.encoderBlocks[i], 'diagonal', opts))
    const selfAlti = tp.dec.map((l, i) => altiBlock(l.x1, l.x2, values(l.selfValues, l.x1, taps.selfBlocks[i]), l.self, taps.selfBlocks[i], 'diagonal', opts))
    const crossAlti = tp.dec.map((l, i) =>
      altiBlock(l.x2, l.x3, values(l.crossValues, tp.e, taps.crossBlocks[i]), l.cross, taps.crossBlocks[i], 'column', opts),
    )
    // f^h(h_j) = W_O^h (W_V^h h_j + b_V^h) is what the graph computed.
    const norms = tp.dec.map((l, i) => crossNorms(l.crossValues, l.cross, taps.crossBlocks[i]))
    const tgtVocab = spec.tgtVocab
    return assemble({
      srcTokens: tp.srcIds.map((i) => spec.srcVocab[i]),
      tgtTokens: tp.tgtIds.map((i) => tgtVocab[i]),
      prefixTokens: [spec.special.bos, ...tp.tgtIds.slice(0, -1)].map((i) => tgtVocab[i]),
      heads: taps.heads,
      encoderAlti,
      selfAlti,
      crossAlti,
      norms,
      crossResidual: tp.dec.map((l) => l.x2),
      weights: { encoder: tp.enc.map((l) => l.a), self: tp.dec.map((l) => l.self), cross: tp.dec.map((l) => l.cross) },
    })
  }
}
