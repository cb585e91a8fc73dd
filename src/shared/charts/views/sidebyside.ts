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
  figure: ({ a, b, names }, spec, frame) => buildSideBySideFigure({ a, b, names, colormap: spec.colormap, colorScale: spec.legend, frame }),
})
