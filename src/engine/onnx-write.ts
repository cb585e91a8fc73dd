import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire'
import { GraphProtoSchema, ModelProtoSchema, TensorProtoSchema, toBinary, type ModelProto, type TensorProto } from './onnx-proto'

export const GRAPH_FIELD = ModelProtoSchema.field.graph.number
const INITIALIZER_FIELD = GraphProtoSchema.field.initializer.number
const RAW_DATA_FIELD = TensorProtoSchema.field.rawData.number
/** Weights smaller than this are written with their tensor: splicing them saves nothing. */
const SPLICE_FROM = 4096

/**
 * A model as bytes for onnxruntime, with each weight's bytes copied once, straight into the result.
 * protobuf-es writes a message into a buffer it doubles as it fills, shifts a payload to make room
 * for a length longer than it reserved, and copies the whole out at the end: every weight of a
 * graph cut from a model was copied four to six times, 14–21 ms of the ~100 ms a bundled RNN takes
 * to open (three graphs are cut from each; 6–7 ms here). Here the messages around the weights are written by
 * protobuf-es without them, and the weights are laid in after, as length-delimited fields: the same
 * message to any protobuf reader (a field may come after the others, and a repeated field keeps
 * its order), of the same length.
 */
export function modelBytes(model: ModelProto): Uint8Array {
  const { graph, ...rest } = model
  const pieces: Uint8Array[] = [toBinary(ModelProtoSchema, rest as ModelProto)]
  if (graph) {
    const inGraph: Uint8Array[] = [toBinary(GraphProtoSchema, { ...graph, initializer: [] })]
    for (const t of graph.initializer) inGraph.push(...delimited(INITIALIZER_FIELD, tensorPieces(t)))
    pieces.push(...delimited(GRAPH_FIELD, inGraph))
  }
  return concatBytes(pieces)
}

/** A tensor's fields, its raw bytes (when large) a piece of their own, not copied. */
function tensorPieces(t: TensorProto): Uint8Array[] {
  if (t.rawData.length < SPLICE_FROM) return [toBinary(TensorProtoSchema, t)]
  // raw_data has explicit presence (ONNX is proto2): a message without the property leaves it out.
  const { rawData, ...rest } = t
  return [toBinary(TensorProtoSchema, rest as TensorProto), ...delimited(RAW_DATA_FIELD, [rawData])]
}

/** A length-delimited field as pieces: its tag and length, then the payload's pieces, not copied. */
export function delimited(number: number, payload: Uint8Array[]): Uint8Array[] {
  const length = payload.reduce((a, p) => a + p.length, 0)
  return [new BinaryWriter().tag(number, WireType.LengthDelimited).uint32(length).finish(), ...payload]
}

/** Typed arrays end to end as one, made by `make` (the piece itself where there is one). */
export function concatArrays<A extends Uint8Array | Float32Array>(pieces: A[], make: (length: number) => A): A {
  if (pieces.length === 1) return pieces[0]
  const out = make(pieces.reduce((a, p) => a + p.length, 0))
  let at = 0
  for (const p of pieces) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** Pieces of a file as one array (the piece itself where there is one). */
export function concatBytes(pieces: Uint8Array[]): Uint8Array {
  return concatArrays(pieces, (n) => new Uint8Array(n))
}
