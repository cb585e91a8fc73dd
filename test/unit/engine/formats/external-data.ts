import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  create,
  fromBinary,
  ModelProtoSchema,
  StringStringEntryProtoSchema,
  TensorProto_DataLocation,
  toBinary,
  type GraphProto,
  type TensorProto,
} from '../../../../src/engine/onnx-proto'

/**
 * Test material: a copy of a Hugging Face folder whose .onnx files keep their graphs and move
 * every initializer of at least `min` bytes into `<file>.onnx_data` (or the name `dataName` gives),
 * as onnx.save_model(save_as_external_data=True) and Optimum write large models: each tensor's
 * location, offset and length in external_data, its bytes aligned to `align`.
 */
export function externalise(from: string, to: string, opts: { min?: number; align?: number; dataName?: (onnx: string) => string } = {}): void {
  const { min = 1024, align = 4096, dataName = (f: string) => `${f}_data` } = opts
  mkdirSync(to, { recursive: true })
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, e.name)
    if (e.isDirectory()) {
      externalise(src, join(to, e.name), opts)
      continue
    }
    if (!e.name.endsWith('.onnx')) {
      copyFileSync(src, join(to, e.name))
      continue
    }
    const model = fromBinary(ModelProtoSchema, new Uint8Array(readFileSync(src)))
    const chunks: Uint8Array[] = []
    let size = 0
    const location = dataName(e.name)
    const move = (t: TensorProto) => {
      if (t.rawData.length < min) return
      const pad = (align - (size % align)) % align
      if (pad) chunks.push(new Uint8Array(pad))
      const offset = size + pad
      chunks.push(t.rawData)
      size = offset + t.rawData.length
      t.externalData = [
        create(StringStringEntryProtoSchema, { key: 'location', value: location }),
        create(StringStringEntryProtoSchema, { key: 'offset', value: String(offset) }),
        create(StringStringEntryProtoSchema, { key: 'length', value: String(t.rawData.length) }),
      ]
      t.dataLocation = TensorProto_DataLocation.EXTERNAL
      t.rawData = new Uint8Array(0)
    }
    const walk = (g: GraphProto | undefined) => {
      if (!g) return
      g.initializer.forEach(move)
      for (const n of g.node) for (const a of n.attribute) [a.g, ...a.graphs].forEach(walk)
    }
    walk(model.graph)
    writeFileSync(join(to, e.name), toBinary(ModelProtoSchema, model))
    if (size) writeFileSync(join(to, location), Buffer.concat(chunks))
  }
}

/** The total size of a folder's files. */
export const folderBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((a, e) => a + (e.isDirectory() ? folderBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0)
