import type { Translation } from '../../api'
import { FIGURE_TEXT } from '../figure-text'
import { buildSideBySideFigure, differenceOf } from '../sidebyside'
import { always, colsTitle, defineView, scaledPart, someCols, someRows } from './view'

/**
 * A part's output steps of one side: rows [first, end) of the longer output scaled to this one's
 * length, so each slide shows the same stretch of both sentences and the parts cover each side's
 * steps once, none left empty.
 */
export const sideRows = (t: Translation, rows: readonly [number, number], steps: number): [number, number] => scaledPart(t.tgtTokens.length, rows, steps)

/** A part's source positions of one side: those of the longer source scaled to this one's (two tokenisations of one sentence). */
export const sideCols = (t: Translation, cols: readonly [number, number], sources: number): [number, number] => scaledPart(t.srcTokens.length, cols, sources)

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
  // A source too wide for the page: the same stretch of both sources (of the longer, scaled to the shorter).
  sources: (d) => Math.max(d.a.srcTokens.length, d.b.srcTokens.length),
  figure: ({ a, b, names, rows, cols }, spec, frame) => {
    const steps = Math.max(a.tgtTokens.length, b.tgtTokens.length)
    const sources = Math.max(a.srcTokens.length, b.srcTokens.length)
    const [ra, rb] = rows ? [sideRows(a, rows, steps), sideRows(b, rows, steps)] : [undefined, undefined]
    const [ca, cb] = cols ? [sideCols(a, cols, sources), sideCols(b, cols, sources)] : [undefined, undefined]
    const L = FIGURE_TEXT[frame.lang]
    // A part names each side's steps in its head (a map a few rows high has no room along its axis).
    const named = (i: 0 | 1, t: Translation, r: [number, number] | undefined) =>
      r ? `${names[i]} · ${L.outputRows(r[0] + 1, r[1], t.tgtTokens.length)}` : names[i]
    return buildSideBySideFigure({
      a: someCols(someRows(a, ra), ca),
      b: someCols(someRows(b, rb), cb),
      names: [named(0, a, ra), named(1, b, rb)],
      colormap: spec.colormap,
      colorScale: spec.legend,
      frame,
      partial: !!rows || !!cols,
      // A part's difference on the whole sentence's range, so the parts read alike.
      ...(rows || cols ? { range: differenceOf(a, b).range } : {}),
      ...(cols ? { sourceTitles: [colsTitle(frame, ca, a.srcTokens.length), colsTitle(frame, cb, b.srcTokens.length)] as [string, string] } : {}),
    })
  },
})
