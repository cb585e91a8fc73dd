import { ContractError, shown } from '../../contract'
import { languageLabel, languageOf } from '../../../shared/language-names'

/**
 * The language pair of a Hugging Face folder: a multilingual model's language tokens (M2M100's
 * __en__, NLLB's eng_Latn, mBART-50's en_XX), a multi-target opus-mt's target tokens (>>fra<<,
 * put before the source), or a bilingual model's one pair (tokenizer_config.json's
 * source_lang/target_lang, or the opus-mt-en-fr of its name). A code asked for may be the model's
 * own, a plain ISO code (en, fra) or a name (French): src/shared/language-names.ts. A code with a
 * script or region (zho_Hant, pt-BR) is taken only as it is.
 */

/** Language tokens of a multilingual tokenizer, by code: M2M100's __en__ (as en), NLLB's eng_Latn, mBART-50's en_XX. */
export function languageTokens(vocab: Map<string, number>, modelType: string): Map<string, number> {
  const langs = new Map<string, number>()
  if (!/m2m|nllb|mbart/i.test(modelType)) return langs
  for (const [piece, id] of vocab) {
    const m = /^__([a-z]{2,3}(?:_[A-Za-z]+)?)__$/.exec(piece) ?? /^([a-z]{3}_[A-Z][a-z]{3})$/.exec(piece) ?? /^([a-z]{2}_[A-Z]{2})$/.exec(piece)
    if (m) langs.set(m[1], id)
  }
  return langs
}

/** A multi-target opus-mt's target tokens (>>fra<<, >>por<<, >>zho_Hans<<), by code. */
export function targetTokens(vocab: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>()
  for (const [piece, id] of vocab) {
    const m = /^>>([a-z]{2,3}(?:_[A-Za-z]+)?)<<$/.exec(piece)
    if (m) out.set(m[1], id)
  }
  return out
}

/** The codes of `codes` a code or name asked for could mean: the same language (by ISO code, name or FLORES code), or sharing its start. */
export function matchingCodes(asked: string, codes: readonly string[]): string[] {
  const a = asked.trim().toLowerCase()
  const lang = languageOf(asked)
  const same = lang ? codes.filter((c) => languageOf(c) === lang) : []
  const prefix = a.length
    ? codes.filter((c) => !same.includes(c) && (c.toLowerCase().startsWith(a) || (languageOf(c)?.name.toLowerCase().startsWith(a) ?? false)))
    : []
  return [...same, ...prefix]
}

/**
 * The model's code for a code or name asked for: the code itself (also as __en__), or the one code
 * of the same language (a plain ISO code or a name: en → eng_Latn, en_XX or en; zh → zho_Hans,
 * the language's first FLORES code, where several match). Refused with the codes that match it.
 */
export function resolveLanguage(asked: string, codes: readonly string[], side: 'source' | 'target', model: string): string {
  const bare = asked
    .trim()
    .replace(/^__(.*)__$/, '$1')
    .replace(/^>>(.*)<<$/, '$1')
  const exact = codes.find((c) => c === bare) ?? codes.find((c) => c.toLowerCase() === bare.toLowerCase())
  if (exact) return exact
  // A plain ISO code or a name stands for its language; a code with a script or region (zho_Hant, pt-BR) only for itself.
  const lang = /[_-]/.test(bare) ? null : languageOf(bare)
  if (lang) {
    const same = codes.filter((c) => languageOf(c) === lang)
    if (same.length === 1) return same[0]
    const first = lang.flores.find((f) => same.includes(f))
    if (first) return first
    const iso = same.find((c) => c.toLowerCase() === lang.iso1 || c.toLowerCase() === lang.iso3)
    if (iso) return iso
    if (same.length > 1)
      throw new ContractError(
        `"${shown(asked)}" is ambiguous for ${model}'s ${side} language: it has ${same.map(languageLabel).join(', ')}; give one of these codes.`,
      )
  }
  const near = matchingCodes(bare, codes)
  throw new ContractError(
    `${model} has no ${side} language "${shown(asked)}"${
      near.length
        ? `; the codes that match it: ${near.slice(0, 12).map(languageLabel).join(', ')}${near.length > 12 ? ` and ${near.length - 12} more` : ''}`
        : `; it knows ${codes.length} languages (${codes.slice(0, 6).map(languageLabel).join(', ')}${codes.length > 6 ? '…' : ''}), by code, ISO code (en, fr, zh) or English name`
    }.`,
  )
}

