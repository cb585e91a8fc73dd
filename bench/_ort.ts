import * as ort from 'onnxruntime-node'
import { readFileSync, existsSync } from 'node:fs'
const DEC = '/tmp/al-prof-cache/aa279f202719a0e3a5e12d51920d11ef.0.onnx'
const ENC = '/tmp/opus-mt-size/onnx/encoder_model.onnx'
const base: ort.InferenceSession.SessionOptions = { executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 4 }
async function main() {
  for (const [src, dst] of [[DEC, '/tmp/dec.ort'], [ENC, '/tmp/enc.ort']]) if (!existsSync(dst)) {
    const s = await ort.InferenceSession.create(src, { ...base, optimizedModelFilePath: dst, extra: { session: { save_model_format: 'ORT' } } } as never)
    await s.release()
  }
  const modes: Record<string, () => Promise<ort.InferenceSession>> = {
    onnxPath: () => ort.InferenceSession.create(DEC, base),
    ortPath: () => ort.InferenceSession.create('/tmp/dec.ort', base),
    ortBytes: () => ort.InferenceSession.create(readFileSync('/tmp/dec.ort'), { ...base, extra: { session: { use_ort_model_bytes_directly: '1', use_ort_model_bytes_for_initializers: '1' } } } as never),
    encOnnx: () => ort.InferenceSession.create(ENC, base),
    encOrtBytes: () => ort.InferenceSession.create(readFileSync('/tmp/enc.ort'), { ...base, extra: { session: { use_ort_model_bytes_directly: '1', use_ort_model_bytes_for_initializers: '1' } } } as never),
  }
  const times: Record<string, number[]> = {}
  for (let r = 0; r < 4; r++) for (const [k, f] of Object.entries(modes)) {
    const t0 = performance.now(); const s = await f(); (times[k] ??= []).push(performance.now() - t0); await s.release()
  }
  for (const [k, v] of Object.entries(times)) console.log(k.padEnd(12), v.map((x) => x.toFixed(0)).join(' '))
}
void main()
