import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import * as ort from '../../onnxruntime'

/**
 * A Hugging Face folder's decoders with the Softmax taps written in (taps.ts,
 * editedModelPieces), kept on disk: the graphs alone. Each names its weights where they lie in
 * the user's folder (external data: the folder's .onnx_data files, or the raw bytes inside its
 * .onnx, model-bytes.ts readSlimModel), and onnxruntime reads them from there
 * (ort-sessions.ts ModelSource): an entry takes the graph's size (kilobytes to a few MB), never
 * the weights'. A folder opened again neither finds the taps nor edits the graph. We keep the
 * tapped graph, not onnxruntime's optimised one (SessionOptions.optimizedModelFilePath): saving
 * that made the first open seconds slower for ~0.1 s saved on later opens (bench/HF-RESULTS.md),
 * and the tapped graph serves every execution provider.
 *
 * The key is the graphs' content (cacheKey). The user's files are never written. The cache keeps
 * the few folders used last.
 */
const VERSION = 'taps-7'
const KEEP = 3

/** A cached folder: its tapped decoders' files and where its cross-attention comes from. */
export interface CachedEntry {
  /** The tapped first decoder (or merged decoder), then the tapped with-past decoder if any. */
  files: string[]
  cross: string[]
  where: string
}

/** Where the cache lives: AL_CACHE_DIR, else the user's cache folder ($XDG_CACHE_HOME or ~/.cache). */
export function cacheRoot(): string {
  return process.env.AL_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'attention-lens', 'hf-models')
}

/**
 * The cache key of a folder's decoders: a hash of their graphs as read without their weights
 * (SlimModel.bytes: every node, output and tensor header, with where each weight lies in its
 * file), with the onnxruntime version and the tap rules' version. What the tapped graph depends
 * on is exactly that, so the same folder hits wherever it is (a browser re-upload lands in a new
 * temporary folder each time) and a changed graph misses; the weights themselves, which the
 * tapped graph only names, are not read, so a 2 GB decoder costs the hash of a few MB. Copied or
 * touched files hit; a file whose weights changed in place with the same layout also hits, and is
 * still run with its new weights, read from the folder being opened.
 */
export function cacheKey(graphs: (Uint8Array | null)[]): string {
  const h = createHash('sha256').update(`${VERSION}\0${ort.env.versions.common}`)
  for (const g of graphs) {
    if (!g) continue
    h.update(`\0${g.length}\0`).update(g)
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

/**
 * Makes the written files the cache entry: each renamed from its temporary name, the entry
 * written last, so a reader never sees half an entry; then the least recently used entries beyond
 * the few kept are removed. A failure (a full or read-only disk) leaves no entry; says whether it
 * was kept.
 */
export async function commitEntry(key: string, pending: string[], info: Omit<CachedEntry, 'files'>, root = cacheRoot()): Promise<boolean> {
  try {
    const files = pending.map((p) => p.replace(/\.tmp$/, ''))
    for (const [i, p] of pending.entries()) await rename(p, files[i])
    const entry: CachedEntry = { files, ...info }
    await writeFile(join(root, `${key}.json.tmp`), JSON.stringify(entry))
    await rename(join(root, `${key}.json.tmp`), join(root, `${key}.json`))
    await evict(root)
    return true
  } catch {
    await rm(join(root, `${key}.json`), { force: true }).catch(() => undefined)
    await dropPending([...pending, ...pending.map((p) => p.replace(/\.tmp$/, ''))])
    return false
  }
}

/**
 * A tapped decoder's pieces written to one file for onnxruntime to read (a temporary name until
 * commitEntry), or null where the cache folder cannot be written (the caller then hands
 * onnxruntime the bytes, concatBytes()).
 */
export async function writeTapped(key: string, part: number, pieces: Uint8Array[], root = cacheRoot()): Promise<string | null> {
  const path = join(root, `${key}.${part}.onnx.tmp`)
  try {
    await mkdir(root, { recursive: true })
    await writeFile(path, pieces)
    return path
  } catch {
    await rm(path, { force: true }).catch(() => undefined)
    return null
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
