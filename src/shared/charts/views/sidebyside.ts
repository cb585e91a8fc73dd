import { buildSideBySideFigure } from '../sidebyside'
import { always, defineView, someRowsClamped } from './view'

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
  // A part of a long sentence: the same output steps of both (the shorter output may end sooner).
  steps: (d) => Math.max(d.a.tgtTokens.length, d.b.tgtTokens.length),
  figure: ({ a, b, names, rows }, spec, frame) =>
    buildSideBySideFigure({ a: someRowsClamped(a, rows), b: someRowsClamped(b, rows), names, colormap: spec.colormap, colorScale: spec.legend, frame }),
})
