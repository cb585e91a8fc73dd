import { readFile, stat } from 'node:fs/promises'
import * as ort from 'onnxruntime-node'
import { checkContract, ContractError, ENCODER_OUTPUTS, type ModelSpec } from './contract'
import { extractPart, OnnxParseError, parseOnnx } from './onnx-graph'

/** Files above this size are refused before reading: the bundled models are under 10 MB. */
export const MAX_MODEL_BYTES = 512 * 1024 * 1024

/** A model file opened under the contract: one ORT session per part, created once, reused. */
export class LoadedModel {
  /** The inputs the step part declares: only these are fed. */
  readonly stepInputs: Set<string>

  private constructor(
    readonly path: string,
    readonly spec: ModelSpec,
    readonly encoder: ort.InferenceSession,
    readonly step: ort.InferenceSession,
    readonly provider: string,
  ) {
    this.stepInputs = new Set(step.inputNames)
  }

  static async open(path: string, provider = 'cpu'): Promise<LoadedModel> {
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
    const options: ort.InferenceSession.SessionOptions = {
      executionProviders: [provider],
      graphOptimizationLevel: 'all',
      intraOpNumThreads: 1,
    }
    let encoder: ort.InferenceSession | undefined
    try {
      encoder = await ort.InferenceSession.create(extractPart(file, [...ENCODER_OUTPUTS]), options)
      const step = await ort.InferenceSession.create(extractPart(file, spec.stepOutputs), options)
      return new LoadedModel(path, spec, encoder, step, provider)
    } catch (e) {
      await encoder?.release()
      throw new ContractError(`onnxruntime could not load the model: ${firstLine(e)}.`)
    }
  }

  async release(): Promise<void> {
    await this.encoder.release()
    await this.step.release()
  }
}

export function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e)
  return msg.split('\n')[0].replace(/[.\s]+$/, '')
}
