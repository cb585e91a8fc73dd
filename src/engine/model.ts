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
    readonly providerNote: string | null,
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
    const parts = [extractPart(file, [...ENCODER_OUTPUTS]), extractPart(file, spec.stepOutputs)] as const
    if (provider !== 'cpu') {
      try {
        const [encoder, step] = await sessions(parts, provider)
        return new LoadedModel(path, spec, encoder, step, provider, null)
      } catch (e) {
        // A GPU provider that cannot start (no adapter, no driver, library missing) is not fatal.
        const note = `${provider} could not start (${providerReason(e)}); running on CPU.`
        const [encoder, step] = await sessions(parts, 'cpu').catch((err: unknown) => {
          throw new ContractError(`onnxruntime could not load the model: ${ortReason(err)}.`)
        })
        return new LoadedModel(path, spec, encoder, step, 'cpu', note)
      }
    }
    const [encoder, step] = await sessions(parts, 'cpu').catch((err: unknown) => {
      throw new ContractError(`onnxruntime could not load the model: ${ortReason(err)}.`)
    })
    return new LoadedModel(path, spec, encoder, step, 'cpu', null)
  }

  async release(): Promise<void> {
    await this.encoder.release()
    await this.step.release()
  }
}

// onnxruntime's process-wide logger prints a provider that fails to load (the CUDA library not
// installed) as an [E:onnxruntime…] line on stderr, though the failure also reaches us as an
// exception that the fallback turns into one readable line. Sessions keep their own level below.
ort.env.logLevel = 'fatal'

async function sessions(parts: readonly [Uint8Array, Uint8Array], provider: string): Promise<[ort.InferenceSession, ort.InferenceSession]> {
  const options: ort.InferenceSession.SessionOptions = {
    executionProviders: [provider],
    graphOptimizationLevel: 'all',
    // One thread per session: the step graphs are small, and thread hand-offs cost more than they save.
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    // A GPU provider that fails to start is reported by our fallback line; keep onnxruntime's own
    // error log for it off the console.
    logSeverityLevel: provider === 'cpu' ? 2 : 4,
  }
  const encoder = await ort.InferenceSession.create(parts[0], options)
  try {
    return [encoder, await ort.InferenceSession.create(parts[1], options)]
  } catch (e) {
    await encoder.release()
    throw e
  }
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
