import { basename } from 'node:path'
import * as ort from '../onnxruntime'
import { sessionClock } from './session-clock'
import type { Contributions } from '../../shared/contributions'
import type { ModelSpec } from '../contract'
import { maxTargetLength, vocabIndex } from '../decode'
import { modelFile, modelOptions } from '../formats'
import { readFolder } from '../formats/hf'
import { toFloat32 } from '../formats/hf/parts'
import { floatTap } from '../formats/hf/taps'
import { checkExternalData, readSlimModel, type SlimModel } from '../formats/model-bytes'
import { createAll, sessionOptions } from '../formats/ort-sessions'
import type { SourceEncoder } from '../formats/types'
import { valueInfo } from '../graph-surgery'
import { extractGraph, serializeWith } from '../onnx-graph'
import { TensorProto_DataType, type GraphProto } from '../onnx-proto'
import { tokenize } from '../tokenizer'
import { externalTensorReader } from './hf-weights'
import { ContributionTapError } from './taps'
import { hfDecoderTaps, hfEncoderTaps, unmerged, type HfBlock, type HfDecoderLayer } from './hf-taps'
import { altiBlock, crossNorms, FULL, headOutputsInto, tappedHeadValues, valueBias, type AltiOptions, type BlockWeights } from './math'
import { valueNodes, valuesOutput, type ValueNodes } from './hf-values'
import { assemble, type Pass } from './pass'

/**
 * The contribution methods on a Hugging Face folder (Optimum's or transformers.js's layout):
 * the encoder and the decoder without cache (a merged decoder's no-cache branch) run as
 * onnxruntime sessions with every attention block's tensors added as outputs (hf-taps.ts finds
 * them; the files are not changed), the decoder teacher-forced over the whole output in one run.
 */

/** One attention block's tensors for one sentence, rows per position. */
export interface BlockTensors {
  x: Float32Array[]
  /** The block's output: the post-norm's y, or z. */
  y: Float32Array[]
  z: Float32Array[]
  source: Float32Array[]
  /** [H][Nq][Nk] */
  a: Float32Array[][]
  /** Each key's W_O^h W_V^h (u_j − β) as the session computed it, flat [Nk][H][d] (hf-values.ts). */
  values: Float32Array
}

export interface HfTapped extends Pass {
  enc: BlockTensors[]
  dec: { self: BlockTensors; crossBlock: BlockTensors; cross: Float32Array[][] }[]
}

const tapOf = (name: string) => `al_contrib/${name}`

function rows(t: ort.Tensor, d: number): Float32Array[] {
  const data = toFloat32(t).data as Float32Array
  return Array.from({ length: data.length / d }, (_, i) => data.slice(i * d, (i + 1) * d))
}

function heads(t: ort.Tensor): Float32Array[][] {
  const [, H, Nq, Nk] = t.dims
  const data = toFloat32(t).data as Float32Array
  return Array.from({ length: H }, (_, h) => Array.from({ length: Nq }, (_, i) => data.slice((h * Nq + i) * Nk, (h * Nq + i + 1) * Nk)))
}

const blockNames = (b: HfBlock) => [b.weights, b.source, b.x, b.z, ...(b.post ? [b.post.y] : [])]

/**
 * A session over `graph` computing `outputs`, cast to float32 the tapped names (those that are
 * graph inputs are read from the feeds), and each block's values (hf-values.ts).
 */
async function tappedSession(slim: SlimModel, graph: GraphProto, outputs: string[], taps: string[], values: ValueNodes[]): Promise<ort.InferenceSession> {
  const inputs = new Set(graph.input.map((i) => i.name))
  const computed = [...new Set(taps)].filter((n) => !inputs.has(n))
  const outs = [...outputs, ...computed.map(tapOf), ...values.map((v) => v.output)]
  const added = [...computed.map((n) => floatTap(n, tapOf(n))), ...values.flatMap((v) => v.nodes)]
  const g = extractGraph({ ...graph, node: [...graph.node, ...added], initializer: [...graph.initializer, ...values.flatMap((v) => v.initializers)] }, outs)
  const declared = new Set(graph.output.map((o) => o.name))
  g.output = g.output.map((o) => (declared.has(o.name) ? o : valueInfo(o.name, TensorProto_DataType.FLOAT, null)))
  const [session] = await createAll([{ bytes: serializeWith(slim.file, g), dir: slim.dir }], sessionOptions('cpu'))
  return session
}

