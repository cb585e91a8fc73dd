import { ScalarType, type DescField } from '@bufbuild/protobuf'
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire'
import {
  create,
  fromBinary,
  GraphProtoSchema,
  ModelProtoSchema,
  NodeProtoSchema,
  toBinary,
  ValueInfoProtoSchema,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type ValueInfoProto,
} from './onnx-proto'
import { concatBytes, delimited, GRAPH_FIELD, modelBytes } from './onnx-write'

/** A parsed ONNX file: the ModelProto plus what the contract checks read from it. */
export interface OnnxFile {
  model: ModelProto
  metadata: Map<string, string>
  inputs: Map<string, ValueShape>
  outputs: Map<string, ValueShape>
}

export interface ValueShape {
  /** onnx.TensorProto.DataType */
  elemType: number
  /** Static sizes as numbers, symbolic ones as their names, unknown as null. */
  dims: (number | string | null)[]
}

export class OnnxParseError extends Error {}

function shapeOf(v: ValueInfoProto): ValueShape {
  const t = v.type?.value.case === 'tensorType' ? v.type.value.value : undefined
  return {
    elemType: t?.elemType ?? 0,
    dims: (t?.shape?.dim ?? []).map((d) => (d.value.case === 'dimParam' ? d.value.value : d.value.case === 'dimValue' ? Number(d.value.value) : null)),
  }
}

/** The wire type a field is written with; null where both packed and unpacked are valid. */
function wireTypeOf(f: DescField): WireType | null {
  if (f.fieldKind === 'list') return f.listKind === 'message' ? WireType.LengthDelimited : null
  if (f.fieldKind === 'message' || f.fieldKind === 'map') return WireType.LengthDelimited
  if (f.fieldKind === 'enum') return WireType.Varint
  switch (f.scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return WireType.LengthDelimited
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return WireType.Bit32
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return WireType.Bit64
    default:
      return WireType.Varint
  }
}

const MODEL_WIRE_TYPES = new Map(ModelProtoSchema.fields.map((f) => [f.number, wireTypeOf(f)]))

/** Whether a top-level tag can start a ModelProto field: the wire type ModelProto gives it (ONNX never writes groups; an unknown field, from a newer schema, must still be well-formed). */
export function modelFieldOk(field: number, wire: WireType): boolean {
  const expected = MODEL_WIRE_TYPES.get(field)
  return field > 0 && wire !== WireType.StartGroup && wire !== WireType.EndGroup && (expected == null || wire === expected)
}
const NODE_FIELD = GraphProtoSchema.field.node.number
const OUTPUT_FIELD = GraphProtoSchema.field.output.number

/**
 * A cheap first look, as Netron does before decoding: walks only the top-level fields (a dozen
 * tags for a model of any size) and checks that each has the wire type ModelProto gives it, that
 * every length fits in the file, and that there is a graph. Text, images and cut files fail here
 * in microseconds instead of deep inside a full decode.
 */
export function checkModelStructure(bytes: Uint8Array): void {
  const reader = new BinaryReader(bytes)
  let graph = false
  try {
    while (reader.pos < reader.len) {
      const at = reader.pos
      const [field, wire] = reader.tag()
      if (!modelFieldOk(field, wire)) throw new OnnxParseError(`its bytes are not an ONNX protobuf (byte ${at} does not start a ModelProto field)`)
      if (field === GRAPH_FIELD) graph = true
      reader.skip(wire, field)
    }
  } catch (e) {
    if (e instanceof OnnxParseError) throw e
    throw new OnnxParseError(`its bytes are not an ONNX protobuf (${(e as Error).message})`)
  }
  if (!graph) throw new OnnxParseError('it holds no ONNX graph')
}

export function parseOnnx(bytes: Uint8Array): OnnxFile {
  checkModelStructure(bytes)
  let model: ModelProto
  try {
    model = fromBinary(ModelProtoSchema, bytes)
  } catch (e) {
    throw new OnnxParseError(`its bytes are not an ONNX protobuf (${(e as Error).message})`)
  }
  const graph = model.graph
  if (!graph || graph.node.length === 0) {
    throw new OnnxParseError('it holds no ONNX graph')
  }
  const metadata = new Map<string, string>()
  for (const p of model.metadataProps) if (p.key) metadata.set(p.key, p.value)
  const inputs = new Map(graph.input.map((v) => [v.name, shapeOf(v)]))
  const outputs = new Map(graph.output.map((v) => [v.name, shapeOf(v)]))
  return { model, metadata, inputs, outputs }
}

