// onnx-proto is CommonJS whose named export Node's ESM loader cannot detect; reach it either way
// so the same code runs bundled (CJS) and from source (tsx, vitest).
import type { onnx as OnnxTypes } from 'onnx-proto'
import * as onnxProtoModule from 'onnx-proto'

const mod = onnxProtoModule as unknown as { onnx?: typeof OnnxTypes; default?: { onnx: typeof OnnxTypes } }
export const onnx: typeof OnnxTypes = mod.onnx ?? mod.default!.onnx
export type { OnnxTypes }
