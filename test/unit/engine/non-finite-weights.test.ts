import { describe, expect, it } from 'vitest'
import { nonFiniteWeights } from '../../../src/engine/contract'
import type { OnnxFile } from '../../../src/engine/onnx-graph'
import { create, GraphProtoSchema, ModelProtoSchema, TensorProto_DataType as T, TensorProtoSchema } from '../../../src/engine/onnx-proto'

/** `values` as little-endian raw_data of one tensor, starting `offset` bytes into a larger buffer (as in a file read whole). */
function fileWith(dataType: number, width: number, values: number[], offset: number): OnnxFile {
  const buf = new Uint8Array(offset + values.length * width + 3)
  const view = new DataView(buf.buffer, offset)
  values.forEach((v, i) => {
    if (width === 8) view.setFloat64(i * 8, v, true)
    else if (width === 4) view.setFloat32(i * 4, v, true)
    else view.setUint16(i * 2, v, true)
  })
  const t = create(TensorProtoSchema, { name: 'w', dataType, dims: [BigInt(values.length)], rawData: buf.subarray(offset, offset + values.length * width) })
  return {
    model: create(ModelProtoSchema, { graph: create(GraphProtoSchema, { initializer: [t] }) }),
    metadata: new Map(),
    inputs: new Map(),
    outputs: new Map(),
  }
}

// Each format's largest finite value, infinity and a NaN (float16 and bfloat16 as their bits).
const FORMATS = [
  { name: 'float32', type: T.FLOAT, width: 4, max: 3.4028234663852886e38, inf: Infinity, nan: NaN },
  { name: 'float64', type: T.DOUBLE, width: 8, max: Number.MAX_VALUE, inf: Infinity, nan: NaN },
  { name: 'float16', type: T.FLOAT16, width: 2, max: 0x7bff, inf: 0x7c00, nan: 0x7e00 },
  { name: 'bfloat16', type: T.BFLOAT16, width: 2, max: 0x7f7f, inf: 0x7f80, nan: 0x7fc0 },
]

describe('nonFiniteWeights on raw_data at any offset of the file', () => {
  for (const f of FORMATS) {
    it(`${f.name}: the largest finite values pass, NaN and several infinities are found`, () => {
      for (const offset of [0, 1, 2, 3, 5]) {
        const negMax = f.width === 2 ? f.max | 0x8000 : -f.max
        expect(nonFiniteWeights(fileWith(f.type, f.width, [1, f.max, negMax, 0], offset)), `offset ${offset}`).toBeNull()
        expect(nonFiniteWeights(fileWith(f.type, f.width, [1, 2, f.nan], offset)), `offset ${offset}`).toBe('w')
        expect(nonFiniteWeights(fileWith(f.type, f.width, [f.inf, 2, 3], offset)), `offset ${offset}`).toBe('w')
        // A lone infinite scalar is a masking constant, allowed; a lone NaN is not.
        expect(nonFiniteWeights(fileWith(f.type, f.width, [f.inf], offset)), `offset ${offset}`).toBeNull()
        expect(nonFiniteWeights(fileWith(f.type, f.width, [f.nan], offset)), `offset ${offset}`).toBe('w')
      }
    })
  }
})