/** Names a node reads, including those its subgraphs (If/Loop bodies) read from outer scope. */
function namesRead(node: NodeProto, into: Set<string>): void {
  for (const i of node.input) if (i) into.add(i)
  for (const a of node.attribute) {
    for (const g of [a.g, ...a.graphs]) {
      for (const n of g?.node ?? []) namesRead(n, into)
    }
  }
}

/**
 * Cuts the part of the graph that computes `outputs` out of the whole model: the nodes those
 * outputs depend on, and only the graph inputs and initializers those nodes read. This is how one
 * file holds the encoder and the decoder step, which run as two sessions.
 *
 * Everything else the model says about how to run a graph stays: IR version, every opset import
 * (the function domains among them), the model-local functions a node may call, device
 * configurations, and any field newer than this schema. Only the metadata (the vocabularies, read
 * once by the contract) and the training info (which refers to the whole graph) are left out.
 */
export function extractPart(file: OnnxFile, outputs: string[]): Uint8Array {
  return serializeWith(file, extractGraph(file.model.graph as GraphProto, outputs))
}

/** The model of `file` with another main graph, as bytes for onnxruntime (no metadata, no training info). */
export function serializeWith(file: OnnxFile, graph: GraphProto): Uint8Array {
  return modelBytes({ ...file.model, graph, metadataProps: [], trainingInfo: [] })
}

/** Indices of the nodes `outputs` depend on; names in `stopAt` count as given (not computed). */
export function nodesFor(graph: GraphProto, outputs: Iterable<string>, stopAt: ReadonlySet<string> = new Set()): { nodes: Set<number>; names: Set<string> } {
  const producer = producers(graph)
  const keep = new Set<number>()
  const needed = new Set<string>()
  const stack = [...outputs]
  while (stack.length > 0) {
    const name = stack.pop()!
    if (needed.has(name)) continue
    needed.add(name)
    if (stopAt.has(name)) continue
    const i = producer.get(name)
    if (i === undefined || keep.has(i)) continue
    keep.add(i)
    stack.push(...readsOf(graph.node[i]))
  }
  return { nodes: keep, names: needed }
}

/** Which node writes each value. */
export function producers(graph: GraphProto): Map<string, number> {
  const producer = new Map<string, number>()
  graph.node.forEach((n, i) => n.output.forEach((o) => o && producer.set(o, i)))
  return producer
}

/** The names a node reads, its subgraphs' outer-scope reads included. */
export function readsOf(node: NodeProto): Set<string> {
  const reads = new Set<string>()
  namesRead(node, reads)
  return reads
}

/**
 * The graph that computes `outputs`: the nodes they depend on and the inputs, initializers and
 * value infos those read. A name in `stopAt` is not computed: it becomes a graph input, typed by
 * `stopAt`'s value info.
 */
export function extractGraph(graph: GraphProto, outputs: string[], stopAt: ReadonlyMap<string, ValueInfoProto> = new Map()): GraphProto {
  const { nodes: keep, names: needed } = nodesFor(graph, outputs, new Set(stopAt.keys()))
  const declared = new Map(graph.output.map((v) => [v.name, v]))
  return {
    ...graph,
    name: `${graph.name || 'graph'}:${outputs[0]}`,
    node: graph.node.filter((_, i) => keep.has(i)),
    initializer: graph.initializer.filter((t) => needed.has(t.name) && !stopAt.has(t.name)),
    sparseInitializer: graph.sparseInitializer.filter((t) => needed.has(t.values?.name ?? '')),
    input: [...graph.input.filter((v) => needed.has(v.name) && !stopAt.has(v.name)), ...[...stopAt.values()].filter((v) => needed.has(v.name))],
    output: outputs.map((o) => declared.get(o) ?? create(ValueInfoProtoSchema, { name: o })),
    valueInfo: graph.valueInfo.filter((v) => needed.has(v.name) && !stopAt.has(v.name)),
    quantizationAnnotation: graph.quantizationAnnotation.filter((a) => needed.has(a.tensorName)),
  }
}

/** Nodes and outputs to add to a model's main graph, and nodes to put in place of others (by index). */
export interface GraphEdit {
  addNodes: NodeProto[]
  addOutputs: ValueInfoProto[]
  replaceNodes: Map<number, NodeProto>
}

/** `edit` applied to a decoded graph (editedModelPieces applies it to a file's bytes). */
export function withEdit(graph: GraphProto, edit: GraphEdit): GraphProto {
  return { ...graph, node: [...graph.node.map((n, i) => edit.replaceNodes.get(i) ?? n), ...edit.addNodes], output: [...graph.output, ...edit.addOutputs] }
}

