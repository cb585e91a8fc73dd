import { buildAlignmentFigure, GAP } from '../alignment'
import { FIGURE_TEXT } from '../figure-text'
import { defineView, never, rowsFrame, someRows } from './view'

/** Alignment lines: source above, output below, a line per weight at or above the threshold. */
export const lines = defineView({
  id: 'lines',
  names: { en: 'Alignment lines', zh: '对齐连线' },
  needs: ['translation', 'attention'],
  tab: { selection: 'reset' },
  cli: 'lines',
  export: { colormap: never, translation: (d) => d.translation },
  // Source down the left, output down the right: a long sentence on a narrow page.
  alternative: { names: { en: 'lines drawn down the page', zh: '竖排连线' } },
  steps: (d) => d.translation.tgtTokens.length,
  figure: ({ translation: whole, threshold, rows }, _spec, f) => {
    const t = someRows(whole, rows)
    const frame = rowsFrame(f, rows)
    const S = whole.srcTokens.length
    // A part of a split figure: its stretch of the source and the other words its lines reach, a gap between runs.
    const shown = withGaps(rows ? partSource(whole.attention, S, rows, threshold) : whole.srcTokens.map((_, s) => s))
    return buildAlignmentFigure({
      srcTokens: shown.map((s) => (s === null ? GAP : whole.srcTokens[s])),
      gaps: new Set(shown.flatMap((s, i) => (s === null ? [i] : []))),
      tgtTokens: t.tgtTokens,
      attention: t.attention.map((r) => shown.map((s) => (s === null ? 0 : r[s]))),
      threshold,
      frame,
      orient: frame.alternative ? 'down' : 'across',
      outputTitle: rows ? FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], whole.tgtTokens.length) : undefined,
    })
  },
})

/** Ascending source positions with a null wherever the run breaks. */
export function withGaps(positions: readonly number[]): (number | null)[] {
  const out: (number | null)[] = []
  positions.forEach((s, i) => {
    if (i > 0 && s !== positions[i - 1] + 1) out.push(null)
    out.push(s)
  })
  return out
}

/**
 * Where the source is cut between output steps [0, x) and [x, T), for every x: the cut that the
 * fewest steps' top-weighted words cross (a step before x reading at or after it, or one from x on
 * reading before it), of those the nearest to the cut in proportion (x·S/T); never before an
 * earlier step's cut. A step that reads far from its neighbours (Bahdanau's first word often looks
 * at the final ".") moves no cut. Where most steps on either side disagree even with the best cut,
 * their top words do not follow the sentence (a model that reads the final "。" at most steps):
 * the cut is then in proportion.
 */
export function sourceCuts(attention: number[][], S: number): number[] {
  const known = cutsOf.get(attention)
  if (known?.S === S) return known.cuts
  const T = attention.length
  const top = attention.map((r) => r.reduce((best, v, s) => (v > (r[best] ?? -Infinity) ? s : best), 0))
  // How many steps before x and from x on read each word most, moved along as x grows.
  const before = new Array<number>(S + 1).fill(0)
  const after = new Array<number>(S + 1).fill(0)
  for (const s of top) after[Math.min(s, S)]++
  const cuts = [0]
  for (let x = 1; x < T; x++) {
    const moved = Math.min(top[x - 1], S)
    before[moved]++
    after[moved]--
    const even = (x * S) / T
    let [best, cut, readBefore, readAfter] = [Infinity, 0, 0, 0]
    // Scanning the cut c upward: lessBefore steps before x read before c, lessAfter steps from x on do.
    let [lessBefore, lessAfter] = [0, 0]
    for (let c = 0; c <= S; c++) {
      if (c > 0) [lessBefore, lessAfter] = [lessBefore + before[c - 1], lessAfter + after[c - 1]]
      const crossing = x - lessBefore + lessAfter
      if (crossing < best || (crossing === best && Math.abs(c - even) < Math.abs(cut - even)))
        [best, cut, readBefore, readAfter] = [crossing, c, lessBefore / x, (T - x - lessAfter) / (T - x)]
    }
    cuts.push(Math.max(cuts[x - 1], readBefore > 0.5 && readAfter > 0.5 ? cut : Math.round(even)))
  }
  cuts.push(S)
  cutsOf.set(attention, { S, cuts })
  return cuts
}

/** The cuts of a translation's attention, worked out once for all the parts the fitter tries. */
const cutsOf = new WeakMap<number[][], { S: number; cuts: number[] }>()

/**
 * The source positions a part of output steps [a, b) shows, ascending: its own stretch between
 * the cuts at a and b (sourceCuts; the parts' stretches tile the source, so every word is on some
 * part), and every other position one of its steps gives a line to (a weight at or above the
 * threshold), so a part draws every line of its steps.
 */
export function partSource(attention: number[][], S: number, [a, b]: readonly [number, number], threshold: number): number[] {
  const cuts = sourceCuts(attention, S)
  const [from, to] = [cuts[a], cuts[Math.min(b, attention.length)]]
  const shown = new Set<number>()
  for (let s = from; s < to; s++) shown.add(s)
  for (const r of attention.slice(a, b)) r.forEach((v, s) => v >= threshold && s < S && shown.add(s))
  return [...shown].sort((x, y) => x - y)
}
