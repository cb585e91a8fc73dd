import { buildSpotlightOption } from '../local'
import { defineView, never } from './view'

/** The spotlight of one output step of a local model: in-window softmax, Gaussian, product. */
export const local = defineView({
  id: 'local',
  names: { en: 'Local attention', zh: '局部注意力' },
  needs: ['translation', 'positions'],
  tab: { selection: 'keep' },
  cli: 'local',
  export: { colormap: never, translation: (d) => d.translation },
  figure: ({ translation: t, step: i, windowD, cols }, _spec, frame) =>
    buildSpotlightOption({
      srcTokens: t.srcTokens,
      align: t.align![i],
      gaussian: t.gaussian![i],
      attention: t.attention[i],
      position: t.positions![i],
      window: t.windows![i],
      windowD,
      cols,
      // The figure data carries no kind: a Gaussian strictly between 0 and 1 is local-p's.
      kind: t.gaussian![i].some((g) => g > 0 && g < 1) ? 'predictive' : 'monotonic',
      frame,
    }),
})