export class HfContributionModel {
  private constructor(
    readonly spec: ModelSpec,
    private readonly sourceEncoder: SourceEncoder,
    private readonly encoder: ort.InferenceSession,
    private readonly decoder: ort.InferenceSession,
    readonly encoderTaps: HfBlock[],
    readonly decoderTaps: HfDecoderLayer[],
  ) {}

  /** Opens a folder (or one of its files; a model id with languages); throws ContributionTapError where its graphs are not read. */
  static async open(id: string): Promise<HfContributionModel> {
    const f = await readFolder(modelFile(id), modelOptions(id))
    const { layers, heads } = f.spec.heads!
    // read as the app opens a folder: without their weights, which stay in its files (external
    // data or the .onnx's own bytes) for onnxruntime, and for the taps to read the few they need
    const slim = async (path: string) => {
      const m = await readSlimModel(path)
      checkExternalData(m, basename(path))
      return m
    }
    const encFile = await slim(f.files.encoder)
    const decFile = await slim(f.files.first)
    const encGraph = encFile.file.model.graph as GraphProto
    const enc = hfEncoderTaps(encGraph, heads, Number(f.config.encoder_layers ?? f.config.num_layers ?? layers), externalTensorReader(encFile.dir))
    const dec = unmerged(decFile.file.model.graph as GraphProto)
    const decTaps = hfDecoderTaps(dec, heads, layers, enc.finalBeta, externalTensorReader(decFile.dir))
    const encOut = encGraph.output[0].name
    const encoder = await tappedSession(
      encFile,
      encGraph,
      [encOut],
      enc.blocks.flatMap(blockNames),
      enc.blocks.map((b, l) => valueNodes(b, `enc.${l}`)),
    )
    const decoder = await tappedSession(
      decFile,
      dec,
      ['logits'],
      decTaps.flatMap((l) => [...blockNames(l.self), ...blockNames(l.cross)]),
      decTaps.flatMap((l, k) => [valueNodes(l.self, `dec.${k}.self`), valueNodes(l.cross, `dec.${k}.cross`)]),
    ).catch(async (e: unknown) => {
      await encoder.release()
      throw e
    })
    return new HfContributionModel(f.spec, f.sourceEncoder, encoder, decoder, enc.blocks, decTaps)
  }

  async release(): Promise<void> {
    await this.encoder.release()
    await this.decoder.release()
  }

  /** The folder's own tokenizer, its special tokens (language code, `</s>`) included. */
  encodeSource(text: string): { tokens: string[]; ids: number[] } {
    const { pieces, ids } = this.sourceEncoder(text)
    return { tokens: pieces, ids }
  }

  /** Target text to ids with `</s>` last (and the forced first token, a language code, first), cut to the step limit. */
  encodeTarget(text: string, srcLen: number): number[] {
    const { tgtVocab, special, tgtTokenizer, generation } = this.spec
    const index = vocabIndex(tgtVocab)
    const first = generation?.forcedFirst ?? null
    const ids = tokenize(text, tgtTokenizer).map((p) => index.get(p) ?? special.unk)
    if (first !== null && ids[0] !== first) ids.unshift(first)
    return this.cutTarget(ids, srcLen)
  }

  /** Target ids cut to the step limit for a source of `srcLen` ids, `</s>` last. */
  private cutTarget(ids: number[], srcLen: number): number[] {
    return [...ids.slice(0, maxTargetLength(srcLen, this.spec.maxTarget) - 1), this.spec.special.eos]
  }

