import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import * as ort from './onnxruntime'
import type { ProviderInfo } from '../shared/api'

const LABELS: Record<string, string> = {
  cpu: 'CPU',
  webgpu: 'WebGPU',
  cuda: 'CUDA (NVIDIA)',
  tensorrt: 'TensorRT (NVIDIA)',
  dml: 'DirectML (Windows)',
  coreml: 'Core ML (macOS)',
}

// The provider libraries onnxruntime-node loads for the providers it does not bundle.
const LIBRARIES: Record<string, string> = {
  cuda: 'libonnxruntime_providers_cuda.so',
  tensorrt: 'libonnxruntime_providers_tensorrt.so',
}

function binDir(): string | null {
  try {
    const req = createRequire(typeof __filename === 'string' ? __filename : import.meta.url)
    const root = dirname(req.resolve('onnxruntime-node/package.json'))
    return join(root, 'bin', 'napi-v6', process.platform, process.arch)
  } catch {
    return null
  }
}

/** What this machine's onnxruntime-node offers; `installed` says whether it can be tried at all. */
export function listProviders(): ProviderInfo[] {
  const dir = binDir()
  return ort.listSupportedBackends().map(({ name, bundled }) => ({
    name,
    label: LABELS[name] ?? name,
    bundled,
    installed: bundled || (dir !== null && LIBRARIES[name] !== undefined && existsSync(join(dir, LIBRARIES[name]))),
  }))
}

export function isKnownProvider(name: string): boolean {
  return name === 'cpu' || ort.listSupportedBackends().some((b) => b.name === name)
}
