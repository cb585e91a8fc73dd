import type { ModelSpec } from '../contract'
import { hfFolder } from './hf'
import { lensFile } from './lens-file'
import type { ModelFormat, OpenOptions } from './types'

/**
 * The model formats the engine opens, asked in order: the first whose `match` claims a path owns
 * it. A Hugging Face encoder-decoder folder (or one of its .onnx files), then the app's own
 * one-file contract, which takes whatever is left and refuses it with the contract's reasons.
 */
export const MODEL_FORMATS: readonly ModelFormat[] = [hfFolder, lensFile]

export async function formatFor(path: string): Promise<ModelFormat> {
  for (const f of MODEL_FORMATS) if (await f.match(modelFile(path))) return f
  return lensFile
}

/** The spec alone (the model picker), without creating sessions. */
export async function describeModel(id: string): Promise<ModelSpec> {
  return (await formatFor(id)).describe(modelFile(id), modelOptions(id))
}

/**
 * A multilingual model's id carries the language pair it translates (M2M100, NLLB, mBART-50):
 * `DIR?src_lang=en&tgt_lang=fr`. Each pair is its own open model (its own first token and source
 * prefix); the plain path opens the folder's default pair.
 */
const LANGS = /\?src_lang=([A-Za-z0-9_-]+)&tgt_lang=([A-Za-z0-9_-]+)$/

export const modelFile = (id: string) => id.replace(LANGS, '')

export function modelOptions(id: string): OpenOptions {
  const m = LANGS.exec(id)
  return m ? { srcLang: m[1], tgtLang: m[2] } : {}
}

export const withLanguages = (path: string, src: string, tgt: string) => `${modelFile(path)}?src_lang=${src}&tgt_lang=${tgt}`