  /**
   * A gold pair's pieces (each gold word tokenized on its own) as this folder's ids: its own tokens
   * around the source (a language code or `<s>` before, `</s>` last) and the forced first token
   * (a language code) before the target, `</s>` last, cut to the step limit as encodeTarget cuts;
   * `head` and `forced`: how many of those lead the source's and the target's ids, which the
   * gold's word spans do not count.
   */
  encodeGoldPieces(src: readonly string[], tgt: readonly string[]): { srcIds: number[]; tgtIds: number[]; head: number; forced: number } {
    const { srcVocab, tgtVocab, special, generation } = this.spec
    const ends = this.sourceEncoder('')
    // The gold's spans count the pieces and `</s>`: a tokenizer that adds more after the text is not
    // read. A tap error, so the Alignment score board drops this folder's method rows, not the board.
    if (ends.tail !== 1)
      throw new ContributionTapError(
        `${this.spec.name}: its tokenizer ends a source with ${ends.tail} tokens of its own; the gold's words are mapped where it ends with \`</s>\` alone`,
      )
    const srcIndex = vocabIndex(srcVocab)
    const tgtIndex = vocabIndex(tgtVocab)
    const srcIds = [...ends.ids.slice(0, ends.head), ...src.map((p) => srcIndex.get(p) ?? special.unk), ...ends.ids.slice(ends.ids.length - 1)]
    const first = generation?.forcedFirst ?? null
    const lead = first === null ? [] : [first]
    const ids = [...lead, ...tgt.map((p) => tgtIndex.get(p) ?? special.unk)]
    return { srcIds, tgtIds: this.cutTarget(ids, srcIds.length), head: ends.head, forced: lead.length }
  }

