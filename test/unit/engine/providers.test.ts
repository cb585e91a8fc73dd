import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { listProviders } from '../../../src/engine/providers'
import { InferenceService } from '../../../src/engine/service'
import { ROOT, tiny } from '../../helpers'

const services: InferenceService[] = []
afterAll(async () => {
  for (const s of services) await s.closeAll()
})
function service(provider: string): InferenceService {
  const s = new InferenceService(provider)
  services.push(s)
  return s
}

describe('execution providers', () => {
  it('lists what this onnxruntime offers: CPU and WebGPU bundled', () => {
    const ps = listProviders()
    expect(ps.find((p) => p.name === 'cpu')).toMatchObject({ bundled: true, installed: true })
    expect(ps.find((p) => p.name === 'webgpu')).toMatchObject({ bundled: true, installed: true })
    for (const p of ps) expect(p.label.length).toBeGreaterThan(0)
  })

  it('a GPU provider that cannot start falls back to CPU and says so in one line', async () => {
    const cpu = await service('cpu').translate(tiny('bahdanau'), 'A dog runs.')
    const gpu = service('webgpu')
    const info = await gpu.open(tiny('bahdanau'))
    if (info.provider === 'webgpu') {
      expect(info.providerNote).toBeNull() // a machine with a WebGPU adapter
    } else {
      expect(info.provider).toBe('cpu')
      expect(info.providerNote).toMatch(/^webgpu could not start \(.+\); running on CPU\.$/)
      expect(info.providerNote).not.toContain('\n')
    }
    const t = await gpu.translate(tiny('bahdanau'), 'A dog runs.')
    expect(t.tgtTokens).toEqual(cpu.tgtTokens)
  })

  // Whether CUDA can run here, found without the app's code: onnxruntime-node's CUDA provider
  // library (README "With network") and an NVIDIA driver with a GPU. The test then asks for exactly
  // that outcome, so it fails both where CUDA should run and does not and where it falls back wrongly.
  const ortBin = join(ROOT, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v6', process.platform, process.arch)
  const cudaLibrary = existsSync(join(ortBin, 'libonnxruntime_providers_cuda.so'))
  const gpus = '/proc/driver/nvidia/gpus'
  const nvidiaGpu = existsSync(gpus) && readdirSync(gpus).length > 0
  const cudaRuns = cudaLibrary && nvidiaGpu
  it(`CUDA ${cudaRuns ? 'runs' : 'falls back to CPU in one line'} here (provider library ${cudaLibrary ? 'present' : 'absent'}, NVIDIA GPU ${nvidiaGpu ? 'present' : 'absent'})`, async () => {
    expect(listProviders().find((p) => p.name === 'cuda')?.installed ?? false).toBe(cudaLibrary)
    const cpu = await service('cpu').translate(tiny('none'), 'A dog runs.')
    const cuda = service('cuda')
    const info = await cuda.open(tiny('none'))
    if (cudaRuns) expect([info.provider, info.providerNote]).toEqual(['cuda', null])
    else {
      expect(info.provider).toBe('cpu')
      expect(info.providerNote).toMatch(/^cuda could not start \(.+\); running on CPU\.$/)
      // Without the library, the reason names the library that could not be loaded.
      if (!cudaLibrary) expect(info.providerNote).toMatch(/shared library|libonnxruntime_providers/)
    }
    expect((await cuda.translate(tiny('none'), 'A dog runs.')).tgtTokens).toEqual(cpu.tgtTokens)
  })

  it('refuses a provider name onnxruntime does not know', async () => {
    await expect(service('cpu').setProvider('quantum')).rejects.toThrow('"quantum" is not an execution provider this build of onnxruntime knows.')
  })
})
