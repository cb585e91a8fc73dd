import { readFile, stat } from 'node:fs/promises'
import * as ort from 'onnxruntime-node'
import { checkContract, ContractError, ENCODER_OUTPUTS, neverGenerated, type ModelSpec } from './contract'
import { encoderGraph, greedyLoopGraph, K_INPUT, splitStep, stepGraph, valueInfo, type TopKOptions } from './graph-surgery'
import { extractPart, OnnxParseError, parseOnnx, serializeWith, type OnnxFile } from './onnx-graph'
import { TensorProto_DataType, type GraphProto, type ValueInfoProto } from './onnx-proto'

import { MAX_MODEL_BYTES } from './limits'
export { MAX_MODEL_BYTES }

export interface OpenOptions {
  /**
   * Run the parts exactly as cut from the file, without the graph surgery (keys once per
   * sentence, top-k in the graph, the greedy loop): the reference the tests compare against.
   */
  plain?: boolean
}

/** The sessions of one model. */
interface Sessions {
  encoder: ort.InferenceSession
  step: ort.InferenceSession
  /** The whole greedy decode as one graph (translation models after surgery), else null. */
  greedy: ort.InferenceSession | null
  /** Per-sentence step values the encoder part returns and the step part reads. */
  keys: string[]
  /** Why the surgery was not applied to a translation model, or null. */
  note: string | null
}

/** A model file opened under the contract: one ORT session per part, created once, reused. */
export class LoadedModel {
  /** The inputs the step part declares: only these are fed. */
  readonly stepInputs: Set<string>
  readonly encoder: ort.InferenceSession
  readonly step: ort.InferenceSession
  readonly greedy: ort.InferenceSession | null
  readonly keys: string[]
  /** The step part returns top-k ids and log-probabilities (input `al_k`): logits stay in the graph. */
  readonly topKInGraph: boolean
  /** Set when a translation model decodes step by step in JavaScript because its graph could not be rewritten. */
  readonly surgeryNote: string | null

  private constructor(
    readonly path: string,
    readonly spec: ModelSpec,
    sessions: Sessions,
    readonly provider: string,
    readonly providerNote: string | null,
  ) {
    this.encoder = sessions.encoder
    this.step = sessions.step
    this.greedy = sessions.greedy
    this.keys = sessions.keys
    this.surgeryNote = sessions.note
    this.stepInputs = new Set(this.step.inputNames)
    this.topKInGraph = this.stepInputs.has(K_INPUT)
  }

  static async open(path: string, provider = 'cpu', opts: OpenOptions = {}): Promise<LoadedModel> {
    const info = await stat(path).catch(() => null)
    if (!info) throw new ContractError(`The file ${path} does not exist.`)
    if (info.isDirectory()) throw new ContractError(`${path} is a folder, not a model file.`)
    if (info.size === 0) throw new ContractError('The file is empty.')
    if (info.size > MAX_MODEL_BYTES) {
      throw new ContractError(`The file is ${(info.size / 2 ** 20).toFixed(0)} MB, more than the 512 MB this app opens.`)
    }
    const bytes = new Uint8Array(await readFile(path))
    let file
    try {
      file = parseOnnx(bytes)
    } catch (e) {
      if (e instanceof OnnxParseError) throw new ContractError(`The file is not an ONNX model: ${e.message}.`)
      throw e
    }
    const spec = checkContract(file)
    const plain = opts.plain || spec.task !== 'translation'
    if (provider !== 'cpu') {
      try {
        return new LoadedModel(path, spec, await sessions(file, spec, provider, plain), provider, null)
      } catch (e) {
        // A GPU provider that cannot start (no adapter, no driver, library missing) is not fatal.
        const note = `${provider} could not start (${providerReason(e)}); running on CPU.`
        const s = await sessions(file, spec, 'cpu', plain).catch((err: unknown) => {
          throw new ContractError(`onnxruntime could not load the model: ${ortReason(err)}.`)
        })
        return new LoadedModel(path, spec, s, 'cpu', note)
      }
    }
    const s = await sessions(file, spec, 'cpu', plain).catch((err: unknown) => {
      throw new ContractError(`onnxruntime could not load the model: ${ortReason(err)}.`)
    })
    return new LoadedModel(path, spec, s, 'cpu', null)
  }

  async release(): Promise<void> {
    await this.encoder.release()
    await this.step.release()
    await this.greedy?.release()
  }
}

// onnxruntime's process-wide logger prints a provider that fails to load (the CUDA library not
// installed) as an [E:onnxruntime…] line on stderr, though the failure also reaches us as an
// exception that the fallback turns into one readable line. Sessions keep their own level below.
ort.env.logLevel = 'fatal'

function sessionOptions(provider: string): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: [provider],
    graphOptimizationLevel: 'all',
    // One thread per session: the step graphs are small, and thread hand-offs cost more than they save.
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    // Every failure reaches the user as one sentence (a provider that cannot start, a run that
    // fails: ortReason, the fallback line); onnxruntime's own multi-line log would only repeat it.
    logSeverityLevel: 4,
  }
}

/** Creates sessions one after the other, releasing those already made when one fails. */
async function createAll(parts: Uint8Array[], options: ort.InferenceSession.SessionOptions): Promise<ort.InferenceSession[]> {
  const made: ort.InferenceSession[] = []
  try {
    for (const p of parts) made.push(await ort.InferenceSession.create(p, options))
    return made
  } catch (e) {
    for (const m of made) await m.release()
    throw e
  }
}

