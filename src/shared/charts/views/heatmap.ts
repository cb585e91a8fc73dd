import { buildHeatmapOption } from '../heatmap'
import { FIGURE_TEXT } from '../figure-text'
import { always, colsTitle, defineView, rowsFrame, someCols, someRows } from './view'

/** Rows as columns. */
const transpose = (m: number[][], cols: number) => Array.from({ length: cols }, (_, s) => m.map((r) => r[s] ?? 0))

export const heatmap = defineView({
  id: 'heatmap',
  names: { en: 'Heatmap', zh: '热力图' },
  needs: ['translation'],
  tab: { selection: 'reset' },
  cli: 'heatmap',
  export: { colormap: always, overlay: (d) => !!d.translation.positions, translation: (d) => d.translation },
  // Output across and source down: a landscape slide takes the longer side across. The local
  // window marks a row's span of the source, so a map with it drawn keeps its way.
  alternative: { names: { en: 'transposed', zh: '已转置' }, offered: (d, spec) => !(spec.localOverlay && d.translation.positions) },
  steps: (d) => d.translation.tgtTokens.length,
  // A source too wide for the page: parts of it, each on the one 0–1 scale, p_t and windows cut at its edges.
  sources: (d) => d.translation.srcTokens.length,
  figure: ({ translation: whole, rows, cols }, spec, f) => {
    const t = someCols(someRows(whole, rows), cols)
    const frame = rowsFrame(f, rows)
    const L = FIGURE_TEXT[frame.lang]
    const outputTitle = rows ? L.outputRows(rows[0] + 1, rows[1], whole.tgtTokens.length) : L.output
    const sourceTitle = colsTitle(frame, cols, whole.srcTokens.length)
    const overlay = spec.localOverlay && !frame.alternative
    const base = { colormap: spec.colormap, colorScale: spec.legend, labels: 'auto' as const }
    if (frame.alternative)
      return buildHeatmapOption({
        ...base,
        srcTokens: t.tgtTokens,
        tgtTokens: t.srcTokens,
        attention: transpose(t.attention, t.srcTokens.length),
        sourceTitle: outputTitle,
        outputTitle: sourceTitle,
        // The highlighted output step is a column now.
        highlightCol: frame.highlightRow,
        frame: { ...frame, highlightRow: null },
      })
    return buildHeatmapOption({
      ...base,
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      attention: t.attention,
      positions: overlay ? t.positions : null,
      windows: overlay ? t.windows : null,
      clip: !!cols,
      outputTitle,
      sourceTitle,
      frame,
    })
  },
})