/** Two codes of one language (en and eng, fr and French), or the same code. */
const sameLanguage = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase() || (languageOf(a) !== null && languageOf(a) === languageOf(b))

export interface LanguagePair {
  srcLang: string
  tgtLang: string
  /** The source's language token (multilingual), or a multi-target opus-mt's target token put first in the source; else null. */
  sourceToken: number | null
  /** The target language token the first step is forced to (multilingual), else null. */
  forcedFirst: number | null
  /** A multilingual model's codes (source and target alike). */
  languages: string[] | null
  /** A multi-target opus-mt's target codes. */
  targetLanguages: string[] | null
  /** The folder names no pair and none was asked for: the pair shown is a stand-in until one is chosen. */
  needsLanguages: boolean
}

export interface PairInput {
  vocab: Map<string, number>
  modelType: string
  /** The folder's name (opus-mt-en-fr), for the pair it names and the messages. */
  name: string
  /** config.json's _name_or_path. */
  nameOrPath: string
  tokConfig: Record<string, unknown>
  asked: { srcLang?: string; tgtLang?: string }
}

const pick = (...xs: unknown[]) => xs.find((x): x is string => typeof x === 'string' && x !== '')

/** The pair a folder translates: asked for, or its own; refused where the model cannot translate it. */
export function languagePair(f: PairInput): LanguagePair {
  const { tokConfig, asked, name } = f
  const named = /opus-mt-([a-z]{2,3})-([a-z]{2,3})\b/.exec(`${name} ${f.nameOrPath}`)
  const ownSrc = pick(tokConfig.src_lang, tokConfig.source_lang, named?.[1])
  const ownTgt = pick(tokConfig.tgt_lang, tokConfig.target_lang, named?.[2])
  const langs = languageTokens(f.vocab, f.modelType)
  if (langs.size) {
    const codes = [...langs.keys()]
    const needs = (asked.srcLang ?? ownSrc) === undefined || (asked.tgtLang ?? ownTgt) === undefined
    // No pair named: English into the first other language, until one is chosen.
    const en = codes.find((c) => languageOf(c)?.iso1 === 'en') ?? codes[0]
    const srcLang = resolveLanguage(asked.srcLang ?? ownSrc ?? en, codes, 'source', name)
    const tgtLang = resolveLanguage(asked.tgtLang ?? ownTgt ?? codes.find((c) => c !== srcLang) ?? en, codes, 'target', name)
    return {
      srcLang,
      tgtLang,
      sourceToken: langs.get(srcLang)!,
      forcedFirst: langs.get(tgtLang)!,
      languages: codes,
      targetLanguages: null,
      needsLanguages: needs,
    }
  }
  // A bilingual model translates its own pair only.
  const bilingual = (side: 'source' | 'target', want: string | undefined, own: string | undefined) => {
    if (want !== undefined && own !== undefined && !sameLanguage(want, own)) {
      throw new ContractError(
        `${name} translates ${ownSrc ?? 'und'} → ${ownTgt ?? 'und'} only (it has no language tokens to choose another ${side} with): it was not trained for ${asked.srcLang ?? ownSrc} → ${asked.tgtLang ?? ownTgt}.`,
      )
    }
    return own ?? want ?? 'und'
  }
  const srcLang = bilingual('source', asked.srcLang, ownSrc)
  const targets = targetTokens(f.vocab)
  if (targets.size) {
    const codes = [...targets.keys()]
    const want = asked.tgtLang ?? (ownTgt && matchingCodes(ownTgt, codes).length ? ownTgt : undefined)
    const tgtLang = resolveLanguage(want ?? codes[0], codes, 'target', name)
    return {
      srcLang,
      tgtLang,
      sourceToken: targets.get(tgtLang)!,
      forcedFirst: null,
      languages: null,
      targetLanguages: codes,
      needsLanguages: want === undefined,
    }
  }
  const tgtLang = bilingual('target', asked.tgtLang, ownTgt)
  return { srcLang, tgtLang, sourceToken: null, forcedFirst: null, languages: null, targetLanguages: null, needsLanguages: false }
}