/**
 * The sessions of a model: the parts as cut from the file (`plain`), or, for a translation model,
 * the parts after graph surgery (src/engine/graph-surgery.ts). A graph the surgery cannot rewrite
 * still opens plain, and says why in `note`; a graph onnxruntime cannot load fails either way.
 */
async function sessions(file: OnnxFile, spec: ModelSpec, provider: string, plain: boolean): Promise<Sessions> {
  const options = sessionOptions(provider)
  const plainParts = () => [extractPart(file, [...ENCODER_OUTPUTS]), extractPart(file, spec.stepOutputs)]
  if (!plain) {
    try {
      return await rewritten(file, spec, options)
    } catch (e) {
      const [encoder, step] = await createAll(plainParts(), options)
      return { encoder, step, greedy: null, keys: [], note: `decoding step by step: the graph could not be rewritten (${firstLine(e)})` }
    }
  }
  const [encoder, step] = await createAll(plainParts(), options)
  return { encoder, step, greedy: null, keys: [], note: null }
}

async function rewritten(file: OnnxFile, spec: ModelSpec, options: ort.InferenceSession.SessionOptions): Promise<Sessions> {
  const graph = file.model.graph as GraphProto
  const opset = Number(file.model.opsetImport.find((o) => o.domain === '' || o.domain === 'ai.onnx')?.version ?? 0)
  if (opset < 11) throw new Error(`opset ${opset} is older than 11`)
  const topK: TopKOptions = { vocabSize: spec.tgtVocab.length, masked: neverGenerated(spec) }
  let keys = splitStep(graph, spec.stepOutputs, ENCODER_OUTPUTS).keys
  let [encoder] = await createAll([serializeWith(file, encoderGraph(graph, ENCODER_OUTPUTS, keys))], options)
  let keyInfo: ValueInfoProto[]
  try {
    keyInfo = await probeKeys(encoder, spec, keys)
  } catch (e) {
    await encoder.release()
    throw e
  }
  if (keyInfo.length < keys.length) {
    // A per-sentence value that is not a float32 [B, …] tensor cannot be tiled for beam search:
    // keep every key in the step part.
    await encoder.release()
    keys = []
    keyInfo = []
    ;[encoder] = await createAll([serializeWith(file, encoderGraph(graph, ENCODER_OUTPUTS, []))], options)
  }
  try {
    const loop = greedyLoopGraph(graph, spec.stepOutputs, ENCODER_OUTPUTS, {
      ...topK,
      bos: spec.special.bos,
      eos: spec.special.eos,
      captures: spec.stepOutputs.filter((o) => o !== 'logits' && o !== 'next_state'),
      heads: spec.heads,
    })
    const [step, greedy] = await createAll([serializeWith(file, stepGraph(graph, spec.stepOutputs, keyInfo, topK)), serializeWith(file, loop)], options)
    return { encoder, step, greedy, keys, note: null }
  } catch (e) {
    await encoder.release()
    throw e
  }
}

/**
 * Runs the rewritten encoder on a two-sentence batch and types each key from what comes back:
 * only float32 tensors whose first dimension is the batch qualify.
 */
async function probeKeys(encoder: ort.InferenceSession, spec: ModelSpec, keys: string[]): Promise<ValueInfoProto[]> {
  if (keys.length === 0) return []
  const { eos, pad } = spec.special
  const feeds: Record<string, ort.Tensor> = {
    src_ids: new ort.Tensor('int64', BigInt64Array.from([eos, pad, pad, eos, eos, eos].map(BigInt)), [2, 3]),
    src_mask: new ort.Tensor('float32', Float32Array.from([1, 0, 0, 1, 1, 1]), [2, 3]),
  }
  const o = await encoder.run(Object.fromEntries(encoder.inputNames.map((n) => [n, feeds[n]])))
  const info: ValueInfoProto[] = []
  for (const k of keys) {
    const t = o[k] as ort.Tensor
    if (t.type !== 'float32' || t.dims.length === 0 || t.dims[0] !== 2) continue
    info.push(
      valueInfo(
        k,
        TensorProto_DataType.FLOAT,
        t.dims.map((_, i) => (i === 0 ? 'batch' : `${k}:${i}`)),
      ),
    )
  }
  return info
}

/** The readable part of onnxruntime's provider error ("Failed to get a WebGPU adapter: …"). */
function providerReason(e: unknown): string {
  const msg = firstLine(e)
  const m = msg.match(/(Failed to [^\n]*?|[^ ]*Failed to load shared library)(\.|$)/)
  return (m ? m[1] : msg).slice(0, 160)
}

/**
 * The readable part of an onnxruntime error, without its source path, C++ signature and status
 * prefix: "/…/graph.cc:1404 onnxruntime::Graph::Graph(…) This is an invalid model. …" →
 * "This is an invalid model. …".
 */
export function ortReason(e: unknown): string {
  let msg = firstLine(e)
  const status = msg.lastIndexOf('[ONNXRuntimeError]')
  if (status >= 0) msg = msg.slice(status).replace(/^\[ONNXRuntimeError\]\s*:\s*\d+\s*:\s*\w+\s*:\s*/, '')
  const sig = msg.search(/\) [A-Z][^)]*$/)
  if (/^\S+\.(cc|h|cpp):\d+ [\w:~]+\(/.test(msg) && sig >= 0) msg = msg.slice(sig + 2)
  msg = msg.replace(/^\S+\.(cc|h|cpp):\d+ (\w+ )?/, '')
  return msg.length > 200 ? msg.slice(0, 199) + '…' : msg
}

export function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e)
  return msg.split('\n')[0].replace(/[.\s]+$/, '')
}
