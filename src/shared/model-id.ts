/**
 * A model's path carries what it is opened with after a `?`: the language pair a multilingual
 * model translates (M2M100, NLLB, mBART-50), `DIR?src_lang=en&tgt_lang=fr`, and a Hugging Face
 * folder's precision (src/engine/formats/hf/variants.ts), `DIR?dtype=q8`, or both
 * (`DIR?src_lang=en&tgt_lang=fr&dtype=q8`). Each is its own open model (its own first token and
 * source prefix, its own files); the plain path opens the folder's default pair and precision.
 */
const KEYS = ['src_lang', 'tgt_lang', 'dtype'] as const
type Key = (typeof KEYS)[number]
const QUERY = /\?((?:src_lang|tgt_lang|dtype)=[A-Za-z0-9_-]+(?:&(?:src_lang|tgt_lang|dtype)=[A-Za-z0-9_-]+)*)$/

/** A language code as models name them: en, pt-BR, eng_Latn. */
export const LANGUAGE_CODE = /^[A-Za-z0-9_-]{1,16}$/

/** A precision as the app names it (fp32, fp16, q8…) or a suffix it does not name (q4f16, bnb4). */
export const DTYPE = /^[a-z0-9]{1,16}$/

export const modelFile = (id: string) => id.replace(QUERY, '')

function params(id: string): Partial<Record<Key, string>> {
  const m = QUERY.exec(id)
  if (!m) return {}
  return Object.fromEntries(m[1].split('&').map((kv) => kv.split('=') as [Key, string]))
}

function build(file: string, p: Partial<Record<Key, string>>): string {
  const q = KEYS.flatMap((k) => (p[k] ? [`${k}=${p[k]}`] : []))
  return q.length ? `${file}?${q.join('&')}` : file
}

export function modelLanguages(id: string): { srcLang?: string; tgtLang?: string } {
  const p = params(id)
  return p.src_lang && p.tgt_lang ? { srcLang: p.src_lang, tgtLang: p.tgt_lang } : {}
}

/** The precision a path asks for, if any. */
export const modelDtype = (id: string): string | undefined => params(id).dtype

export const withLanguages = (path: string, src: string, tgt: string) => build(modelFile(path), { ...params(path), src_lang: src, tgt_lang: tgt })

/** The path asking for precision `dtype` (its language pair kept); no dtype: the folder's default. */
export const withDtype = (path: string, dtype: string | undefined) => build(modelFile(path), { ...params(path), dtype })
