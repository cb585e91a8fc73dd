import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { ContractError } from '../../contract'
import { editedModelPieces, serializeWith, withEdit, type GraphEdit } from '../../onnx-graph'
import { concatBytes } from '../../onnx-write'
import type { GraphProto } from '../../onnx-proto'
import { readSlimModel, type SlimModel } from '../model-bytes'
import { rearrangesExactly, type ModelSource } from '../ort-sessions'
import { crossKvGraph, splitMerged } from './split'
import { dropPending, writeTapped, type CachedEntry } from './tap-cache'
import { crossAttentionTaps, fusedAttention, TapError, tapName } from './taps'
import { folderVariants, type PartFiles, type Variant } from './variants'

/**
 * Which decoder graphs a folder's steps run, and where each layer's cross-attention comes from:
 * the folder's own files where they output `cross_attentions`, else its graphs with Softmax taps
 * added (taps.ts), split where that runs cheaper and as exactly (split.ts), kept in the tap cache
 * (tap-cache.ts) for the next open of the same graphs.
 */

/** A decoder graph as a session input, and its cross-attention outputs. */
export interface DecoderGraph {
  load: ModelSource
  /** Each layer's cross-attention [B, H, T, S]: `cross_attentions.{l}` or a tap. */
  cross: string[]
  /** Where the attention is read, for the model's details. */
  where: string
}

export interface DecodersToRun {
  /** The first step's graph: decoder_model, the merged decoder, or the cross graph (split.ts). */
  first: DecoderGraph
  /** The later steps' graph, or null (no KV cache: every step runs `first` on the whole prefix). */
  past: DecoderGraph | null
  /** The tapped graphs written to the cache under temporary names, which become its entry once the sessions are made. */
  tapped: string[]
  /** A tapped graph that could not be written to the cache (the entry then is not kept). */
  unwritten: boolean
}

/** What of the folder the choice reads. */
export interface DecoderFolder {
  dir: string
  files: PartFiles
  variant: Variant
  layers: number
}

/**
 * The decoders to run: from the cache entry where the graphs were tapped before, else tapped now
 * (written to the cache under `key`). Refused where the folder's two decoders disagree on their
 * attention outputs, leaving nothing in the cache.
 */
export async function decodersToRun(
  f: DecoderFolder,
  slim: { first: SlimModel; past: SlimModel | null },
  pastFile: string | null,
  key: string,
  entry: CachedEntry | null,
): Promise<DecodersToRun> {
  const got = entry ? await fromCache(entry, slim, pastFile) : await tapNow(f, slim, pastFile, key)
  if (got.past && got.past.cross.join() !== got.first.cross.join()) {
    await dropPending(got.tapped)
    throw new ContractError("The folder's two decoders disagree: one outputs cross_attentions, the other does not; export them together.")
  }
  return got
}

async function fromCache(entry: CachedEntry, slim: { first: SlimModel; past: SlimModel | null }, pastFile: string | null): Promise<DecodersToRun> {
  const load = async (file: string, s: SlimModel): Promise<ModelSource> => ({ bytes: new Uint8Array(await readFile(file)), dir: s.dir })
  const as = { cross: entry.cross, where: entry.where }
  const first = { load: await load(entry.files[0], slim.first), ...as }
  let past: DecoderGraph | null = null
  if (entry.files[1]) past = { load: await load(entry.files[1], slim.past ?? slim.first), ...as }
  // Only the cross graph was written (split.ts): the with-past decoder runs as exported.
  else if (pastFile) past = { load: pastFile, ...as }
  return { first, past, tapped: [], unwritten: false }
}

async function tapNow(f: DecoderFolder, slim: { first: SlimModel; past: SlimModel | null }, pastFile: string | null, key: string): Promise<DecodersToRun> {
  const tapped: string[] = []
  let unwritten = false
  const loadOf = async (pieces: Uint8Array[] | null, s: SlimModel, path: string, part: number): Promise<ModelSource> => {
    if (!pieces) return path // as exported: onnxruntime reads the folder's own file
    const written = await writeTapped(key, part, pieces)
    if (written) tapped.push(written)
    else unwritten = true
    return { bytes: concatBytes(pieces), dir: s.dir }
  }
  const L = f.layers
  const firstGraph = slim.first.file.model.graph as GraphProto
  const others = fusedAttention(firstGraph) ? await unfusedAlternatives(f.dir, f.variant.suffix) : []
  const firstT = decoderPieces(slim.first, f.files.first, L, others)
  const pastT = pastFile && slim.past ? decoderPieces(slim.past, pastFile, L, others) : null
  // The steps without the merged decoder's If, or without decoder_model.onnx's copy of the weights (split.ts).
  const exact = rearrangesExactly(f.variant.dtype)
  const split = exact && f.files.merged && firstT.edit ? splitMerged(withEdit(firstGraph, firstT.edit), L, firstT.cross) : null
  const crossKv = split?.crossKv ?? (exact && pastT && !f.files.merged ? crossKvGraph(firstGraph, L) : null)
  const as = { cross: firstT.cross, where: firstT.where }
  const first = { load: await loadOf(crossKv ? [serializeWith(slim.first.file, crossKv)] : firstT.pieces, slim.first, f.files.first, 0), ...as }
  let past: DecoderGraph | null = null
  if (split) past = { load: await loadOf([serializeWith(slim.first.file, split.withPast)], slim.first, f.files.first, 1), ...as }
  else if (pastT && slim.past && pastFile) past = { load: await loadOf(pastT.pieces, slim.past, pastFile, 1), cross: pastT.cross, where: pastT.where }
  return { first, past, tapped, unwritten }
}

/**
 * The decoder as a session input: as it is where it outputs cross_attentions, else with the
 * Softmax taps added to its graph (editedModelPieces on the graph read without its weights: the
 * tapped graph names the original weights where they lie, SlimModel).
 */
function decoderPieces(
  slim: SlimModel,
  path: string,
  layers: number,
  others: string[],
): { pieces: Uint8Array[] | null; edit: GraphEdit | null; cross: string[]; where: string } {
  const outputs = slim.file.model.graph?.output.map((o) => o.name) ?? []
  const given = Array.from({ length: layers }, (_, l) => `cross_attentions.${l}`)
  if (given.every((n) => outputs.includes(n)))
    return { pieces: null, edit: null, cross: given, where: `the decoder's cross_attentions.{0…${layers - 1}} outputs` }
  try {
    const { edit, where } = crossAttentionTaps(slim.file.model.graph as GraphProto, layers)
    return { pieces: editedModelPieces(slim.bytes, edit), edit, cross: Array.from({ length: layers }, (_, l) => tapName(l)), where }
  } catch (e) {
    if (!(e instanceof TapError)) throw e
    const alt = others.length
      ? ` Open ${others.join(' or ')} instead, whose attention is not fused.`
      : ' Export it again without optimisation (optimum-cli export onnx without --optimize, or its plain decoder_model.onnx).'
    throw new ContractError(`${basename(path)} cannot show attention: ${e.message}.${alt}`)
  }
}

/** Other precisions of the folder whose decoder keeps its attention probabilities. */
async function unfusedAlternatives(dir: string, except: string): Promise<string[]> {
  const ok: string[] = []
  for (const v of folderVariants(dir)) {
    if (v.suffix === except) continue
    const g = (await readSlimModel(v.files.first).catch(() => null))?.file.model.graph
    if (g && !fusedAttention(g)) ok.push(basename(v.files.first))
  }
  return ok
}
