import { buildSideBySideFigure } from '../sidebyside'
import { always, defineView } from './view'

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
  figure: ({ a, b, names }, spec, frame) => buildSideBySideFigure({ a, b, names, colormap: spec.colormap, colorScale: spec.legend, frame }),
})
