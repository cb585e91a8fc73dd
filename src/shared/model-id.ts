/**
 * A multilingual model's path carries the language pair it translates (M2M100, NLLB, mBART-50):
 * `DIR?src_lang=en&tgt_lang=fr`. Each pair is its own open model (its own first token and source
 * prefix); the plain path opens the folder's default pair.
 */
const LANGS = /\?src_lang=([A-Za-z0-9_-]+)&tgt_lang=([A-Za-z0-9_-]+)$/

/** A language code as models name them: en, pt-BR, eng_Latn. */
export const LANGUAGE_CODE = /^[A-Za-z0-9_-]{1,16}$/

export const modelFile = (id: string) => id.replace(LANGS, '')

export function modelLanguages(id: string): { srcLang?: string; tgtLang?: string } {
  const m = LANGS.exec(id)
  return m ? { srcLang: m[1], tgtLang: m[2] } : {}
}

export const withLanguages = (path: string, src: string, tgt: string) => `${modelFile(path)}?src_lang=${src}&tgt_lang=${tgt}`
