import { buildBeamFigure } from '../beam'
import { defineView, never } from './view'

/** The beam search's tree of hypotheses, the chosen path highlighted. */
export const beam = defineView({
  id: 'beam',
  names: { en: 'Beam', zh: '束搜索' },
  needs: ['translation'],
  tab: { selection: 'keep' },
  cli: 'beam',
  export: { colormap: never, translation: (d) => d.translation },
  figure: ({ translation }, _spec, frame) => buildBeamFigure(translation.beamTree!, frame),
})
