import { readFile } from 'node:fs/promises'
import { ContractError } from '../../contract'

/** A folder's JSON file (config.json, tokenizer.json…) as read. */
export type Json = Record<string, unknown>

/** A folder's JSON object, or a ContractError naming the file that cannot be read. */
export async function readJson(path: string, what: string): Promise<Json> {
  try {
    const v = JSON.parse(await readFile(path, 'utf8')) as unknown
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object')
    return v as Json
  } catch (e) {
    throw new ContractError(`The folder's ${what} cannot be read (${(e as Error).message.split('\n')[0]}).`)
  }
}

/** The first integer among config values (a list counts by its first entry: eos_token_id: [2]). */
export const int = (...xs: unknown[]): number | null => {
  for (const x of xs) {
    const v = Array.isArray(x) ? x[0] : x
    if (typeof v === 'number' && Number.isInteger(v)) return v
  }
  return null
}
