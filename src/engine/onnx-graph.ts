import { onnx, type OnnxTypes } from './onnx-proto'

/** A parsed ONNX file: the ModelProto plus what the contract checks read from it. */
export interface OnnxFile {
  model: OnnxTypes.ModelProto
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

function shapeOf(v: OnnxTypes.IValueInfoProto): ValueShape {
  const t = v.type?.tensorType
  return {
    elemType: t?.elemType ?? 0,
    dims: (t?.shape?.dim ?? []).map((d) =>
      d.dimParam ? d.dimParam : d.dimValue != null ? Number(d.dimValue) : null,
    ),
  }
}

export function parseOnnx(bytes: Uint8Array): OnnxFile {
  let model: OnnxTypes.ModelProto
  try {
    model = onnx.ModelProto.decode(bytes)
  } catch (e) {
    throw new OnnxParseError(`its bytes are not an ONNX protobuf (${(e as Error).message})`)
  }
  const graph = model.graph as OnnxTypes.GraphProto | null
  if (!graph || graph.node.length === 0) {
    throw new OnnxParseError('it holds no ONNX graph')
  }
  const metadata = new Map<string, string>()
  for (const p of model.metadataProps) if (p.key) metadata.set(p.key, p.value ?? '')
  const inputs = new Map(graph.input.map((v) => [v.name ?? '', shapeOf(v)]))
  const outputs = new Map(graph.output.map((v) => [v.name ?? '', shapeOf(v)]))
  return { model, metadata, inputs, outputs }
}

/** Names a node reads, including those its subgraphs (If/Loop bodies) read from outer scope. */
function namesRead(node: OnnxTypes.INodeProto, into: Set<string>): void {
  for (const i of node.input ?? []) if (i) into.add(i)
  for (const a of node.attribute ?? []) {
    for (const g of [a.g, ...(a.graphs ?? [])]) {
      for (const n of g?.node ?? []) namesRead(n, into)
    }
  }
}

/**
 * Cuts the part of the graph that computes `outputs` out of the whole model: the nodes those
 * outputs depend on, and only the graph inputs and initializers those nodes read. This is how one
 * file holds the encoder and the decoder step, which run as two sessions.
 */
export function extractPart(file: OnnxFile, outputs: string[]): Uint8Array {
  // Decoded messages always carry their repeated fields (empty arrays by default).
  const graph = file.model.graph as OnnxTypes.GraphProto
  const producer = new Map<string, number>()
  graph.node.forEach((n, i) => (n.output ?? []).forEach((o) => producer.set(o, i)))
  const keep = new Set<number>()
  const needed = new Set<string>()
  const stack = [...outputs]
  while (stack.length > 0) {
    const name = stack.pop()!
    if (needed.has(name)) continue
    needed.add(name)
    const i = producer.get(name)
    if (i === undefined || keep.has(i)) continue
    keep.add(i)
    const reads = new Set<string>()
    namesRead(graph.node[i], reads)
    stack.push(...reads)
  }
  const part = onnx.GraphProto.create({
    name: `${graph.name ?? 'graph'}:${outputs[0]}`,
    node: graph.node.filter((_, i) => keep.has(i)),
    initializer: graph.initializer.filter((t) => needed.has(t.name ?? '')),
    input: graph.input.filter((v) => needed.has(v.name ?? '')),
    output: outputs.map((o) => graph.output.find((v) => v.name === o)!),
    valueInfo: graph.valueInfo.filter((v) => needed.has(v.name ?? '')),
  })
  const model = onnx.ModelProto.create({
    irVersion: file.model.irVersion,
    opsetImport: file.model.opsetImport,
    producerName: file.model.producerName,
    graph: part,
  })
  return onnx.ModelProto.encode(model).finish()
}
