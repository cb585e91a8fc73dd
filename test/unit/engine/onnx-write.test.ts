import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { equals } from '@bufbuild/protobuf'
import { describe, expect, it } from 'vitest'
import { create, fromBinary, ModelProtoSchema, TensorProtoSchema, toBinary, type ModelProto } from '../../../src/engine/onnx-proto'
import { modelBytes } from '../../../src/engine/onnx-write'
import { BUNDLED_MODELS, tiny } from '../../helpers'

/** What protobuf-es itself writes, read back: the message modelBytes must write too, at the same length. */
function sameAsProtobufEs(model: ModelProto): void {
  const ours = modelBytes(model)
  const theirs = toBinary(ModelProtoSchema, model)
  expect(ours.length).toBe(theirs.length)
  expect(equals(ModelProtoSchema, fromBinary(ModelProtoSchema, ours), fromBinary(ModelProtoSchema, theirs))).toBe(true)
}

describe('modelBytes: a model as bytes, each weight copied once', () => {
  it.each([join(BUNDLED_MODELS, 'en-fr-transformer.onnx'), join(BUNDLED_MODELS, 'en-fr-local-p.onnx'), tiny('bahdanau'), tiny('transformer')])(
    '%s: the same message as protobuf-es writes, of the same length',
    (path) => sameAsProtobufEs(fromBinary(ModelProtoSchema, readFileSync(path))),
  )

  it('keeps every kind of initializer in its order: large raw weights, small ones, typed lists, external data; and fields of a newer ONNX', () => {
    const raw = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff)
    const model = fromBinary(ModelProtoSchema, readFileSync(tiny('none')))
    model.graph!.initializer = [
      create(TensorProtoSchema, { name: 'big', dims: [4096n], dataType: 2, rawData: raw(4096, 1) }),
      create(TensorProtoSchema, { name: 'small', dims: [3n], dataType: 2, rawData: raw(3, 2) }),
      create(TensorProtoSchema, { name: 'floats', dims: [2n], dataType: 1, floatData: [1.5, -2] }),
      create(TensorProtoSchema, { name: 'outside', dims: [8n], dataType: 1, dataLocation: 1, externalData: [{ key: 'location', value: 'w.bin' }] }),
      create(TensorProtoSchema, { name: 'bigger', dims: [100000n], dataType: 2, rawData: raw(100000, 3) }),
    ]
    // A field this schema does not know (number 99, bytes), kept through a decode as $unknown.
    model.$unknown = [{ no: 99, wireType: 2, data: Uint8Array.of(3, 1, 2, 3) }]
    sameAsProtobufEs(model)
    const back = fromBinary(ModelProtoSchema, modelBytes(model))
    expect(back.graph!.initializer.map((t) => t.name)).toEqual(['big', 'small', 'floats', 'outside', 'bigger'])
    expect(back.graph!.initializer[4].rawData).toEqual(raw(100000, 3))
    expect(back.$unknown).toEqual(model.$unknown)
  })

  it('writes a model without a graph', () => {
    const model = fromBinary(ModelProtoSchema, readFileSync(tiny('none')))
    delete (model as Partial<ModelProto>).graph
    sameAsProtobufEs(model)
  })
})
