/**
 * Languages by name, for the models that name theirs by code: NLLB's FLORES-200 codes (eng_Latn),
 * mBART-50's (en_XX), M2M100's (__en__ → en) and multi-target opus-mt's target tokens (>>fra<<).
 * One row per language: ISO 639-1, ISO 639-3, its English name, and the FLORES-200 codes NLLB
 * uses for it (the first is the one a plain ISO code means, e.g. zh → zho_Hans, ar → arb_Arab).
 */
export interface LanguageRow {
  iso1: string
  iso3: string
  name: string
  flores: string[]
}

const ROWS: [string, string, string, string][] = [
  ['af', 'afr', 'Afrikaans', 'afr_Latn'],
  ['am', 'amh', 'Amharic', 'amh_Ethi'],
  ['ar', 'ara', 'Arabic', 'arb_Arab ars_Arab ary_Arab arz_Arab'],
  ['az', 'aze', 'Azerbaijani', 'azj_Latn azb_Arab'],
  ['be', 'bel', 'Belarusian', 'bel_Cyrl'],
  ['bg', 'bul', 'Bulgarian', 'bul_Cyrl'],
  ['bn', 'ben', 'Bengali', 'ben_Beng'],
  ['bs', 'bos', 'Bosnian', 'bos_Latn'],
  ['ca', 'cat', 'Catalan', 'cat_Latn'],
  ['cs', 'ces', 'Czech', 'ces_Latn'],
  ['cy', 'cym', 'Welsh', 'cym_Latn'],
  ['da', 'dan', 'Danish', 'dan_Latn'],
  ['de', 'deu', 'German', 'deu_Latn'],
  ['el', 'ell', 'Greek', 'ell_Grek'],
  ['en', 'eng', 'English', 'eng_Latn'],
  ['eo', 'epo', 'Esperanto', 'epo_Latn'],
  ['es', 'spa', 'Spanish', 'spa_Latn'],
  ['et', 'est', 'Estonian', 'est_Latn'],
  ['eu', 'eus', 'Basque', 'eus_Latn'],
  ['fa', 'fas', 'Persian', 'pes_Arab prs_Arab'],
  ['fi', 'fin', 'Finnish', 'fin_Latn'],
  ['fr', 'fra', 'French', 'fra_Latn'],
  ['ga', 'gle', 'Irish', 'gle_Latn'],
  ['gl', 'glg', 'Galician', 'glg_Latn'],
  ['gu', 'guj', 'Gujarati', 'guj_Gujr'],
  ['ha', 'hau', 'Hausa', 'hau_Latn'],
  ['he', 'heb', 'Hebrew', 'heb_Hebr'],
  ['hi', 'hin', 'Hindi', 'hin_Deva'],
  ['hr', 'hrv', 'Croatian', 'hrv_Latn'],
  ['hu', 'hun', 'Hungarian', 'hun_Latn'],
  ['hy', 'hye', 'Armenian', 'hye_Armn'],
  ['id', 'ind', 'Indonesian', 'ind_Latn'],
  ['ig', 'ibo', 'Igbo', 'ibo_Latn'],
  ['is', 'isl', 'Icelandic', 'isl_Latn'],
  ['it', 'ita', 'Italian', 'ita_Latn'],
  ['ja', 'jpn', 'Japanese', 'jpn_Jpan'],
  ['jv', 'jav', 'Javanese', 'jav_Latn'],
  ['ka', 'kat', 'Georgian', 'kat_Geor'],
  ['kk', 'kaz', 'Kazakh', 'kaz_Cyrl'],
  ['km', 'khm', 'Khmer', 'khm_Khmr'],
  ['kn', 'kan', 'Kannada', 'kan_Knda'],
  ['ko', 'kor', 'Korean', 'kor_Hang'],
  ['ky', 'kir', 'Kyrgyz', 'kir_Cyrl'],
  ['lo', 'lao', 'Lao', 'lao_Laoo'],
  ['lt', 'lit', 'Lithuanian', 'lit_Latn'],
  ['lv', 'lav', 'Latvian', 'lvs_Latn'],
  ['mk', 'mkd', 'Macedonian', 'mkd_Cyrl'],
  ['ml', 'mal', 'Malayalam', 'mal_Mlym'],
  ['mn', 'mon', 'Mongolian', 'khk_Cyrl'],
  ['mr', 'mar', 'Marathi', 'mar_Deva'],
  ['ms', 'msa', 'Malay', 'zsm_Latn'],
  ['mt', 'mlt', 'Maltese', 'mlt_Latn'],
  ['my', 'mya', 'Burmese', 'mya_Mymr'],
  ['ne', 'nep', 'Nepali', 'npi_Deva'],
  ['nl', 'nld', 'Dutch', 'nld_Latn'],
  ['no', 'nor', 'Norwegian', 'nob_Latn nno_Latn'],
  ['pa', 'pan', 'Punjabi', 'pan_Guru'],
  ['pl', 'pol', 'Polish', 'pol_Latn'],
  ['ps', 'pus', 'Pashto', 'pbt_Arab'],
  ['pt', 'por', 'Portuguese', 'por_Latn'],
  ['ro', 'ron', 'Romanian', 'ron_Latn'],
  ['ru', 'rus', 'Russian', 'rus_Cyrl'],
  ['si', 'sin', 'Sinhala', 'sin_Sinh'],
  ['sk', 'slk', 'Slovak', 'slk_Latn'],
  ['sl', 'slv', 'Slovenian', 'slv_Latn'],
  ['so', 'som', 'Somali', 'som_Latn'],
  ['sq', 'sqi', 'Albanian', 'als_Latn'],
  ['sr', 'srp', 'Serbian', 'srp_Cyrl'],
  ['sv', 'swe', 'Swedish', 'swe_Latn'],
  ['sw', 'swa', 'Swahili', 'swh_Latn'],
  ['ta', 'tam', 'Tamil', 'tam_Taml'],
  ['te', 'tel', 'Telugu', 'tel_Telu'],
  ['th', 'tha', 'Thai', 'tha_Thai'],
  ['tl', 'tgl', 'Tagalog', 'tgl_Latn'],
  ['tr', 'tur', 'Turkish', 'tur_Latn'],
  ['uk', 'ukr', 'Ukrainian', 'ukr_Cyrl'],
  ['ur', 'urd', 'Urdu', 'urd_Arab'],
  ['uz', 'uzb', 'Uzbek', 'uzn_Latn'],
  ['vi', 'vie', 'Vietnamese', 'vie_Latn'],
  ['xh', 'xho', 'Xhosa', 'xho_Latn'],
  ['yi', 'yid', 'Yiddish', 'ydd_Hebr'],
  ['yo', 'yor', 'Yoruba', 'yor_Latn'],
  ['zh', 'zho', 'Chinese', 'zho_Hans zho_Hant yue_Hant'],
  ['zu', 'zul', 'Zulu', 'zul_Latn'],
]

