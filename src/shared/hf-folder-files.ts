/**
 * Which files of a Hugging Face model folder the app reads (src/engine/formats/hf): the configs,
 * the tokenizer and the ONNX files of one precision. Browser mode sends only these up, so a
 * transformers.js folder with six precisions of every part does not upload all of them.
 */
const SIDE_FILES = new Set(['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'source.spm', 'target.spm', 'vocab.json'])
const PART = /^(?:.*\/)?(?:onnx\/)?(encoder_model|decoder_model_merged|decoder_with_past_model|decoder_model)(_[A-Za-z0-9]+)?\.onnx$/

/** The paths (inside the folder, its own name first) to send: those the engine opens. */
export function folderFilesToSend(paths: string[]): string[] {
  const depth = (p: string) => p.split('/').length
  // The folder's own files sit one level down ("opus-mt-en-fr/config.json"), the ONNX files there or in onnx/.
  const top = Math.min(...paths.map(depth))
  const side = paths.filter((p) => depth(p) === top && SIDE_FILES.has(p.split('/').at(-1)!))
  const variants = new Set(paths.flatMap((p) => (PART.exec(p)?.[1] === 'encoder_model' ? [PART.exec(p)![2] ?? ''] : [])))
  const variant = variants.has('') ? '' : ([...variants].sort()[0] ?? '')
  const parts = paths.filter((p) => {
    const m = PART.exec(p)
    return m && (m[2] ?? '') === variant && depth(p) <= top + 1
  })
  // A merged decoder holds both decoders: the engine opens it alone, as it does on disk.
  const merged = parts.some((p) => PART.exec(p)![1] === 'decoder_model_merged')
  return [...side, ...parts.filter((p) => !merged || /(encoder_model|decoder_model_merged)(_[A-Za-z0-9]+)?\.onnx$/.test(p))]
}
