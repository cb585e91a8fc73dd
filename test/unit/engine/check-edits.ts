/**
 * Graph edits that turn a valid model into one with a known defect, for the tests of
 * src/engine/check.ts. Each works on the ModelProto (onnx-buf schema) that test/helpers.ts's
 * `editedModel` hands over.
 */
import {
  AttributeProto_AttributeType,
  AttributeProtoSchema,
  create,
  NodeProtoSchema,
  TensorProto_DataLocation,
  TensorProto_DataType,
  TensorProtoSchema,
  TensorShapeProto_DimensionSchema,
  TensorShapeProtoSchema,
  TypeProto_TensorSchema,
  TypeProtoSchema,
  ValueInfoProtoSchema,
  type ModelProto,
  type TensorProto,
} from '../../../src/engine/onnx-proto'
import { tensorTypeOf } from '../../helpers'

let counter = 0
const fresh = (base: string) => `${base}__edit${counter++}`

/** A float32 (or int64) initializer; returns its name. */
export function constant(m: ModelProto, values: number[], dims: number[] = [values.length], dataType: number = TensorProto_DataType.FLOAT): string {
  const name = fresh('const')
  const raw =
    dataType === TensorProto_DataType.INT64 ? new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer) : new Uint8Array(Float32Array.from(values).buffer)
  m.graph!.initializer.push(create(TensorProtoSchema, { name, dataType, dims: dims.map(BigInt), rawData: raw }))
  return name
}

export function node(m: ModelProto, opType: string, input: string[], output: string[], ints: Record<string, number[]> = {}): void {
  const attribute = Object.entries(ints).map(([name, v]) =>
    v.length === 1 && name !== 'axes'
      ? create(AttributeProtoSchema, { name, type: AttributeProto_AttributeType.INT, i: BigInt(v[0]) })
      : create(AttributeProtoSchema, { name, type: AttributeProto_AttributeType.INTS, ints: v.map(BigInt) }),
  )
  m.graph!.node.push(create(NodeProtoSchema, { name: fresh(opType), opType, input, output, attribute }))
}

/**
 * Changes what the model reports as `value` and nothing else: the producer's output is renamed,
 * the nodes that read it keep reading the original, and `build` writes the old name from it.
 */
export function after(m: ModelProto, value: string, build: (raw: string) => void): void {
  const raw = fresh(value)
  for (const n of m.graph!.node) n.output = n.output.map((o) => (o === value ? raw : o))
  for (const n of m.graph!.node) n.input = n.input.map((i) => (i === value ? raw : i))
  build(raw)
}

/** Every node that reads `from` reads `to` instead (nodes added afterwards are not touched). */
export function rewire(m: ModelProto, from: string, to: string): void {
  for (const n of m.graph!.node) n.input = n.input.map((i) => (i === from ? to : i))
}

/** Sets one axis of the named graph inputs and outputs to a fixed size. */
/** The translation tensors whose first axis is the batch: fixing it to 1 makes a batch-1 model. */
export const BATCH_TENSORS = [
  'src_ids',
  'src_mask',
  'encoder_states',
  'state',
  'prev_token',
  'attn_override',
  'override_on',
  'encoder_out',
  'decoder_init',
  'logits',
  'next_state',
  'attention',
  'scores',
]

export function fixAxis(m: ModelProto, names: string[], axis: number, size: number): void {
  for (const v of [...m.graph!.input, ...m.graph!.output]) {
    if (!names.includes(v.name)) continue
    const dim = tensorTypeOf(v).shape?.dim[axis]
    if (dim) dim.value = { case: 'dimValue', value: BigInt(size) }
  }
}

