import { spawnSync } from '../../spawn-sync'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { create, ModelProtoSchema, TensorProto_DataType, toBinary } from '../../../src/engine/onnx-proto'
import { ROOT, tempDir } from '../../helpers'

/** y = x + x, float16 in and out: as an fp16 export with float16 inputs (Optimum's --dtype fp16) takes them. */
function doubleFloat16(): string {
  const vector = (name: string) => ({
    name,
    type: {
      value: {
        case: 'tensorType' as const,
        value: { elemType: TensorProto_DataType.FLOAT16, shape: { dim: [{ value: { case: 'dimValue' as const, value: 3n } }] } },
      },
    },
  })
  const model = create(ModelProtoSchema, {
    irVersion: 10n,
    opsetImport: [{ domain: '', version: 18n }],
    graph: { name: 'double', input: [vector('x')], output: [vector('y')], node: [{ opType: 'Add', input: ['x', 'x'], output: ['y'] }] },
  })
  const path = join(tempDir(), 'double-fp16.onnx')
  writeFileSync(path, toBinary(ModelProtoSchema, model))
  return path
}

/** Runs the model in a process of its own (onnxruntime-common decides how it holds float16 once per process), with onnxruntime from `from`. */
function runIn(from: string, model: string): { bits?: number[]; array?: string; error?: string } {
  const code = `
    const ort = await import(${JSON.stringify(from)})
    try {
      const s = await ort.InferenceSession.create(${JSON.stringify(model)})
      const o = await s.run({ x: new ort.Tensor('float16', Uint16Array.of(0x3c00, 0xc000, 0x3800), [3]) })
      console.log(JSON.stringify({ bits: Array.from(o.y.data), array: o.y.data.constructor.name }))
    } catch (e) {
      console.log(JSON.stringify({ error: e.message }))
    }`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' })
  // A child that died before printing (an import that failed) says why.
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout.trim().split('\n').pop()!)
}

// Float16Array (Node 24, Electron 40 and later), and a Node that runs the engine's TypeScript as it is.
const float16Runtime =
  typeof (globalThis as { Float16Array?: unknown }).Float16Array === 'function' && !!(process.features as { typescript?: unknown }).typescript

describe('src/engine/onnxruntime', () => {
  it.runIf(float16Runtime)('runs a graph with float16 inputs where the runtime has Float16Array: its bits in, its bits out, in a Uint16Array', () => {
    const model = doubleFloat16()
    // 1 + 1, −2 + −2, 0.5 + 0.5 as float16 bits.
    expect(runIn(pathToFileURL(join(ROOT, 'src', 'engine', 'onnxruntime.ts')).href, model)).toEqual({ bits: [0x4000, 0xc400, 0x3c00], array: 'Uint16Array' })
    // What the engine met before: onnxruntime-node as it comes reads the input as 0 bytes. When this
    // fails, onnxruntime's binding reads Float16Array (microsoft/onnxruntime PR #32323) and the
    // engine's module can go.
    expect(runIn('onnxruntime-node', model).error).toMatch(/not enough space: expected 6, got 0/)
  })
})
