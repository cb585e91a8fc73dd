import { readFile } from 'node:fs/promises'
import { parsePharaoh, type Link } from './pharaoh'

/** One sentence pair of a `.src-tgt` file: its words, split on spaces as the gold's indices count them. */
export interface WordPair {
  src: string[]
  tgt: string[]
}

/** `source words ||| target words`, one pair a line (the format of fast_align and awesome-align). */
export function parsePairs(text: string, name = 'the file'): WordPair[] {
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/)
  if (text === '') return []
  return lines.map((l, n) => {
    const parts = l.split(' ||| ')
    if (parts.length !== 2) throw new Error(`${name}, line ${n + 1}: expected "source ||| target"`)
    const words = (s: string) => s.split(/\s+/).filter((w) => w !== '')
    return { src: words(parts[0]), tgt: words(parts[1]) }
  })
}

export async function readPairs(path: string): Promise<WordPair[]> {
  return parsePairs(await readFile(path, 'utf8'), path)
}

/** A gold file (1-based by the WPT convention) or an aligner's output (0-based). */
export async function readLinks(path: string, oneBased: boolean): Promise<Link[][]> {
  return parsePharaoh(await readFile(path, 'utf8'), oneBased, path)
}

/** Links that point outside their pair's words: a file of another set, or counted from the other base. */
export function outOfRange(pairs: readonly WordPair[], links: readonly (readonly Link[])[]): string | null {
  for (let n = 0; n < Math.min(pairs.length, links.length); n++) {
    const bad = links[n].find((l) => l.i >= pairs[n].src.length || l.j >= pairs[n].tgt.length)
    if (bad) return `pair ${n + 1} has ${pairs[n].src.length} source and ${pairs[n].tgt.length} target words, but a link ${bad.i}-${bad.j} (0-based)`
  }
  return null
}
