import { readFileSync } from 'node:fs'
import * as ort from '../../../src/engine/onnxruntime'
import { describe, expect, it } from 'vitest'
import { checkModelStructure, extractPart, OnnxParseError, parseOnnx } from '../../../src/engine/onnx-graph'
import { create, fromBinary, ModelProtoSchema, TensorProto_DataType, toBinary, type ValueInfoProtoSchema } from '../../../src/engine/onnx-proto'
import type { MessageInitShape } from '@bufbuild/protobuf'
import { ROOT, tiny } from '../../helpers'

const FLOAT = TensorProto_DataType.FLOAT
const vector = (name: string): MessageInitShape<typeof ValueInfoProtoSchema> => ({
  name,
  type: { value: { case: 'tensorType', value: { elemType: FLOAT, shape: { dim: [{ value: { case: 'dimValue', value: 3n } }] } } } },
})

/**
 * A two-part model shaped like the app's: `enc = x * w` (plain ops) and `out = lens.ScaleShift(y, w)`,
 * where ScaleShift is a model-local ONNX function (`Y = X * W + X`) in its own domain. Only the
 * second part calls the function, so only a cut that keeps ModelProto.functions and the `lens`
 * opset import gives onnxruntime a step part it can load.
 */
function functionModel(): Uint8Array {
  const model = create(ModelProtoSchema, {
    irVersion: 10n,
    producerName: 'attention-lens test',
    opsetImport: [
      { domain: '', version: 18n },
      { domain: 'lens', version: 1n },
    ],
    graph: {
      name: 'two-parts',
      input: [vector('x'), vector('y')],
      output: [vector('enc'), vector('out')],
      initializer: [{ name: 'w', dims: [3n], dataType: FLOAT, floatData: [2, 3, 4] }],
      node: [
        { opType: 'Mul', input: ['x', 'w'], output: ['enc'], name: 'encoder' },
        { opType: 'ScaleShift', domain: 'lens', input: ['y', 'w'], output: ['out'], name: 'step' },
      ],
    },
    functions: [
      {
        name: 'ScaleShift',
        domain: 'lens',
        input: ['X', 'W'],
        output: ['Y'],
        opsetImport: [{ domain: '', version: 18n }],
        node: [
          { opType: 'Mul', input: ['X', 'W'], output: ['t'] },
          { opType: 'Add', input: ['t', 'X'], output: ['Y'] },
        ],
      },
    ],
  })
  return toBinary(ModelProtoSchema, model)
}

const floats = (v: number[]) => new ort.Tensor('float32', Float32Array.from(v), [3])

describe('cutting a model into parts', () => {
  it('keeps the model-local functions, every opset import and the IR version, so a part that calls a function runs', async () => {
    const file = parseOnnx(functionModel())
    const encoderBytes = extractPart(file, ['enc'])
    const stepBytes = extractPart(file, ['out'])

    const encoder = await ort.InferenceSession.create(encoderBytes)
    const stepSession = await ort.InferenceSession.create(stepBytes)
    try {
      const enc = await encoder.run({ x: floats([1, 2, 3]) })
      expect([...(enc.enc.data as Float32Array)]).toEqual([2, 6, 12])
      const out = await stepSession.run({ y: floats([1, -1, 0.5]) })
      // y * w + y, worked out by hand: the function's body ran.
      expect([...(out.out.data as Float32Array)]).toEqual([3, -4, 2.5])
    } finally {
      await encoder.release()
      await stepSession.release()
    }

    const step = fromBinary(ModelProtoSchema, stepBytes)
    expect(step.irVersion).toBe(10n)
    expect(step.opsetImport.map((o) => [o.domain, o.version])).toEqual([
      ['', 18n],
      ['lens', 1n],
    ])
    expect(step.functions.map((f) => `${f.domain}.${f.name}`)).toEqual(['lens.ScaleShift'])
    // Each part reads only what its nodes read.
    expect(step.graph!.input.map((v) => v.name)).toEqual(['y'])
    expect(fromBinary(ModelProtoSchema, encoderBytes).graph!.input.map((v) => v.name)).toEqual(['x'])
  })

  it('carries fields this schema does not know (a newer ONNX) into each part', () => {
    // Field 99 of ModelProto, length-delimited, "abc": unknown to ONNX 1.20. Its tag (99 << 3 | 2)
    // is the varint 0x9a 0x06.
    const extra = Uint8Array.from([0x9a, 0x06, 3, 0x61, 0x62, 0x63])
    const withExtra = new Uint8Array([...functionModel(), ...extra])
    const part = extractPart(parseOnnx(withExtra), ['out'])
    expect(Buffer.from(part).includes(Buffer.from(extra))).toBe(true)
  })

  it('cuts the bundled fixture into parts that drop the metadata but keep the opset imports', () => {
    const file = parseOnnx(new Uint8Array(readFileSync(tiny('local-p'))))
    const part = fromBinary(ModelProtoSchema, extractPart(file, ['encoder_out', 'decoder_init']))
    expect(part.metadataProps).toEqual([])
    expect(part.irVersion).toBe(file.model.irVersion)
    expect(part.opsetImport).toEqual(file.model.opsetImport)
    expect(part.graph!.output.map((v) => v.name)).toEqual(['encoder_out', 'decoder_init'])
  })
})

describe('the first look at the bytes, before a full decode', () => {
  const refused = (bytes: Uint8Array) => {
    try {
      checkModelStructure(bytes)
    } catch (e) {
      expect(e).toBeInstanceOf(OnnxParseError)
      return (e as Error).message
    }
    return null
  }

  it('accepts the models', () => {
    expect(refused(functionModel())).toBeNull()
    expect(refused(readFileSync(tiny('bahdanau')))).toBeNull()
  })

  it('refuses text, an image, a cut file and a protobuf with no graph', () => {
    expect(refused(readFileSync(`${ROOT}/README.md`))).toMatch(/^its bytes are not an ONNX protobuf/)
    expect(refused(readFileSync(`${ROOT}/docs/images/heatmap-en-fr.png`))).toMatch(/^its bytes are not an ONNX protobuf/)
    const model = functionModel()
    expect(refused(model.subarray(0, model.length - 5))).toMatch(/^its bytes are not an ONNX protobuf \(premature EOF\)/)
    // A ModelProto holding only its IR version: well-formed, but no graph.
    expect(refused(Uint8Array.from([0x08, 0x0a]))).toBe('it holds no ONNX graph')
  })

  it('refuses a known field written with the wrong wire type', () => {
    // Field 7 (graph) as a varint: a protobuf, but not a ModelProto.
    expect(refused(Uint8Array.from([0x08, 0x0a, (7 << 3) | 0, 0x01]))).toMatch(/byte 2 does not start a ModelProto field/)
  })
})
