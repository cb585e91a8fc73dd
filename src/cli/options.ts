/** What every command shares: reading options and files, and the usage error that points to --help. */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { isHeadOf } from '../shared/attention/heads'

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
