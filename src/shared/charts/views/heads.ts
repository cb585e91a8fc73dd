import { buildHeadFigure, buildHeadsGridFigure } from '../heads'
import { always, defineView, someRows } from './view'

/** A model's cross-attention heads: the layer × head grid (under the heatmap in the app), or one head large. */
export const heads = defineView({
  id: 'heads',
  names: { en: 'Heads', zh: '注意力头' },
  needs: ['translation', 'heads'],
  cli: 'heads',
  export: { colormap: always, translation: (d) => d.translation },
  steps: (d) => d.translation.tgtTokens.length,
  figure: ({ translation: whole, head, reference: ref, rows }, spec, frame) => {
    const t = someRows(whole, rows)
    const reference = ref && rows ? { ...ref, attention: ref.attention.slice(rows[0], rows[1]) } : ref
    const common = { srcTokens: t.srcTokens, tgtTokens: t.tgtTokens, crossAttention: t.crossAttention!, reference: reference ?? null }
    return head
      ? buildHeadFigure({ ...common, head, colormap: spec.colormap, colorScale: spec.legend, frame })
      : buildHeadsGridFigure({ ...common, colormap: spec.colormap, colorScale: spec.legend, frame })
  },
})