  /** One forward pass with the taps: over `target` (ids with `</s>` last), or the greedy output (the decoder run again over each longer prefix) where it is null. */
  async run(srcIds: number[], target: number[] | null): Promise<HfTapped> {
    const S = srcIds.length
    const clock = sessionClock()
    // Each session is given only the feeds its graph names.
    const timed = (s: ort.InferenceSession, feeds: Record<string, ort.Tensor>) =>
      clock.run(s, Object.fromEntries(Object.entries(feeds).filter(([k]) => s.inputNames.includes(k))))
    const ones = new ort.Tensor('int64', new BigInt64Array(S).fill(1n), [1, S])
    const eo = await timed(this.encoder, { input_ids: new ort.Tensor('int64', BigInt64Array.from(srcIds.map(BigInt)), [1, S]), attention_mask: ones })
    const hidden = eo[this.encoder.outputNames[0]]
    const decode = (prefix: number[]) =>
      timed(this.decoder, {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(prefix.map(BigInt)), [1, prefix.length]),
        encoder_hidden_states: hidden,
        encoder_attention_mask: ones,
      })
    const start = this.spec.special.bos
    const ids = target ? [...target] : await this.greedy(S, (prefix) => decode(prefix))
    const o = await decode([start, ...ids.slice(0, -1)])
    const d = this.encoderTaps[0].w.d
    const read = (out: ort.InferenceSession.ReturnType, name: string) => (name === 'encoder_hidden_states' ? hidden : out[tapOf(name)])
    const tensors = (out: ort.InferenceSession.ReturnType, b: HfBlock, tag: string): BlockTensors => ({
      x: rows(read(out, b.x), d),
      z: rows(read(out, b.z), d),
      y: rows(read(out, b.post ? b.post.y : b.z), d),
      source: rows(read(out, b.source), d),
      a: heads(read(out, b.weights)),
      values: out[valuesOutput(tag)].data as Float32Array,
    })
    const dec = this.decoderTaps.map((l, k) => {
      const crossBlock = tensors(o, l.cross, `dec.${k}.cross`)
      return { self: tensors(o, l.self, `dec.${k}.self`), crossBlock, cross: crossBlock.a }
    })
    const enc = this.encoderTaps.map((b, l) => tensors(eo, b, `enc.${l}`))
    return { srcIds, tgtIds: ids, S, T: ids.length, enc, dec, runSeconds: clock.seconds() }
  }

  /** Greedy ids with `</s>` last, as the app decodes a folder: the forced first token, bad words never, at most maxTargetLength steps. */
  private async greedy(S: number, decode: (prefix: number[]) => Promise<ort.InferenceSession.ReturnType>): Promise<number[]> {
    const { special, generation, neverGenerate } = this.spec
    const never = new Set(neverGenerate ?? [])
    const ids: number[] = []
    const limit = maxTargetLength(S, this.spec.maxTarget)
    while (ids.length < limit) {
      const forced = ids.length === 0 ? (generation?.forcedFirst ?? null) : null
      let next = forced ?? -1
      if (forced === null) {
        const logits = toFloat32((await decode([special.bos, ...ids]))['logits'])
        const V = logits.dims[2]
        const data = logits.data as Float32Array
        const at = ids.length * V
        let best = -Infinity
        for (let v = 0; v < V; v++)
          if (!never.has(v) && data[at + v] > best) {
            best = data[at + v]
            next = v
          }
      }
      ids.push(next)
      if (next === special.eos) return ids
    }
    return [...ids, special.eos]
  }

  /** Every method from one pass's tensors; `opts` leaves out the residual or the norms (for tests). */
  contributions(tp: HfTapped, opts: AltiOptions = FULL): Contributions {
    const alti = (t: BlockTensors, b: HfBlock, residual: 'diagonal' | 'column') => {
      const post = opts.layerNorm && b.post ? { z: t.z, gamma: b.post.gamma, eps: b.post.eps } : null
      // left out (the tests' omission): a post-norm's norm, a pre-norm's norm before the values
      const y = opts.layerNorm || !b.post ? t.y : t.z
      // a pre-norm block's norm left out: the values read x where its output was, with β in (sourceValues, in JavaScript)
      const values = opts.layerNorm || b.post ? tappedHeadValues(t.values, b.w, null) : sourceValues(residual === 'column' ? t.source : t.x, b.w)
      return altiBlock(t.x, y, values, t.a, b.w, residual, opts, post)
    }
    const encoderAlti = tp.enc.map((t, l) => alti(t, this.encoderTaps[l], 'diagonal'))
    const selfAlti = tp.dec.map((t, l) => alti(t.self, this.decoderTaps[l].self, 'diagonal'))
    const crossAlti = tp.dec.map((t, l) => alti(t.crossBlock, this.decoderTaps[l].cross, 'column'))
    // Kobayashi et al.: f^h(h_j) = W_O^h (W_V^h h_j + b_V^h), the values as the model computed
    // them: the tapped W_O^h W_V^h (h_j − β) plus W_O^h (W_V^h β + b_V^h)
    const norms = tp.dec.map((t, l) => {
      const w = this.decoderTaps[l].cross.w
      const f = tappedHeadValues(t.crossBlock.values, w, valueBias(w), 1)
      return crossNorms(f, t.cross, w)
    })
    const v = this.spec.tgtVocab
    return assemble({
      srcTokens: tp.srcIds.map((i) => this.spec.srcVocab[i]),
      tgtTokens: tp.tgtIds.map((i) => v[i]),
      prefixTokens: [this.spec.special.bos, ...tp.tgtIds.slice(0, -1)].map((i) => v[i]),
      heads: this.spec.heads!.heads,
      encoderAlti,
      selfAlti,
      crossAlti,
      norms,
      crossResidual: tp.dec.map((l) => l.crossBlock.x),
      weights: { encoder: tp.enc.map((t) => t.a), self: tp.dec.map((t) => t.self.a), cross: tp.dec.map((t) => t.cross) },
    })
  }
}

/** Each key's W_O^h W_V^h u_j flat [j][h][k], in JavaScript: the tests' omission of a pre-norm block's norm. */
function sourceValues(u: Float32Array[], w: BlockWeights): Float64Array {
  const out = new Float64Array(u.length * w.heads * w.d)
  u.forEach((row, j) => headOutputsInto(row, w, false, out, j * w.heads * w.d))
  return out
}
