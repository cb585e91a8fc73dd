import { linkKey, type Link } from './pharaoh'

const NEIGHBOURS: [number, number][] = [
  [-1, 0],
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, -1],
  [-1, 1],
  [1, -1],
  [1, 1],
]

/**
 * grow-diag-final-and (Koehn et al. 2003; Moses' symmetrisation, as in fast_align's atools):
 * start from the intersection of the two directions; repeatedly add a neighbouring point
 * (diagonals included) of an alignment point when it is in the union and its source or its
 * target word is still unaligned; finally add, direction by direction, the points of that direction
 * whose source and target words are both still unaligned.
 * `forward` and `backward` are both given as (source i, target j) links.
 */
export function growDiagFinalAnd(forward: readonly Link[], backward: readonly Link[], srcLen: number, tgtLen: number): Link[] {
  const fwd = new Set(forward.map((l) => linkKey(l.i, l.j)))
  const bwd = new Set(backward.map((l) => linkKey(l.i, l.j)))
  const union = new Set([...fwd, ...bwd])
  const a = new Set([...fwd].filter((k) => bwd.has(k)))
  const srcAligned = new Array<boolean>(srcLen).fill(false)
  const tgtAligned = new Array<boolean>(tgtLen).fill(false)
  const add = (i: number, j: number) => {
    a.add(linkKey(i, j))
    srcAligned[i] = true
    tgtAligned[j] = true
  }
  for (const k of a) add(Math.floor(k / 65536), k % 65536)
  let grew = true
  while (grew) {
    grew = false
    for (let i = 0; i < srcLen; i++)
      for (let j = 0; j < tgtLen; j++) {
        if (!a.has(linkKey(i, j))) continue
        for (const [di, dj] of NEIGHBOURS) {
          const ni = i + di
          const nj = j + dj
          if (ni < 0 || nj < 0 || ni >= srcLen || nj >= tgtLen) continue
          if ((!srcAligned[ni] || !tgtAligned[nj]) && union.has(linkKey(ni, nj)) && !a.has(linkKey(ni, nj))) {
            add(ni, nj)
            grew = true
          }
        }
      }
  }
  for (const dir of [fwd, bwd])
    for (let i = 0; i < srcLen; i++) for (let j = 0; j < tgtLen; j++) if (!srcAligned[i] && !tgtAligned[j] && dir.has(linkKey(i, j))) add(i, j)
  return [...a].map((k) => ({ i: Math.floor(k / 65536), j: k % 65536, sure: true })).sort((x, y) => x.i - y.i || x.j - y.j)
}