export const LANGUAGES: readonly LanguageRow[] = ROWS.map(([iso1, iso3, name, flores]) => ({ iso1, iso3, name, flores: flores.split(' ') }))

/** Other ISO 639-3 codes models use for a row's language (opus-mt's cmn, arb; ISO 639-2/B fre, ger…). */
const ALIASES: Record<string, string> = {
  cmn: 'zh',
  yue: 'zh',
  arb: 'ar',
  pes: 'fa',
  nob: 'no',
  nno: 'no',
  zsm: 'ms',
  swh: 'sw',
  fre: 'fr',
  ger: 'de',
  chi: 'zh',
  dut: 'nl',
  per: 'fa',
  cze: 'cs',
  gre: 'el',
  rum: 'ro',
  alb: 'sq',
  arm: 'hy',
  baq: 'eu',
  bur: 'my',
  geo: 'ka',
  ice: 'is',
  mac: 'mk',
  may: 'ms',
  slo: 'sk',
  wel: 'cy',
  lvs: 'lv',
  khk: 'mn',
  npi: 'ne',
  pbt: 'ps',
  uzn: 'uz',
  azj: 'az',
  als: 'sq',
  ydd: 'yi',
}

const byIso1 = new Map(LANGUAGES.map((r) => [r.iso1, r]))
const byIso3 = new Map(LANGUAGES.map((r) => [r.iso3, r]))
const byFlores = new Map(LANGUAGES.flatMap((r) => r.flores.map((f) => [f.toLowerCase(), r] as const)))
const byName = new Map(LANGUAGES.map((r) => [r.name.toLowerCase(), r]))

/**
 * The language a code or name stands for, whatever its scheme: en, eng, English, eng_Latn, en_XX,
 * __en__, >>eng<<, pt-BR. Null where none is known.
 */
export function languageOf(code: string): LanguageRow | null {
  const c = code
    .trim()
    .replace(/^__(.*)__$/, '$1')
    .replace(/^>>(.*)<<$/, '$1')
    .toLowerCase()
  if (!c) return null
  const direct = byFlores.get(c) ?? byName.get(c) ?? byIso1.get(c) ?? byIso3.get(c)
  if (direct) return direct
  const alias = ALIASES[c]
  if (alias) return byIso1.get(alias) ?? null
  // A code with a region or script after it: en_XX, pt-BR, zho_Hant, cmn_Hans.
  const head = /^([a-z]{2,3})[_-][a-z0-9]+$/.exec(c)?.[1]
  return head ? languageOf(head) : null
}

/**
 * The code of a side whose language the model does not name (BCP 47's "undetermined"): BART-large
 * and other monolingual folders, which have no language tokens and no pair in their name.
 */
export const UNDETERMINED = 'und'

/** "en→fr", or null for a model that names neither side's language: "und→und" says nothing. */
export function pairLabel(src: string, tgt: string): string | null {
  return src === UNDETERMINED && tgt === UNDETERMINED ? null : `${src}→${tgt}`
}

/** "Source (en)": a side's name with its language's code, the name alone where the model names none. */
export function sideLabel(name: string, code: string): string {
  return code === UNDETERMINED ? name : `${name} (${code})`
}

/** "French (fra_Latn)": a model's code with the language's name where one is known; the code alone otherwise. */
export function languageLabel(code: string): string {
  const row = languageOf(code)
  return row ? `${row.name} (${code})` : code
}

/**
 * What a multilingual model opened without a language pair says when asked to decode: which pair
 * to choose and how (the CLI's --src-lang/--tgt-lang, the app's language picker), with its codes.
 */
export function pairQuestion(name: string, codes: readonly string[]): string {
  const shown = codes.slice(0, 8).map(languageLabel).join(', ')
  return `${name} names no language pair (its tokenizer_config.json has no src_lang/tgt_lang): choose one, with --src-lang and --tgt-lang in the command line (e.g. --src-lang en --tgt-lang fr) or the model's language picker in the app, from its ${codes.length} languages: ${shown}${codes.length > 8 ? ', …' : ''}.`
}

/**
 * A language as typed or picked in the app's searchable picker ("French (fra_Latn)", "fra_Latn",
 * "fr", "French"): the code in brackets, else the text, for the engine to map to the model's code;
 * null where it cannot be one (LANGUAGE_CODE's characters, at most 16).
 */
export function typedLanguage(typed: string): string | null {
  const c = (/\(([^()]+)\)\s*$/.exec(typed)?.[1] ?? typed).trim()
  return /^[A-Za-z0-9_-]{1,16}$/.test(c) ? c : null
}
