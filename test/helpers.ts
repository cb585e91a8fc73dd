import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onnx, type OnnxTypes } from '../src/engine/onnx-proto'

export const ROOT = join(__dirname, '..')
export const FIXTURE_MODELS = join(ROOT, 'test', 'fixtures', 'models')
export const BUNDLED_MODELS = join(ROOT, 'resources', 'models')
export const tiny = (kind: string) => join(FIXTURE_MODELS, `tiny-${kind}.onnx`)

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'al-test-'))
}

/** Writes a copy of a model after `edit` changed its ModelProto; returns the new path. */
export function editedModel(src: string, edit: (m: OnnxTypes.ModelProto) => void): string {
  const m = onnx.ModelProto.decode(readFileSync(src))
  edit(m)
  const out = join(tempDir(), 'edited.onnx')
  writeFileSync(out, onnx.ModelProto.encode(m).finish())
  return out
}

export function setMeta(m: OnnxTypes.ModelProto, key: string, value: string | null): void {
  const i = m.metadataProps.findIndex((p) => p.key === key)
  if (value === null) {
    if (i >= 0) m.metadataProps.splice(i, 1)
  } else if (i >= 0) m.metadataProps[i].value = value
  else m.metadataProps.push(onnx.StringStringEntryProto.create({ key, value }))
}
