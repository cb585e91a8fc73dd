import type { Translation } from '../../api'
import { FIGURE_TEXT } from '../figure-text'
import { buildSideBySideFigure } from '../sidebyside'
import { always, defineView, someRows } from './view'

/**
 * A part's output steps of one side: rows [first, end) of the longer output scaled to this one's
 * length, so each slide shows the same stretch of both sentences and the parts cover each side's
 * steps once, none left empty.
 */
export function sideRows(t: Translation, rows: readonly [number, number], steps: number): [number, number] {
  const n = t.tgtTokens.length
  const lo = Math.min(n - 1, Math.round((rows[0] * n) / steps))
  return [lo, Math.max(lo + 1, Math.round((rows[1] * n) / steps))]
}

/** Two attention maps of one sentence on one fixed 0–1 scale, and their difference A − B. */
export const sidebyside = defineView({
  id: 'sidebyside',
  names: { en: 'Side by side', zh: '并排比较' },
  needs: ['translation'],
  tab: { selection: 'keep' },
  cli: 'sidebyside',
  export: { colormap: always },
  // A over B, the difference beside or under them: a portrait page, or a paper column grown taller.
  alternative: { names: { en: 'stacked', zh: '上下排列' } },
  // A part of a long sentence: the same stretch of both outputs (steps of the longer, scaled to the shorter).
  steps: (d) => Math.max(d.a.tgtTokens.length, d.b.tgtTokens.length),
  figure: ({ a, b, names, rows }, spec, frame) => {
    const steps = Math.max(a.tgtTokens.length, b.tgtTokens.length)
    const [ra, rb] = rows ? [sideRows(a, rows, steps), sideRows(b, rows, steps)] : [undefined, undefined]
    const L = FIGURE_TEXT[frame.lang]
    // A part names each side's steps in its head (a map a few rows high has no room along its axis).
    const named = (i: 0 | 1, t: Translation, r: [number, number] | undefined) =>
      r ? `${names[i]} · ${L.outputRows(r[0] + 1, r[1], t.tgtTokens.length)}` : names[i]
    return buildSideBySideFigure({
      a: someRows(a, ra),
      b: someRows(b, rb),
      names: [named(0, a, ra), named(1, b, rb)],
      colormap: spec.colormap,
      colorScale: spec.legend,
      frame,
      partial: !!rows,
    })
  },
})
