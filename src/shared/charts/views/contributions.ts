import type { ContributionMethod } from '../../contributions'
import { FIGURE_TEXT } from '../figure-text'
import { buildHeatmapOption } from '../heatmap'
import { always, colsTitle, defineView, rowsFrame, someCols, someRows } from './view'

/** The method's name along the output axis: short, so it fits beside the rows of a short sentence or a part. */
export const FIGURE_METHOD_NAMES: Record<ContributionMethod, { en: string; zh: string }> = {
  norm: { en: 'value norms', zh: '值加权范数' },
  alti: { en: 'ALTI', zh: 'ALTI' },
  'alti+': { en: 'ALTI+', zh: 'ALTI+' },
  rollout: { en: 'rollout', zh: '注意力展开' },
}

/**
 * Contributions (issue 41): one method's matrix, the raw weights beside it and the source share; a
 * figure of the method's matrix. A long sentence splits into consecutive parts of its output rows
 * (`rows`), each at the preset's text size, as the heatmap does. It has no other arrangement: its
 * map is scaled row by row (each output word to its largest contribution), which a transposed map
 * would scale by source word instead.
 */
export const contributions = defineView({
  id: 'contributions',
  names: { en: 'Contributions', zh: '贡献' },
  // Every translation model: a Transformer's methods, an RNN's context-norm analogue; the tab itself
  // says where neither can read the model (an RNN without attention, a graph the taps do not recognise).
  needs: ['translation'],
  tab: { selection: 'keep' },
  export: { colormap: always, translation: (d) => d.translation },
  steps: (d) => d.translation.tgtTokens.length,
  // A source too wide for the page: parts of it, each row still scaled to its largest contribution over the whole source.
  sources: (d) => d.translation.srcTokens.length,
  figure: ({ translation: whole, method, rows, cols }, spec, f) => {
    const steps = someRows(whole, rows)
    const t = someCols(steps, cols)
    const frame = rowsFrame(f, rows)
    const name = FIGURE_METHOD_NAMES[method][frame.lang]
    return buildHeatmapOption({
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      attention: t.attention,
      colormap: spec.colormap,
      colorScale: spec.legend,
      norm: 'row',
      ...(cols ? { rowMax: steps.attention.map((r) => Math.max(0, ...r)) } : {}),
      sourceTitle: colsTitle(frame, cols, whole.srcTokens.length),
      labels: 'auto',
      // A part names its rows as the heatmap's parts do ("ALTI+ · output, steps 1–14 of 27").
      outputTitle: rows ? `${name} · ${FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], whole.tgtTokens.length)}` : name,
      frame,
    })
  },
})
