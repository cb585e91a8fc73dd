import { buildHeatmapOption } from '../heatmap'
import { always, defineView } from './view'

export const heatmap = defineView({
  id: 'heatmap',
  names: { en: 'Heatmap', zh: '热力图' },
  needs: ['translation'],
  tab: { selection: 'reset' },
  cli: 'heatmap',
  export: { colormap: always, overlay: (d) => !!d.translation.positions, translation: (d) => d.translation },
  figure: ({ translation: t }, spec, frame) =>
    buildHeatmapOption({
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      attention: t.attention,
      positions: spec.localOverlay ? t.positions : null,
      windows: spec.localOverlay ? t.windows : null,
      colormap: spec.colormap,
      colorScale: spec.legend,
      labels: 'auto',
      frame,
    }),
})
