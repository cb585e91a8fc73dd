import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { ContractError } from '../../contract'
import { freeMemoryBytes, memoryShortfall, sizeText } from '../../memory'
import { VARIANT_SUFFIXES } from '../../../shared/hf-folder-files'

/**
 * A folder's precisions: transformers.js names each by a suffix on every file
 * (encoder_model_fp16.onnx, decoder_model_merged_quantized.onnx…), Optimum's plain names are fp32.
 * The default is fp32 where the folder has it and memory allows (exactness first, for an analysis
 * tool: PyTorch parity holds in fp32), otherwise the most precise variant present that fits, in
 * PRECISION order.
 */

/** The dtypes this app names, most precise first, and the file suffix of each (shared with browser mode's upload). */
export const PRECISION = VARIANT_SUFFIXES.map(([d]) => d)
const SUFFIX: Record<string, string> = Object.fromEntries(VARIANT_SUFFIXES)
const NOTE: Record<string, string> = {
  fp32: 'exact: the precision PyTorch parity holds in',
  fp16: 'half precision: attention within about 1e-2 of fp32',
  q8: '8-bit dynamic quantization: about 4× smaller than fp32 and faster on CPU; ids may drift from fp32',
  int8: '8-bit weights (signed)',
  uint8: '8-bit weights (unsigned)',
  q4: '4-bit weights',
  q4f16: '4-bit weights, fp16 activations',
  bnb4: '4-bit weights (bitsandbytes NF4)',
}

/** One precision of a folder: its dtype (or the suffix itself where it is not one this app names), its files and their size on disk. */
export interface Variant {
  dtype: string
  suffix: string
  bytes: number
  note: string
}

type Part = 'encoder_model' | 'decoder_model' | 'decoder_with_past_model' | 'decoder_model_merged'
export const PART_FILE = /^(encoder_model|decoder_model_merged|decoder_with_past_model|decoder_model)(_[A-Za-z0-9]+)?\.onnx$/

export interface PartFiles {
  encoder: string
  first: string
  past: string | null
  merged: boolean
}

/** The files of one precision (`_quantized`, `_fp16`… or the plain fp32 names), in the folder or onnx/. */
export function partFiles(dir: string, suffix: string): PartFiles | null {
  for (const where of [dir, join(dir, 'onnx')]) {
    const f = (p: Part) => {
      const path = join(where, `${p}${suffix}.onnx`)
      return existsSync(path) ? path : null
    }
    const encoder = f('encoder_model')
    if (!encoder) continue
    const merged = f('decoder_model_merged')
    if (merged) return { encoder, first: merged, past: merged, merged: true }
    const first = f('decoder_model')
    if (first) return { encoder, first, past: f('decoder_with_past_model'), merged: false }
  }
  return null
}

export const dtypeOf = (suffix: string): string => (Object.entries(SUFFIX).find(([, s]) => s === suffix)?.[0] ?? suffix.replace(/^_/, '')) as string
const rank = (dtype: string) => {
  const i = PRECISION.indexOf(dtype)
  return i < 0 ? PRECISION.length : i
}

/**
 * The size on disk of a variant's files: each .onnx and the external data files beside it that
 * carry its name (Optimum's x.onnx_data, onnx's x.onnx.data); opening counts exactly what the
 * graph names (readSlimModel), this is for choosing and listing.
 */
function variantBytes(files: PartFiles): number {
  let n = 0
  for (const f of new Set([files.encoder, files.first, files.past].filter((x): x is string => !!x))) {
    n += statSync(f).size
    const dir = join(f, '..')
    for (const e of readdirSync(dir))
      if (e !== basename(f) && e.startsWith(basename(f)) && /^[._]/.test(e.slice(basename(f).length))) n += statSync(join(dir, e)).size
  }
  return n
}

/** Every variant of a folder with both an encoder and a decoder, most precise first. */
export function folderVariants(dir: string): (Variant & { files: PartFiles })[] {
  const found = new Set<string>()
  for (const where of [dir, join(dir, 'onnx')]) {
    try {
      for (const name of readdirSync(where)) {
        const m = PART_FILE.exec(name)
        if (m && m[1] === 'encoder_model') found.add(m[2] ?? '')
      }
    } catch {
      /* no such folder */
    }
  }
  const out: (Variant & { files: PartFiles })[] = []
  for (const suffix of found) {
    const files = partFiles(dir, suffix)
    if (!files) continue
    const dtype = dtypeOf(suffix)
    out.push({ dtype, suffix, files, bytes: variantBytes(files), note: NOTE[dtype] ?? 'a precision this app does not name' })
  }
  return out.sort((a, b) => rank(a.dtype) - rank(b.dtype) || a.suffix.localeCompare(b.suffix))
}

/**
 * The variant to open: the one asked for (`dtype`, or the file the path names), else the most
 * precise that fits the memory free, else (none fits) the smallest, which opening then refuses
 * with the memory it needs.
 */
export function chooseVariant<V extends Variant>(all: V[], asked: { dtype?: string; suffix?: string }, free = freeMemoryBytes()): V | null {
  if (asked.suffix !== undefined) return all.find((v) => v.suffix === asked.suffix) ?? null
  if (asked.dtype) {
    const want = asked.dtype === 'quantized' ? 'q8' : asked.dtype
    const v = all.find((x) => x.dtype === want)
    if (!v) {
      throw new ContractError(
        `The folder has no ${want} variant: it has ${all.map((x) => `${x.dtype} (${sizeText(x.bytes)})`).join(', ') || 'none'}${PRECISION.includes(want) ? '' : `; the dtypes are ${PRECISION.join(', ')}`}.`,
      )
    }
    return v
  }
  return all.find((v) => memoryShortfall(v.bytes, free) === null) ?? [...all].sort((a, b) => a.bytes - b.bytes)[0] ?? null
}

/**
 * `--dtype`: the file that opens a folder's variant (its encoder: a path naming one of a folder's
 * files opens that file's precision), refused where the folder has no such variant.
 */
export function variantFile(path: string, dtype: string): string {
  const dir = statSync(path).isDirectory() ? path : basename(join(path, '..')) === 'onnx' ? join(path, '..', '..') : join(path, '..')
  if (!existsSync(join(dir, 'config.json'))) throw new ContractError(`--dtype picks a precision of a Hugging Face folder; ${path} is not one.`)
  return chooseVariant(folderVariants(dir), { dtype })!.files.encoder
}
