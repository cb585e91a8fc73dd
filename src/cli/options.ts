/** What every command shares: reading options and files, and the usage error that points to --help. */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { isHeadOf } from '../shared/attention/heads'
import { withLanguages } from '../shared/model-id'
import { variantFile } from '../engine/formats/hf/variants'
import type { GuardOptions } from '../shared/api'
import { DEFAULT_REPEAT_GUARD, MAX_GUARD_SETTING, NO_REPEAT_GUARD, validSetting } from '../shared/repeat-guard'

export class UsageError extends Error {}

export function args<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0].replace(/\. To specify.*$/, ''))
  }
}

export function readableFile(path: string | undefined, what: string): string {
  if (!path) throw new UsageError(`${what} is missing`)
  if (!existsSync(path)) throw new Error(`no such file: ${path}`)
  if (statSync(path).isDirectory()) throw new Error(`${path} is a folder, not a file`)
  return path
}

/**
 * A model's language pair, for every command that decodes: a multilingual model's (M2M100, NLLB,
 * mBART-50), a multi-target opus-mt's target, or a bilingual model's own pair, checked. Its own
 * codes (eng_Latn, en_XX, __en__), plain ISO codes (en, fr, zh) or English names (French).
 */
export const LANG_OPTIONS = {
  'src-lang': { type: 'string' },
  'tgt-lang': { type: 'string' },
  // A Hugging Face folder's precision: fp32, fp16, q8, int8, uint8, q4, q4f16, bnb4 (default: the most precise that fits in memory).
  dtype: { type: 'string' },
} as const

/**
 * A model: one file of the app's own format, or a Hugging Face folder (or one of its .onnx
 * files), with the language pair given by --src-lang/--tgt-lang for a multilingual one.
 */
export function modelPath(path: string | undefined, what: string, langs: { 'src-lang'?: string; 'tgt-lang'?: string; dtype?: string } = {}): string {
  if (!path) throw new UsageError(`${what} is missing`)
  if (!existsSync(path)) throw new Error(`no such file or folder: ${path}`)
  // --dtype opens the folder by that variant's own file (src/engine/formats/hf/variants.ts).
  if (langs.dtype !== undefined) path = variantFile(path, langs.dtype)
  const [src, tgt] = [langs['src-lang'], langs['tgt-lang']]
  if ((src === undefined) !== (tgt === undefined)) throw new UsageError('--src-lang and --tgt-lang go together (e.g. --src-lang en --tgt-lang fr)')
  return src !== undefined && tgt !== undefined ? withLanguages(path, src, tgt) : path
}

export function lines(path: string): string[] {
  const text = readFileSync(path, 'utf8').replace(/\r?\n$/, '')
  return text === '' ? [] : text.split(/\r?\n/)
}

/** `--head 2:3` (counted from 1, as the app names heads) → { layer: 1, head: 2 }, checked against the model. */
export function headOption(
  raw: string | undefined,
  heads: { layers: number; heads: number } | undefined,
  name: string,
): { layer: number; head: number } | undefined {
  if (raw === undefined) return undefined
  if (!heads) throw new Error(`${name} is not a Transformer: it has one attention, no heads to pick with --head`)
  const m = /^(\d+):(\d+)$/.exec(raw)
  const [layer, head] = m ? [Number(m[1]), Number(m[2])] : [0, 0]
  if (!isHeadOf({ layer: layer - 1, head: head - 1 }, heads))
    throw new UsageError(`--head must be LAYER:HEAD with LAYER from 1 to ${heads.layers} and HEAD from 1 to ${heads.heads} (e.g. --head 1:2)`)
  return { layer: layer - 1, head: head - 1 }
}

/** The repeat-guard options of every command that decodes freely (src/shared/repeat-guard.ts). */
export const guardOptions = {
  'no-repeat-ngram': { type: 'string' },
  'max-repeat': { type: 'string' },
  raw: { type: 'boolean' },
} as const

/** USAGE's line for them. */
export const GUARD_USAGE = `[--no-repeat-ngram N] [--max-repeat N] [--raw] (repeat guards, on by default: no N-gram of pieces twice (${DEFAULT_REPEAT_GUARD.noRepeatNgram}), no piece more than N times in a row (${DEFAULT_REPEAT_GUARD.maxRepeat}); 0 turns one off, --raw both and a Hugging Face folder's generation_config.json rules: plain argmax. A folder's default is its generation_config.json's: no guard unless it sets no_repeat_ngram_size)`

/** `--no-repeat-ngram N` and `--max-repeat N` (0 = off; absent = the model's default), or `--raw`: both off, and plain argmax. */
export function guardFrom(v: { 'no-repeat-ngram'?: string; 'max-repeat'?: string; raw?: boolean }): GuardOptions {
  const n = v['no-repeat-ngram']
  const r = v['max-repeat']
  if (v.raw) {
    if (n !== undefined || r !== undefined) throw new UsageError('--raw turns both repeat guards off: give it without --no-repeat-ngram and --max-repeat')
    return { ...NO_REPEAT_GUARD, raw: true }
  }
  const setting = (raw: string | undefined, name: string, fallback: number) => {
    if (raw === undefined) return fallback
    const x = Number(raw)
    if (raw.trim() === '' || !validSetting(x)) throw new UsageError(`--${name} must be a whole number from 0 (off) to ${MAX_GUARD_SETTING}`)
    return x
  }
  return {
    ...(n !== undefined ? { noRepeatNgram: setting(n, 'no-repeat-ngram', 0) } : {}),
    ...(r !== undefined ? { maxRepeat: setting(r, 'max-repeat', 0) } : {}),
  }
}

/** The guard in words, for a report: "raw (no repeat guards)" or what is on (a setting not given: the model's default). */
export function guardLabel(o: GuardOptions): string {
  if (o.raw || (o.noRepeatNgram === 0 && o.maxRepeat === 0)) return 'raw (no repeat guards)'
  if (o.noRepeatNgram === undefined && o.maxRepeat === undefined) return "the model's default repeat guards"
  const parts = [
    ...(o.noRepeatNgram !== undefined ? [`no-repeat-ngram ${o.noRepeatNgram || 'off'}`] : []),
    ...(o.maxRepeat !== undefined ? [`max-repeat ${o.maxRepeat || 'off'}`] : []),
  ]
  return `repeat guards ${parts.join(', ')}${o.noRepeatNgram === undefined || o.maxRepeat === undefined ? ", the other the model's default" : ''}`
}
