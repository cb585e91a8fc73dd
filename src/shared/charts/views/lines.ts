import { buildAlignmentFigure } from '../alignment'
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
    // A part of a split figure draws the source words its output steps read (and those between
    // parts), so the parts together show every source word once or more.
    const [s0, s1] = rows ? sourceSpan(whole.attention, whole.srcTokens.length, rows) : [0, whole.srcTokens.length]
    return buildAlignmentFigure({
      srcTokens: t.srcTokens.slice(s0, s1),
      tgtTokens: t.tgtTokens,
      attention: t.attention.map((r) => r.slice(s0, s1)),
      threshold,
      frame,
      orient: frame.alternative ? 'down' : 'across',
      outputTitle: rows ? FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], whole.tgtTokens.length) : undefined,
    })
  },
})

/**
 * The source words [first, end) a part of output steps [a, b) shows: from where the earlier steps'
 * reading ended to where its own ends (the running furthest top-weighted source word), widened to
 * every word its own steps read most; the first part starts at the first word, the last ends at
 * the last, so consecutive parts cover the whole source.
 */
export function sourceSpan(attention: number[][], S: number, [a, b]: readonly [number, number]): [number, number] {
  const top = attention.map((r) => r.reduce((best, v, s) => (v > (r[best] ?? -Infinity) ? s : best), 0))
  const reach = (t: number) => (t < 0 ? -1 : Math.max(...top.slice(0, t + 1)))
  const own = top.slice(a, b)
  const first = Math.min(a === 0 ? 0 : reach(a - 1) + 1, ...own)
  const last = Math.max(b >= attention.length ? S - 1 : reach(b - 1), ...own)
  return [Math.max(0, Math.min(first, S - 1)), Math.min(S, last + 1)]
}
