import { METHOD_NAMES } from '../contributions'
import { buildHeatmapOption } from '../heatmap'
import { always, defineView } from './view'

/** Contributions (issue 41): one method's matrix, the raw weights beside it and the source share; a figure of the method's matrix. */
export const contributions = defineView({
  id: 'contributions',
  names: { en: 'Contributions', zh: '贡献' },
  // A Transformer's heads; the tab itself says where the methods cannot read the model yet (a Hugging Face folder).
  needs: ['translation', 'attention', 'heads'],
  tab: { selection: 'keep' },
  export: { colormap: always, translation: (d) => d.translation },
  figure: (d, spec, frame) =>
    buildHeatmapOption({
      srcTokens: d.translation.srcTokens,
      tgtTokens: d.translation.tgtTokens,
      attention: d.translation.attention,
      colormap: spec.colormap,
      colorScale: spec.legend,
      norm: 'row',
      labels: 'auto',
      outputTitle: METHOD_NAMES[d.method][frame.lang],
      frame,
    }),
})
