import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import * as ort from 'onnxruntime-node'

/**
 * A Hugging Face folder's models as onnxruntime runs them — the decoders with the Softmax taps
 * written in (taps.ts, editedModelBytes) and every part after onnxruntime's graph optimisation —
 * kept on disk, so that a folder opened again neither reads its decoder into JavaScript, finds the
 * taps and copies it (at opus-mt's size 340 MB) nor optimises the graphs again: onnxruntime loads
 * the optimised files itself with its optimiser off. onnxruntime writes them while it makes the
 * first open's sessions (SessionOptions.optimizedModelFilePath).
 *
 * The key is the files' paths, sizes and modification times, the onnxruntime version and the tap
 * rules' version: a file changed or replaced is read and tapped again. CPU sessions only (an
 * optimised graph is specific to its execution provider). The user's files are never written.
 * The cache keeps the few folders used last (an opus-mt-size folder takes about 540 MB there).
 */
const VERSION = 'taps-2'
const KEEP = 3

/** A cached folder: its optimised parts' files and where its cross-attention comes from. */
export interface CachedEntry {
  /** Optimised encoder, first decoder and (if any) with-past decoder files. */
  files: string[]
  cross: string[]
  where: string
}

/** Where the cache lives: AL_CACHE_DIR, else the user's cache folder ($XDG_CACHE_HOME or ~/.cache). */
export function cacheRoot(): string {
  return process.env.AL_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'attention-lens', 'hf-models')
}

/** The cache key of a folder's model files. */
export async function cacheKey(files: (string | null)[]): Promise<string> {
  const h = createHash('sha256').update(`${VERSION}\0${ort.env.versions.common}`)
  for (const f of files) {
    if (!f) continue
    const s = await stat(f)
    h.update(`\0${f}\0${s.size}\0${s.mtimeMs}`)
  }
  return h.digest('hex').slice(0, 32)
}

/** The cached entry under `key`, or null (not cached, or one of its files gone). */
export async function cachedEntry(key: string, root = cacheRoot()): Promise<CachedEntry | null> {
  const meta = join(root, `${key}.json`)
  const entry = await readFile(meta, 'utf8').then(
    (t) => JSON.parse(t) as CachedEntry,
    () => null,
  )
  if (!entry) return null
  for (const f of entry.files) if (!(await stat(f).catch(() => null))) return null
  const now = new Date()
  await utimes(meta, now, now).catch(() => undefined)
  return entry
}

/** The temporary paths onnxruntime writes the optimised parts to while it makes the sessions. */
export async function pendingFiles(key: string, parts: number, root = cacheRoot()): Promise<string[] | null> {
  try {
    await mkdir(root, { recursive: true })
    return Array.from({ length: parts }, (_, i) => join(root, `${key}.${i}.onnx.tmp`))
  } catch {
    return null
  }
}

/**
 * Makes the written parts the cache entry: each renamed from its temporary name, the entry
 * written last, so a reader never sees half an entry; then the least recently used entries beyond
 * the few kept are removed. A failure (a full or read-only disk) leaves no entry.
 */
export async function commitEntry(key: string, pending: string[], info: Omit<CachedEntry, 'files'>, root = cacheRoot()): Promise<void> {
  try {
    const files = pending.map((p) => p.replace(/\.tmp$/, ''))
    for (const [i, p] of pending.entries()) await rename(p, files[i])
    const entry: CachedEntry = { files, ...info }
    await writeFile(join(root, `${key}.json.tmp`), JSON.stringify(entry))
    await rename(join(root, `${key}.json.tmp`), join(root, `${key}.json`))
    await evict(root)
  } catch {
    await rm(join(root, `${key}.json`), { force: true }).catch(() => undefined)
  }
}

/** Removes what a failed open left behind. */
export async function dropPending(pending: string[]): Promise<void> {
  for (const p of pending) await rm(p, { force: true }).catch(() => undefined)
}

async function evict(root: string): Promise<void> {
  const metas = (await readdir(root)).filter((f) => f.endsWith('.json'))
  const dated = await Promise.all(metas.map(async (f) => ({ key: f.slice(0, -'.json'.length), t: (await stat(join(root, f))).mtimeMs })))
  dated.sort((a, b) => b.t - a.t)
  for (const { key } of dated.slice(KEEP)) {
    for (const f of (await readdir(root)).filter((n) => n.startsWith(`${key}.`))) await rm(join(root, f), { force: true })
  }
}
