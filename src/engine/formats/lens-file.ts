import { stat } from 'node:fs/promises'
import * as ort from '../onnxruntime'
import { checkContract, ContractError, ENCODER_OUTPUTS, neverGenerated, type ModelSpec } from '../contract'
import { encoderGraph, greedyLoopGraph, splitStep, stepGraph, valueInfo, type TopKOptions } from '../graph-surgery'
import { extractPart, serializeWith, type OnnxFile } from '../onnx-graph'
import { TensorProto_DataType, type GraphProto, type ValueInfoProto } from '../onnx-proto'
import { checkMemory } from '../memory'
import { readModelFile, readSlimModel } from './model-bytes'
import { createAll, firstLine, sessionOptions, withProvider } from './ort-sessions'
import type { ModelFormat, OpenedModel, OpenOptions } from './types'

/** The app's own format: one ONNX file written to docs/model-format.md's contract. */
export const lensFile: ModelFormat = {
  id: 'attention-lens',
  // The last entry: whatever no other format claims is read as one of ours, and refused with the contract's reasons.
  match: () => Promise.resolve(true),
  describe: describeLensFile,
  open: openLensFile,
}

/**
 * The spec for the model list, from the file read without its weights (readSlimModel: the graph
 * and the metadata, by position). Listing the bundled models read and scanned all 104 MB of their
 * weights at every start of the engine (about 0.5 CPU s), and a large model on the recent list
 * every byte of it. The weights' own checks (NaN, infinities, external data) are made on opening.
 */
async function describeLensFile(path: string): Promise<ModelSpec> {
  // Named as opening names it: a file that is no model is refused in the same words either way.
  return checkContract((await readSlimModel(path, 'The file')).file, { weights: false })
}

async function openLensFile(path: string, provider: string, opts: OpenOptions = {}): Promise<OpenedModel> {
  // Its parts are cut from the file in memory (extractPart): refused before reading if they will not fit.
  const size = (await stat(path).catch(() => null))?.size
  if (size) checkMemory('The model', size)
  const file = await readModelFile(path)
  const spec = checkContract(file)
  const plain = opts.plain || spec.task !== 'translation'
  const {
    made,
    provider: used,
    note,
  } = await withProvider(
    provider,
    (p) => sessions(file, spec, p, plain),
    (reason) => new ContractError(`onnxruntime could not load the model: ${reason}.`),
  )
  return { spec, ...made, provider: used, providerNote: note, format: lensFile.id, details: [] }
}

/** The sessions of a model. */
interface Sessions {
  encoder: ort.InferenceSession
  step: ort.InferenceSession
  greedy: ort.InferenceSession | null
  keys: string[]
  /** Why the surgery was not applied to a translation model, or null. */
  note: string | null
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
