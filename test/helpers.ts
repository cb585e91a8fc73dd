import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  create,
  fromBinary,
  ModelProtoSchema,
  StringStringEntryProtoSchema,
  toBinary,
  type ModelProto,
  type TypeProto_Tensor,
  type ValueInfoProto,
} from '../src/engine/onnx-proto'

export const ROOT = join(__dirname, '..')
export const FIXTURE_MODELS = join(ROOT, 'test', 'fixtures', 'models')
export const BUNDLED_MODELS = join(ROOT, 'resources', 'models')
export const tiny = (kind: string) => join(FIXTURE_MODELS, `tiny-${kind}.onnx`)

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'al-test-'))
}

/** Writes a copy of a model after `edit` changed its ModelProto; returns the new path. */
export function editedModel(src: string, edit: (m: ModelProto) => void): string {
  const m = fromBinary(ModelProtoSchema, readFileSync(src))
  edit(m)
  const out = join(tempDir(), 'edited.onnx')
  writeFileSync(out, toBinary(ModelProtoSchema, m))
  return out
}

/** The tensor type of a graph input or output (TypeProto's `value` oneof), to edit in place. */
export function tensorTypeOf(v: ValueInfoProto): TypeProto_Tensor {
  if (v.type?.value.case !== 'tensorType') throw new Error(`${v.name} is not a tensor`)
  return v.type.value.value
}

export function setMeta(m: ModelProto, key: string, value: string | null): void {
  const i = m.metadataProps.findIndex((p) => p.key === key)
  if (value === null) {
    if (i >= 0) m.metadataProps.splice(i, 1)
  } else if (i >= 0) m.metadataProps[i].value = value
  else m.metadataProps.push(create(StringStringEntryProtoSchema, { key, value }))
}
