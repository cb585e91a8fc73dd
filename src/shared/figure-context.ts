/**
 * Context on every exported figure: the default caption names the model a single-model figure
 * draws and, for a view of one decoder step, the step and its output word ("step 14: « téléphone »").
 * The export dialog starts its caption field with it (the user may edit or clear it); the CLI
 * uses it where no --caption is given.
 */
import { pieceText } from './attention/words'
import type { FigureData, FigureLang } from './figure'

/** A model's name from its id: the file or folder name without its directory and extension (bundled:en-fr-bahdanau.onnx → en-fr-bahdanau). */
export function modelNameOf(modelId: string): string {
  // A multilingual folder's id ends with its pair (?src_lang=en&tgt_lang=fr): the name is the folder's.
  const path = modelId
    .replace(/\?.*$/, '')
    .replace(/^[a-z]+:(?!\/\/)/, '')
    .replace(/[\\/]+$/, '')
  return (path.split(/[\\/]/).pop() ?? path).replace(/\.onnx$/i, '')
}

/** The model id a single-model figure draws, or null for a figure of several models (comparison, side by side, BLEU by length). */
export function modelIdOf(data: FigureData): string | null {
  switch (data.view) {
    case 'heatmap':
    case 'local':
    case 'positions':
    case 'step':
    case 'lines':
    case 'beam':
    case 'heads':
      return data.translation.modelId
    case 'whatif':
      return data.result.original.modelId
    default:
      return null
  }
}

/** Whether a figure draws one model's output (its default caption names that model). */
export const singleModel = (data: FigureData): boolean => modelIdOf(data) !== null

/** The one decoder step a figure shows and its output word, or null for a figure of every step. */
export function stepOf(data: FigureData): { step: number; word: string } | null {
  // The step's output as text: a piece without its marks (SentencePiece's ▁, BPE's @@), "▁en" as "en".
  const at = (tokens: string[], step: number) => ({ step, word: pieceText(tokens[step] ?? '') })
  switch (data.view) {
    case 'local':
    case 'step':
      return at(data.translation.tgtTokens, data.step)
    case 'whatif':
      return data.at === 'all' ? null : at(data.result.original.tgtTokens, data.at)
    default:
      return null
  }
}

const STEP = {
  en: (n: number, w: string) => `step ${n}: « ${w} »`,
  zh: (n: number, w: string) => `第 ${n} 步：« ${w} »`,
}

/**
 * The default caption: the model's name (given, or read from the translation's model id) on a
 * single-model figure, and the step with its output word on a figure of one step; '' when the
 * figure has neither (several models, and every step).
 */
export function defaultCaption(data: FigureData, lang: FigureLang, modelName?: string): string {
  const id = modelIdOf(data)
  const model = id === null ? null : modelName || (id ? modelNameOf(id) : null)
  const s = stepOf(data)
  return [model, s ? STEP[lang](s.step + 1, s.word) : null].filter((x): x is string => !!x).join(' · ')
}
