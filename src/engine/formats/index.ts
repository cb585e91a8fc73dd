import type { ModelSpec } from '../contract'
import { hfFolder } from './hf'
import { lensFile } from './lens-file'
import type { ModelFormat, OpenOptions } from './types'
import { modelDtype, modelFile, modelLanguages } from '../../shared/model-id'

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

export { modelFile, withLanguages } from '../../shared/model-id'

/** What a path asks for after its `?` (src/shared/model-id.ts): the language pair, the precision. */
export function modelOptions(id: string): OpenOptions {
  const dtype = modelDtype(id)
  return { ...modelLanguages(id), ...(dtype ? { dtype } : {}) }
}
