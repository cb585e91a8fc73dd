import { buildAlignmentFigure } from '../alignment'
import { defineView, never } from './view'

/** Alignment lines: source above, output below, a line per weight at or above the threshold. */
export const lines = defineView({
  id: 'lines',
  names: { en: 'Alignment lines', zh: '对齐连线' },
  needs: ['translation', 'attention'],
  tab: { selection: 'reset' },
  cli: 'lines',
  export: { colormap: never, translation: (d) => d.translation },
  figure: ({ translation: t, threshold }, _spec, frame) =>
    buildAlignmentFigure({ srcTokens: t.srcTokens, tgtTokens: t.tgtTokens, attention: t.attention, threshold, frame }),
})
