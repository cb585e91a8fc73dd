import { closeSync, openSync, readSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path'
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire'
import { ContractError } from '../contract'
import { MAX_PROTOBUF_BYTES } from '../limits'
import { modelFieldOk, OnnxParseError, parseOnnx, type OnnxFile } from '../onnx-graph'
import {
  GraphProtoSchema,
  ModelProtoSchema,
  TensorProto_DataLocation,
  TensorProto_DataType,
  TensorProtoSchema,
  type GraphProto,
  type TensorProto,
} from '../onnx-proto'

/**
 * Reading ONNX files, shared by both formats. A file is first looked at as Netron does (its
 * top-level protobuf fields: text, an image or a cut file is refused in microseconds, whatever its
 * size), then read whole (the app's own one-file models, readModelBytes) or read without its
 * weights (readSlimModel: a Hugging Face decoder of 1.8 GB is parsed from its graph's few MB, the
 * weights left on disk for onnxruntime to read where they are).
 */

const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`

/** Refuses what is not a file this app can read, before reading it; returns its size. */
async function fileSize(path: string, name: string): Promise<number> {
  const info = await stat(path).catch(() => null)
  if (!info) throw new ContractError(`The file ${path} does not exist.`)
  if (info.isDirectory()) throw new ContractError(`${path} is a folder, not a model file.`)
  if (info.size === 0) throw new ContractError(`${name} is empty.`)
  return info.size
}

/**
 * The top-level structure of a file on disk (checkModelStructure, read by its tags alone), and
 * protobuf's limit: one ONNX protobuf cannot be 2 GiB or more (a larger model keeps its weights in
 * external data files, which this limit does not cover).
 */
async function checkFileStructure(path: string, name: string, size: number): Promise<void> {
  const r = new FileWindow(path, size)
  try {
    try {
      checkTopLevel(r)
    } catch (e) {
      if (e instanceof OnnxParseError) throw new ContractError(`${name} is not an ONNX model: ${e.message}.`)
      throw e
    }
  } finally {
    r.close()
  }
  if (size > MAX_PROTOBUF_BYTES) {
    throw new ContractError(
      `${name} is ${mib(size)}, more than the 2 GiB one ONNX protobuf can hold: save it with its weights in external data (onnx.save_model(…, save_as_external_data=True), as Optimum does for large models).`,
    )
  }
}

/**
 * Reads and parses one model file, refusing with one sentence what is not an ONNX model this app
 * opens; `name` is how the sentence names it (a folder's format names which of its files).
 */
export async function readModelFile(path: string, name = 'The file'): Promise<OnnxFile> {
  return (await readModelBytes(path, name)).file
}

/** readModelFile, with the bytes it parsed (to edit at the byte level, or to hand to onnxruntime). */
export async function readModelBytes(path: string, name = 'The file'): Promise<{ bytes: Uint8Array; file: OnnxFile }> {
  const size = await fileSize(path, name)
  await checkFileStructure(path, name, size)
  // The Buffer itself, not a copy: a 340 MB decoder would otherwise sit in memory twice.
  const bytes: Uint8Array = await readFile(path)
  try {
    return { bytes, file: parseOnnx(bytes) }
  } catch (e) {
    if (e instanceof OnnxParseError) throw new ContractError(`${name} is not an ONNX model: ${e.message}.`)
    throw e
  }
}

/** One tensor's bytes in an external data file. */
export interface ExternalRef {
  tensor: string
  /** As the graph names it, relative to the model's folder. */
  location: string
  offset: number
  length: number
}

/** A model read without its weights. */
export interface SlimModel {
  /**
   * The model with every initializer of `min` bytes or more (main graph) as external data: those
   * that were in the file point at their bytes in it (location: the file's own name, offset:
   * where its raw_data lies), those already external keep their entry. Small enough to edit and
   * hand onnxruntime from memory, with `dir` as the folder its external data is read from
   * (sessionFromSlim).
   */
  bytes: Uint8Array
  file: OnnxFile
  dir: string
  /** Every external tensor (those in the .onnx file itself included), as checked by checkExternalData. */
  refs: ExternalRef[]
  /** The files' sizes: the .onnx and each external data file it names, by location. */
  sizes: Map<string, number>
  /** All of them together: what onnxruntime will load. */
  bytesOnDisk: number
}

const GRAPH = ModelProtoSchema.field.graph.number
const INITIALIZER = GraphProtoSchema.field.initializer.number
const RAW_DATA = TensorProtoSchema.field.rawData.number
const EXTERNAL_DATA = TensorProtoSchema.field.externalData.number
const DATA_LOCATION = TensorProtoSchema.field.dataLocation.number
const ENTRY_KEY = 1
const ENTRY_VALUE = 2

/** A window over a file read by position: a protobuf's tags and lengths walked without reading what they skip. */
class FileWindow {
  private readonly fd: number
  private buf = Buffer.alloc(0)
  private start = 0
  pos = 0

  constructor(
    path: string,
    readonly len: number,
    private readonly window = 1 << 16,
  ) {
    this.fd = openSync(path, 'r')
  }

  close(): void {
    closeSync(this.fd)
  }

  /** The bytes [at, at + n), read from disk where the window does not hold them. */
  bytesAt(at: number, n: number): Uint8Array {
    if (at < this.start || at + n > this.start + this.buf.length) {
      const size = Math.min(Math.max(n, this.window), this.len - at)
      const buf = Buffer.allocUnsafe(size)
      let got = 0
      while (got < size) {
        const r = readSync(this.fd, buf, got, size - got, at + got)
        if (r === 0) break
        got += r
      }
      this.buf = buf.subarray(0, got)
      this.start = at
      if (got < n) throw new OnnxParseError(`it ends inside a field (byte ${at + got} of ${this.len})`)
    }
    return this.buf.subarray(at - this.start, at - this.start + n)
  }

  varint(): number {
    let v = 0
    let mul = 1
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.len) throw new OnnxParseError(`it ends inside a field (byte ${this.pos})`)
      const b = this.bytesAt(this.pos++, 1)[0]
      v += (b & 0x7f) * mul
      if (b < 0x80) return v
      mul *= 128
    }
    throw new OnnxParseError(`a varint at byte ${this.pos} is too long`)
  }

  tag(): [number, WireType] {
    const t = this.varint()
    return [Math.floor(t / 8), (t % 8) as WireType]
  }

  /** Skips a field's value; returns its payload's [start, end). */
  skip(wire: WireType): [number, number] {
    const at = this.pos
    switch (wire) {
      case WireType.Varint:
        this.varint()
        break
      case WireType.Bit64:
        this.pos += 8
        break
      case WireType.Bit32:
        this.pos += 4
        break
      case WireType.LengthDelimited: {
        const n = this.varint()
        const from = this.pos
        this.pos += n
        if (this.pos > this.len) throw new OnnxParseError(`a field at byte ${at} runs past the end of the file`)
        return [from, this.pos]
      }
      default:
        throw new OnnxParseError(`byte ${at} does not start a ModelProto field`)
    }
    if (this.pos > this.len) throw new OnnxParseError(`a field at byte ${at} runs past the end of the file`)
    return [at, this.pos]
  }
}

/** onnx-graph.ts checkModelStructure, on a file read by position: a dozen tags for a model of any size. */
function checkTopLevel(r: FileWindow): void {
  let graph = false
  try {
    while (r.pos < r.len) {
      const at = r.pos
      const [field, wire] = r.tag()
      if (!modelFieldOk(field, wire)) throw new OnnxParseError(`byte ${at} does not start a ModelProto field`)
      if (field === GRAPH) graph = true
      r.skip(wire)
    }
  } catch (e) {
    if (e instanceof OnnxParseError) throw new OnnxParseError(`its bytes are not an ONNX protobuf (${e.message})`)
    throw e
  }
  if (!graph) throw new OnnxParseError('it holds no ONNX graph')
}

/**
 * Reads a model file without its weights (SlimModel): walks its protobuf by position, copies
 * every field but the raw_data of the main graph's large initializers, and writes those as
 * external data pointing back into the file. A 1.8 GB decoder costs a few MB of reads and memory.
 */
export async function readSlimModel(path: string, name = basename(path), min = 1024): Promise<SlimModel> {
  const size = await fileSize(path, name)
  await checkFileStructure(path, name, size)
  const own = basename(path)
  const r = new FileWindow(path, size)
  const out: Uint8Array[] = []
  try {
    while (r.pos < r.len) {
      const at = r.pos
      const [field, wire] = r.tag()
      const [from, to] = r.skip(wire)
      if (field !== GRAPH || wire !== WireType.LengthDelimited) {
        out.push(r.bytesAt(at, r.pos - at).slice())
        continue
      }
      const graph: Uint8Array[] = []
      r.pos = from
      while (r.pos < to) {
        const gAt = r.pos
        const [gField, gWire] = r.tag()
        const [tFrom, tTo] = r.skip(gWire)
        if (gField === INITIALIZER && gWire === WireType.LengthDelimited && tTo - tFrom >= min) {
          graph.push(slimTensor(r, gAt, tFrom, tTo, own, min))
          r.pos = tTo
        } else graph.push(r.bytesAt(gAt, r.pos - gAt).slice())
      }
      const length = graph.reduce((a, p) => a + p.length, 0)
      out.push(new BinaryWriter().tag(GRAPH, WireType.LengthDelimited).uint32(length).finish(), ...graph)
      r.pos = to
    }
  } catch (e) {
    if (e instanceof OnnxParseError) throw new ContractError(`${name} is not an ONNX model: ${e.message}.`)
    throw e
  } finally {
    r.close()
  }
  const bytes = new Uint8Array(out.reduce((a, p) => a + p.length, 0))
  let at = 0
  for (const p of out) {
    bytes.set(p, at)
    at += p.length
  }
  let file: OnnxFile
  try {
    file = parseOnnx(bytes)
  } catch (e) {
    if (e instanceof OnnxParseError) throw new ContractError(`${name} is not an ONNX model: ${e.message}.`)
    throw e
  }
  const dir = dirname(path)
  const refs = externalRefs(file.model.graph)
  const sizes = new Map<string, number>([[own, size]])
  for (const l of new Set(refs.map((x) => x.location))) {
    if (sizes.has(l)) continue
    sizes.set(l, (await stat(inFolder(dir, l, name)).catch(() => null))?.size ?? -1)
  }
  const bytesOnDisk = [...sizes.values()].reduce((a, s) => a + Math.max(0, s), 0)
  return { bytes, file, dir, refs, sizes, bytesOnDisk }
}

/**
 * One initializer without its raw_data: the tensor's other fields as they are, then external_data
 * entries (location, offset, length) naming where the bytes lie in the file, and data_location
 * EXTERNAL. A tensor with no raw_data (typed fields, or already external) is copied whole.
 */
function slimTensor(r: FileWindow, at: number, from: number, to: number, own: string, min: number): Uint8Array {
  const kept: Uint8Array[] = []
  let raw: [number, number] | null = null
  r.pos = from
  while (r.pos < to) {
    const fAt = r.pos
    const [f, w] = r.tag()
    const [pFrom, pTo] = r.skip(w)
    if (f === RAW_DATA && w === WireType.LengthDelimited && pTo - pFrom >= min) raw = [pFrom, pTo]
    else if (f === EXTERNAL_DATA || f === DATA_LOCATION) {
      // Only a tensor with raw_data is rewritten, and its own location entries would contradict ours.
      if (raw === null) kept.push(r.bytesAt(fAt, r.pos - fAt).slice())
    } else kept.push(r.bytesAt(fAt, r.pos - fAt).slice())
  }
  if (!raw) return r.bytesAt(at, to - at).slice()
  const w = new BinaryWriter()
  for (const p of kept) w.raw(p)
  const entry = (k: string, v: string) =>
    w
      .tag(EXTERNAL_DATA, WireType.LengthDelimited)
      .fork()
      .tag(ENTRY_KEY, WireType.LengthDelimited)
      .string(k)
      .tag(ENTRY_VALUE, WireType.LengthDelimited)
      .string(v)
      .join()
  entry('location', own)
  entry('offset', String(raw[0]))
  entry('length', String(raw[1] - raw[0]))
  w.tag(DATA_LOCATION, WireType.Varint).int32(TensorProto_DataLocation.EXTERNAL)
  const body = w.finish()
  return new BinaryWriter().tag(INITIALIZER, WireType.LengthDelimited).bytes(body).finish()
}

/** Bytes per element of a tensor's data type (0: unknown, or packed below a byte). */
function elementBytes(t: TensorProto_DataType): number {
  switch (t) {
    case TensorProto_DataType.DOUBLE:
    case TensorProto_DataType.INT64:
    case TensorProto_DataType.UINT64:
    case TensorProto_DataType.COMPLEX64:
      return 8
    case TensorProto_DataType.FLOAT:
    case TensorProto_DataType.INT32:
    case TensorProto_DataType.UINT32:
      return 4
    case TensorProto_DataType.FLOAT16:
    case TensorProto_DataType.BFLOAT16:
    case TensorProto_DataType.INT16:
    case TensorProto_DataType.UINT16:
      return 2
    case TensorProto_DataType.INT8:
    case TensorProto_DataType.UINT8:
    case TensorProto_DataType.BOOL:
      return 1
    default:
      return 0
  }
}

/** Every tensor stored outside the graph, in the graph and its subgraphs. */
export function externalRefs(graph: GraphProto | undefined): ExternalRef[] {
  const refs: ExternalRef[] = []
  const visit = (t: TensorProto) => {
    if (t.dataLocation !== TensorProto_DataLocation.EXTERNAL) return
    const e = new Map(t.externalData.map((x) => [x.key, x.value]))
    const location = e.get('location') ?? ''
    const offset = Number(e.get('offset') ?? 0)
    const count = t.dims.reduce((a, d) => a * Number(d), 1)
    const length = e.has('length') ? Number(e.get('length')) : count * elementBytes(t.dataType)
    refs.push({ tensor: t.name, location, offset, length })
  }
  const walk = (g: GraphProto | undefined) => {
    if (!g) return
    g.initializer.forEach(visit)
    for (const n of g.node)
      for (const a of n.attribute) {
        if (a.t) visit(a.t)
        a.tensors.forEach(visit)
        ;[a.g, ...a.graphs].forEach(walk)
      }
  }
  walk(graph)
  return refs
}

/** An external data location as a path inside `dir`, refused where it is absolute or leaves the folder (onnxruntime refuses it too). */
export function inFolder(dir: string, location: string, name: string): string {
  const n = normalize(location)
  if (!location || isAbsolute(location) || n === '..' || n.startsWith(`..${sep}`)) {
    throw new ContractError(`${name} keeps weights at "${location}", outside its folder: onnxruntime reads external data only from the model's own folder.`)
  }
  return join(dir, n)
}

/**
 * Refuses a model whose external data is missing or shorter than its tensors say, naming the file
 * and what it lacks, before any session is made (onnxruntime would fail on the first such tensor
 * with a path, or read past the end).
 */
export function checkExternalData(m: SlimModel, name: string): void {
  const need = new Map<string, { end: number; tensor: string }>()
  for (const x of m.refs) {
    const e = x.offset + x.length
    const had = need.get(x.location)
    if (!had || e > had.end) need.set(x.location, { end: e, tensor: x.tensor })
  }
  for (const [location, { end, tensor }] of need) {
    const size = m.sizes.get(location) ?? -1
    if (size < 0) {
      throw new ContractError(
        `${name} keeps its weights in ${location}, which is not in its folder (${m.dir}): copy the .onnx_data files with the .onnx files.`,
      )
    }
    if (size < end) {
      throw new ContractError(
        `${location} is cut short: it has ${size.toLocaleString('en-US')} bytes, and ${name}'s tensor ${tensor} needs bytes up to ${end.toLocaleString('en-US')}. Copy or download it again.`,
      )
    }
  }
}
