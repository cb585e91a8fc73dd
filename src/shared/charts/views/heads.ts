import { HEADS_PANELS } from '../../figure'
import { FIGURE_TEXT } from '../figure-text'
import { buildHeadFigure, buildHeadsGridFigure, buildHeadsPanelFigure } from '../heads'
import { always, defineView, someRows } from './view'

/** A model's cross-attention heads: the layer × head grid (under the heatmap in the app), or one head large. */
export const heads = defineView({
  id: 'heads',
  names: { en: 'Heads', zh: '注意力头' },
  needs: ['translation', 'heads'],
  cli: 'heads',
  export: { colormap: always, translation: (d) => d.translation },
  // The grid's parts are not split by steps (twelve small maps of a few steps each say little): the average is.
  steps: (d) => (d.head === null && d.panel !== 'average' ? 0 : d.translation.tgtTokens.length),
  // A long sentence's grid on a slide: the heads' average large with every label (split by steps
  // where it is long), then every head's map small on the average's axes, each slide at the text size asked.
  pieces: (d) =>
    d.head === null && !d.panel && !d.rows
      ? HEADS_PANELS.map((panel) => ({
          data: { ...d, panel },
          names: panel === 'average' ? { en: FIGURE_TEXT.en.heads.average, zh: FIGURE_TEXT.zh.heads.average } : { en: 'every head', zh: '所有头' },
        }))
      : null,
  figure: ({ translation: whole, head, reference: ref, rows, panel }, spec, frame) => {
    const t = someRows(whole, rows)
    const reference = ref && rows ? { ...ref, attention: ref.attention.slice(rows[0], rows[1]) } : ref
    const common = { srcTokens: t.srcTokens, tgtTokens: t.tgtTokens, crossAttention: t.crossAttention!, reference: reference ?? null }
    const style = { colormap: spec.colormap, colorScale: spec.legend, frame }
    if (head) return buildHeadFigure({ ...common, head, ...style })
    const outputTitle = rows ? FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], whole.tgtTokens.length) : undefined
    return panel ? buildHeadsPanelFigure({ ...common, ...style, outputTitle }, panel) : buildHeadsGridFigure({ ...common, ...style })
  },
})
