import { readFileSync } from 'node:fs'
import { freemem, totalmem } from 'node:os'
import { ContractError } from './contract'

/**
 * Whether a model fits the memory the machine has: the only limit on a model's size (there is no
 * per-file cap). onnxruntime holds each session's weights once (the external data it maps or
 * reads, the prepacked MatMul weights in place of the originals), and a decode adds its
 * activations and KV cache, small beside the weights at a sentence's length. So a model needs
 * about its files' size (external data included, each session's files counted: a
 * decoder_model.onnx + decoder_with_past_model.onnx pair holds the decoder weights twice) times
 * MEMORY_FACTOR. Measured on the opus-mt-size folder (536 MB of fp32 files): a process that
 * opened it and translated a 20-word sentence peaked at 780 MB, 157 MB of which a process holding
 * a tiny model already has, so the model added 1.16× its files. The app is running when free
 * memory is read, so its own share is already counted there; 1.3 leaves room for beam search, long
 * inputs and the arena's growth, and is the issue's resident-memory budget.
 */
export const MEMORY_FACTOR = 1.3

/**
 * Memory free for a model now: AL_FREE_MEMORY_BYTES where set (tests simulate a small machine),
 * else MemAvailable from /proc/meminfo (what the kernel can hand out without swapping, page cache
 * included), else os.freemem() (at least half the machine's memory, see below).
 */
export function freeMemoryBytes(): number {
  const forced = Number(process.env.AL_FREE_MEMORY_BYTES)
  if (process.env.AL_FREE_MEMORY_BYTES && Number.isFinite(forced) && forced >= 0) return forced
  try {
    const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))
    if (m) return Number(m[1]) * 1024
  } catch {
    /* not Linux */
  }
  // Elsewhere os.freemem() counts only pages free now: macOS keeps most of its memory as
  // reclaimable cache, so it reports a few hundred MB on an idle 16 GB machine. Half the machine is
  // then taken as available, so that a model is not refused for memory the system would hand out.
  return Math.max(freemem(), totalmem() / 2)
}

/** The memory a model whose files take `bytes` needs to run. */
export const memoryNeeded = (bytes: number): number => Math.ceil(bytes * MEMORY_FACTOR)

/** "4.1 GB", "380 MB". */
export function sizeText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`
}

/** null where a model of `bytes` fits `free`, else why not: "needs about 4.1 GB, 2.3 GB free". */
export function memoryShortfall(bytes: number, free = freeMemoryBytes()): string | null {
  const need = memoryNeeded(bytes)
  return need <= free ? null : `needs about ${sizeText(need)}, ${sizeText(free)} free`
}

/** A model refused because it will not fit the memory free. */
export class MemoryError extends ContractError {}

/** Refuses a model of `bytes` that will not fit, naming it, its size and the memory. */
export function checkMemory(name: string, bytes: number, free = freeMemoryBytes()): void {
  const short = memoryShortfall(bytes, free)
  if (short) throw new MemoryError(`${name} (${sizeText(bytes)} of files) ${short}: close other programs, or open a smaller variant (q8 is about 4× smaller).`)
}