/** A new float32 graph input of the given shape (strings are symbolic axes). */
export function addInput(m: ModelProto, name: string, dims: (string | number)[], elemType: number = TensorProto_DataType.FLOAT): void {
  const dim = dims.map((d) =>
    create(TensorShapeProto_DimensionSchema, { value: typeof d === 'number' ? { case: 'dimValue', value: BigInt(d) } : { case: 'dimParam', value: d } }),
  )
  const tensorType = create(TypeProto_TensorSchema, { elemType, shape: create(TensorShapeProtoSchema, { dim }) })
  m.graph!.input.push(create(ValueInfoProtoSchema, { name, type: create(TypeProtoSchema, { value: { case: 'tensorType', value: tensorType } }) }))
}

/** Removes a graph input and gives its readers a constant instead (a model exported without it). */
export function inputToConstant(m: ModelProto, name: string, values: number[], dims: number[]): void {
  m.graph!.input = m.graph!.input.filter((v) => v.name !== name)
  rewire(m, name, constant(m, values, dims))
}

function initializer(m: ModelProto, name: string): TensorProto {
  const t = m.graph!.initializer.find((x) => x.name === name)
  if (!t) throw new Error(`no initializer ${name}`)
  return t
}

/** IEEE half precision bits of a float (NaN and infinities included). */
export function toHalf(x: number): number {
  const f = new Float32Array([x])
  const b = new Uint32Array(f.buffer)[0]
  const sign = (b >>> 16) & 0x8000
  const exp = (b >>> 23) & 0xff
  const mant = b & 0x7fffff
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0)
  const e = exp - 127 + 15
  if (e >= 0x1f) return sign | 0x7c00
  if (e <= 0) return sign
  return sign | (e << 10) | (mant >> 13)
}

/**
 * Stores a float32 weight in another float type and casts it back in the graph, as a model
 * exported in half precision does; `poison` sets one value (NaN, Infinity) on the way.
 */
export function storeAs(m: ModelProto, name: string, dataType: number, poison?: number): void {
  const t = initializer(m, name)
  const values = Array.from(new Float32Array(Uint8Array.from(t.rawData).buffer))
  if (poison !== undefined) values[3] = poison
  let raw: Uint8Array<ArrayBuffer>
  if (dataType === TensorProto_DataType.FLOAT16) raw = new Uint8Array(Uint16Array.from(values.map(toHalf)).buffer)
  else if (dataType === TensorProto_DataType.BFLOAT16)
    raw = new Uint8Array(Uint16Array.from(values.map((x) => new Uint32Array(Float32Array.of(x).buffer)[0] >>> 16)).buffer)
  else if (dataType === TensorProto_DataType.DOUBLE) raw = new Uint8Array(Float64Array.from(values).buffer)
  else throw new Error('float16, bfloat16 or double')
  const stored = `${name}__stored`
  m.graph!.initializer.push(create(TensorProtoSchema, { name: stored, dataType, dims: t.dims, rawData: raw }))
  m.graph!.initializer = m.graph!.initializer.filter((x) => x !== t)
  node(m, 'Cast', [stored], [name], { to: [TensorProto_DataType.FLOAT] })
}

/** Moves a weight's values out of the file, as onnx's save_as_external_data does. */
export function externalise(m: ModelProto, name: string): void {
  const t = initializer(m, name)
  t.rawData = new Uint8Array()
  t.dataLocation = TensorProto_DataLocation.EXTERNAL
  t.externalData = [{ $typeName: 'onnx.StringStringEntryProto', key: 'location', value: 'model.onnx.data' }]
}

/** NaN at run time from finite weights: (x − x) / (x − x). */
export function nanOf(m: ModelProto, value: string): void {
  after(m, value, (raw) => {
    const zero = fresh('zero')
    node(m, 'Sub', [raw, raw], [zero])
    node(m, 'Div', [zero, zero], [value])
  })
}

/** value ← value ∘ c for a binary op (Mul, Add) and a constant. */
export function scale(m: ModelProto, value: string, op: 'Mul' | 'Add', c: number): void {
  after(m, value, (raw) => node(m, op, [raw, constant(m, [c], [1])], [value]))
}
