import { buildPositionPlotOption } from '../local'
import { defineView, never } from './view'

/** p_t against the output step of a local model, with the diagonal and the window band (drawn inside the local attention tab). */
export const positions = defineView({
  id: 'positions',
  names: { en: 'p_t by step', zh: '各步的 p_t' },
  needs: ['translation', 'positions'],
  cli: 'positions',
  export: { colormap: never, translation: (d) => d.translation },
  figure: ({ translation: t, rows }, _spec, frame) => {
    const T = t.tgtTokens.length
    return buildPositionPlotOption({
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      positions: t.positions!.slice(0, T),
      windows: t.windows!.slice(0, T),
      rows,
      frame,
    })
  },
})
