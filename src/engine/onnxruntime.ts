/**
 * onnxruntime-node as the engine uses it: float16 tensors hold their bits in a Uint16Array.
 *
 * onnxruntime-common decides once, as it makes its first tensor, how float16 data is held: in a
 * Float16Array where the runtime has one (Node 24, and Electron 40 and later, whose Node is 24),
 * else in a Uint16Array of the bits. onnxruntime-node 1.30's binding reads a Float16Array input as
 * 0 bytes, so an fp16 export with float16 inputs failed its first run on those runtimes ("not enough
 * space: expected 3328, got 0"; microsoft/onnxruntime PR #32323, open). The engine makes its first
 * tensor here, with Float16Array out of sight for that moment: float16 data then stays the
 * Uint16Array of bits the engine gives and reads (hf/parts.ts), on every runtime. Every engine
 * module takes onnxruntime from here, so this runs before any of them makes a tensor.
 */
import * as ort from 'onnxruntime-node'

const scope = globalThis as { Float16Array?: unknown }
const float16Array = Object.getOwnPropertyDescriptor(scope, 'Float16Array')
if (float16Array) {
  delete scope.Float16Array
  try {
    new ort.Tensor('float32', new Float32Array(0), [0])
  } finally {
    Object.defineProperty(scope, 'Float16Array', float16Array)
  }
}

export * from 'onnxruntime-node'
