/**
 * Pharaoh alignment files, the format of fast_align, awesome-align and the WPT gold sets: one line
 * per sentence pair, links `i-j` (sure) or `ipj` (possible), i a source word and j a target word,
 * counted from 0 or from 1 depending on who wrote the file (the gold sets count from 1, aligners
 * from 0). In memory links are always 0-based.
 */

import type { Link } from '../../shared/alignment'
export type { Link }

export class PharaohError extends Error {}

/** One line of links; `oneBased` subtracts 1 from every index. */
export function parsePharaohLine(line: string, oneBased = false, where = 'the line'): Link[] {
  const out: Link[] = []
  const off = oneBased ? 1 : 0
  for (const item of line.trim().split(/\s+/)) {
    if (item === '') continue
    const m = /^(\d+)([-p])(\d+)$/.exec(item)
    if (!m) throw new PharaohError(`${where}: "${item}" is not a link (i-j or ipj)`)
    const i = Number(m[1]) - off
    const j = Number(m[3]) - off
    if (i < 0 || j < 0) throw new PharaohError(`${where}: "${item}" has a word 0 in a file counted from 1`)
    out.push({ i, j, sure: m[2] === '-' })
  }
  return out
}

/** A whole file's text, one line per pair (a final newline does not make an extra pair). */
export function parsePharaoh(text: string, oneBased = false, name = 'the file'): Link[][] {
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/)
  if (lines.length === 1 && lines[0] === '' && text === '') return []
  return lines.map((l, n) => parsePharaohLine(l, oneBased, `${name}, line ${n + 1}`))
}

/** Links as a Pharaoh line, sorted by source then target word. */
export function formatPharaohLine(links: readonly Link[], oneBased = false): string {
  const off = oneBased ? 1 : 0
  return [...links]
    .sort((a, b) => a.i - b.i || a.j - b.j)
    .map((l) => `${l.i + off}${l.sure ? '-' : 'p'}${l.j + off}`)
    .join(' ')
}

/** Sure links from (i, j) pairs. */
export const sureLinks = (pairs: readonly (readonly [number, number])[]): Link[] => pairs.map(([i, j]) => ({ i, j, sure: true }))

/** The key of a link regardless of its kind, for set operations. */
export const linkKey = (i: number, j: number): number => i * 65536 + j
