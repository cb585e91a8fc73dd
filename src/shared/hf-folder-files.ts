/**
 * Which files of a Hugging Face model folder the app reads (src/engine/formats/hf): the configs,
 * the tokenizer and the ONNX files of one precision. Browser mode sends only these up, so a
 * transformers.js folder with six precisions of every part does not upload all of them.
 */
const SIDE_FILES = new Set(['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'source.spm', 'target.spm', 'vocab.json'])
const PART = /^(?:.*\/)?(?:onnx\/)?(encoder_model|decoder_model_merged|decoder_with_past_model|decoder_model)(_[A-Za-z0-9]+)?\.onnx$/

/**
 * A folder's precisions, most precise first, by the suffix transformers.js gives each file (none:
 * fp32). The engine opens fp32 where the folder has it and memory allows, else the most precise
 * variant present (src/engine/formats/hf/variants.ts).
 */
export const VARIANT_SUFFIXES: readonly (readonly [dtype: string, suffix: string])[] = [
  ['fp32', ''],
  ['fp16', '_fp16'],
  ['q8', '_quantized'],
  ['int8', '_int8'],
  ['uint8', '_uint8'],
  ['q4', '_q4'],
  ['q4f16', '_q4f16'],
  ['bnb4', '_bnb4'],
]
const rank = (suffix: string) => {
  const i = VARIANT_SUFFIXES.findIndex(([, s]) => s === suffix)
  return i < 0 ? VARIANT_SUFFIXES.length : i
}

/**
 * The paths (inside the folder, its own name first) to send: those the engine opens, with their
 * external data (the files beside a part named after it: encoder_model.onnx_data,
 * decoder_model_merged.onnx.data…, where Optimum and onnx keep a large model's weights). `dtype`
 * picks a precision (default: the most precise the folder has).
 */
export function folderFilesToSend(paths: string[], dtype?: string): string[] {
  const depth = (p: string) => p.split('/').length
  // The folder's own files sit one level down ("opus-mt-en-fr/config.json"), the ONNX files there or in onnx/.
  const top = Math.min(...paths.map(depth))
  const side = paths.filter((p) => depth(p) === top && SIDE_FILES.has(p.split('/').at(-1)!))
  const variants = [...new Set(paths.flatMap((p) => (PART.exec(p)?.[1] === 'encoder_model' ? [PART.exec(p)![2] ?? ''] : [])))]
  const asked = VARIANT_SUFFIXES.find(([d]) => d === dtype)?.[1]
  const variant = asked !== undefined && variants.includes(asked) ? asked : (variants.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))[0] ?? '')
  const parts = paths.filter((p) => {
    const m = PART.exec(p)
    return m && (m[2] ?? '') === variant && depth(p) <= top + 1
  })
  // A merged decoder holds both decoders: the engine opens it alone, as it does on disk.
  const merged = parts.some((p) => PART.exec(p)![1] === 'decoder_model_merged')
  const sent = parts.filter((p) => !merged || /(encoder_model|decoder_model_merged)(_[A-Za-z0-9]+)?\.onnx$/.test(p))
  const data = paths.filter((p) => !PART.test(p) && sent.some((s) => p.startsWith(s) && /^[._]/.test(p.slice(s.length))))
  return [...side, ...sent, ...data]
}

/**
 * A picked or dropped folder's precisions that this app names, most precise first, each with the
 * bytes browser mode would send for its ONNX files (external data included): the page offers them
 * before any goes up, as the engine's ModelInfo.variants does for a folder it reads from disk.
 */
export function folderVariantsOf(files: readonly { path: string; size: number }[]): { dtype: string; bytes: number }[] {
  const paths = files.map((f) => f.path)
  const size = new Map(files.map((f) => [f.path, f.size]))
  const present = new Set(paths.flatMap((p) => (PART.exec(p)?.[1] === 'encoder_model' ? [PART.exec(p)![2] ?? ''] : [])))
  return VARIANT_SUFFIXES.filter(([, s]) => present.has(s)).map(([dtype]) => ({
    dtype,
    bytes: folderFilesToSend(paths, dtype)
      .filter((p) => !SIDE_FILES.has(p.split('/').at(-1)!))
      .reduce((n, p) => n + (size.get(p) ?? 0), 0),
  }))
}
