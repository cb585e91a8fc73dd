import type { ContributionMethod } from '../../contributions'
import { buildShareColumnFigure } from '../context-norm'
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

/** The name over an RNN's share bars (the tab's). */
export const CONTEXT_SHARE_NAME = { en: 'context share', zh: '上下文占比' } as const

/**
 * Contributions (issue 41): one method's matrix, the raw weights beside it and the source share; a
 * figure of the method's matrix. A long sentence splits into consecutive parts of its output rows
 * (`rows`), each at the preset's text size, as the heatmap does. It has no other arrangement: its
 * map is scaled row by row (each output word to its largest contribution), which a transposed map
 * would scale by source word instead. An RNN's (`context-norm`): its attention weights on the
 * heatmap's 0–1 scale, each output row's context share as a bar beside its row.
 */
export const contributions = defineView({
  id: 'contributions',
  names: { en: 'Contributions', zh: '贡献' },
  // Every translation model: a Transformer's methods, an RNN's context-norm analogue; the tab itself
  // says where neither can read the model (an RNN without attention, a graph the taps do not recognise).
  needs: ['translation'],
  tab: { selection: 'keep' },
  cli: 'contributions',
  export: { colormap: always, translation: (d) => d.translation },
  steps: (d) => d.translation.tgtTokens.length,
  // A source too wide for the page: parts of it, each row still scaled to its largest contribution over the whole source.
  sources: (d) => d.translation.srcTokens.length,
  figure: ({ translation: whole, method, sourceShare, rows, cols }, spec, f) => {
    const steps = someRows(whole, rows)
    const t = someCols(steps, cols)
    const frame = rowsFrame(f, rows)
    const L = FIGURE_TEXT[frame.lang]
    const part = rows ? L.outputRows(rows[0] + 1, rows[1], whole.tgtTokens.length) : null
    // A part names its rows as the heatmap's parts do ("ALTI+ · output, steps 1–14 of 27"); an RNN's
    // map is its attention weights, named as the heatmap names them (the output axis, the colour bar).
    const name = method === 'context-norm' ? L.output : FIGURE_METHOD_NAMES[method][frame.lang]
    const outputTitle = part ? (method === 'context-norm' ? part : `${name} · ${part}`) : name
    const sourceTitle = colsTitle(frame, cols, whole.srcTokens.length)
    const map = {
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      attention: t.attention,
      colormap: spec.colormap,
      colorScale: spec.legend,
      labels: 'auto' as const,
      sourceTitle,
      outputTitle,
    }
    if (method === 'context-norm')
      return buildShareColumnFigure({
        map: { ...map, clip: !!cols },
        share: rows ? sourceShare.slice(...rows) : sourceShare,
        name: CONTEXT_SHARE_NAME[frame.lang],
        frame,
      })
    return buildHeatmapOption({ ...map, norm: 'row', ...(cols ? { rowMax: steps.attention.map((r) => Math.max(0, ...r)) } : {}), frame })
  },
})