/**
 * The graph with the If node at `at` replaced by one of its branches: the branch's nodes, which
 * read the main graph's inputs, initializers and values by name, put in the If's place, each
 * branch output computed under the If's output name instead (so no copy is added for it), an
 * Identity where the branch passes on an outer value as it is. onnxruntime then runs that branch
 * as plain nodes, without the If's per-run setup of a subgraph over every weight it reads.
 */
export function liftBranch(graph: GraphProto, at: number, branch: 'then_branch' | 'else_branch'): GraphProto {
  const ifNode = graph.node[at]
  const b = ifNode?.opType === 'If' ? ifNode.attribute.find((a) => a.name === branch)?.g : undefined
  if (!b) throw new OnnxParseError(`node ${at} is not an If with a ${branch}`)
  const computed = new Set(b.node.flatMap((n) => n.output))
  const rename = new Map<string, string>()
  const passOn: NodeProto[] = []
  b.output.forEach((o, k) => {
    if (computed.has(o.name) && !rename.has(o.name)) rename.set(o.name, ifNode.output[k])
    else passOn.push(create(NodeProtoSchema, { opType: 'Identity', name: `al_lift/${ifNode.output[k]}`, input: [o.name], output: [ifNode.output[k]] }))
  })
  const r = (name: string) => rename.get(name) ?? name
  const lifted = b.node.map((n) => ({ ...n, input: n.input.map(r), output: n.output.map(r) }))
  return {
    ...graph,
    node: [...graph.node.slice(0, at), ...lifted, ...passOn, ...graph.node.slice(at + 1)],
    initializer: [...graph.initializer, ...b.initializer],
    sparseInitializer: [...graph.sparseInitializer, ...b.sparseInitializer],
    valueInfo: [...graph.valueInfo, ...b.valueInfo.filter((v) => !rename.has(v.name))],
  }
}

/**
 * The model's bytes with `edit` applied to its main graph, written at the byte level: the
 * graph's fields are copied as they are (a 300 MB decoder's weights are not decoded and encoded
 * again, which took seconds), the replaced nodes re-encoded in their place, and the new nodes
 * and outputs appended (protobuf reads a repeated field's entries wherever they stand).
 */
export function editedModelBytes(bytes: Uint8Array, edit: GraphEdit): Uint8Array {
  return concatBytes(editedModelPieces(bytes, edit))
}

/**
 * editedModelBytes as the pieces that make the file, in order: most of them views of `bytes`,
 * so a caller can write them to disk without the whole model in memory a second time.
 */
export function editedModelPieces(bytes: Uint8Array, edit: GraphEdit): Uint8Array[] {
  const top = new BinaryReader(bytes)
  let graphAt = -1
  let graphStart = -1
  let graphEnd = -1
  while (top.pos < top.len) {
    const at = top.pos
    const [field, wire] = top.tag()
    if (field === GRAPH_FIELD && wire === WireType.LengthDelimited) {
      const len = top.uint32()
      graphAt = at
      graphStart = top.pos
      graphEnd = top.pos + len
      top.pos = graphEnd
    } else top.skip(wire, field)
  }
  if (graphAt < 0) throw new OnnxParseError('it holds no ONNX graph')
  const pieces: Uint8Array[] = []
  const g = new BinaryReader(bytes.subarray(graphStart, graphEnd))
  let node = 0
  let copyFrom = 0
  while (g.pos < g.len) {
    const at = g.pos
    const [field, wire] = g.tag()
    g.skip(wire, field)
    if (field === NODE_FIELD && wire === WireType.LengthDelimited) {
      const replacement = edit.replaceNodes.get(node++)
      if (replacement) {
        pieces.push(bytes.subarray(graphStart + copyFrom, graphStart + at))
        pieces.push(...delimited(NODE_FIELD, [toBinary(NodeProtoSchema, replacement)]))
        copyFrom = g.pos
      }
    }
  }
  pieces.push(bytes.subarray(graphStart + copyFrom, graphEnd))
  const tail = new BinaryWriter()
  for (const n of edit.addNodes) tail.tag(NODE_FIELD, WireType.LengthDelimited).bytes(toBinary(NodeProtoSchema, n))
  for (const o of edit.addOutputs) tail.tag(OUTPUT_FIELD, WireType.LengthDelimited).bytes(toBinary(ValueInfoProtoSchema, o))
  pieces.push(tail.finish())
  return [bytes.subarray(0, graphAt), ...delimited(GRAPH_FIELD, pieces), bytes.subarray(graphEnd)]
}
