import { buildPositionPlotOption } from '../local'
import { buildPositionsAcross } from '../positions-across'
import { defineView, never } from './view'

/** p_t against the output step of a local model, with the diagonal and the window band (drawn inside the local attention tab). */
export const positions = defineView({
  id: 'positions',
  names: { en: 'p_t by step', zh: '各步的 p_t' },
  needs: ['translation', 'positions'],
  cli: 'positions',
  export: { colormap: never, translation: (d) => d.translation },
  // Source positions across and output steps down: a landscape slide has room for a sentence's
  // source words along its width, not up its height.
  alternative: { names: { en: 'transposed', zh: '已转置' } },
  // A long sentence on a slide: consecutive parts of its output steps.
  steps: (d) => d.translation.tgtTokens.length,
  figure: ({ translation: t, rows, near }, _spec, frame) => {
    const T = t.tgtTokens.length
    const input = {
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      positions: t.positions!.slice(0, T),
      windows: t.windows!.slice(0, T),
      rows,
      near,
      frame,
    }
    return frame.alternative ? buildPositionsAcross(input, frame) : buildPositionPlotOption(input)
  },
})
