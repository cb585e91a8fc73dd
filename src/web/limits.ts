/**
 * How many bytes each route's request body may have: checked against Content-Length before
 * anything is read, and again as the bytes arrive, so an oversized request is refused (413) at
 * once instead of after buffering it. Each limit is what the route's own schema can accept, with
 * room for JSON's quoting; everything else is small.
 */
import { MAX_PROTOBUF_BYTES } from '../engine/limits'
import type { Channel } from '../shared/routes'

const MB = 1024 * 1024

/** Calls of a few sentences and settings: a 100,000-character text is well under 1 MB even escaped. */
export const DEFAULT_BODY_LIMIT = 2 * MB

const LIMITS: Partial<Record<Channel, number>> = {
  // The model file itself: one ONNX protobuf, which cannot reach 2 GiB. Written to disk as it arrives.
  'models:open-dropped': MAX_PROTOBUF_BYTES,
  // One file of a model folder (an .onnx_data file may be many GB): no fixed cap. It is streamed to
  // disk, never held in memory, and refused (507) where the disk has no room for it; the engine then
  // refuses a model that will not fit in memory (src/engine/memory.ts).
  'models:open-dropped-folder': Number.MAX_SAFE_INTEGER,
  // A source and a reference file of up to 50 million characters each.
  'corpus:run': 240 * MB,
  // 50 million characters of CSV or JSON.
  'export:data': 120 * MB,
  // A figure's matrices: up to 4 million cells each.
  'export:figure': 200 * MB,
  'export:copy': 200 * MB,
  'export:animation': 200 * MB,
  'export:animation-bytes': 200 * MB,
  // 200,000 rows of timestamps and values.
  'forecast:run': 24 * MB,
  'forecast:whatif': 32 * MB,
}

export function bodyLimit(channel: string): number {
  return LIMITS[channel as Channel] ?? DEFAULT_BODY_LIMIT
}

export function sizeText(bytes: number): string {
  return bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.round(bytes / 1024)} KB`
}
