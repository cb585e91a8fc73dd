import { buildAlignmentFigure } from '../alignment'
import { FIGURE_TEXT } from '../figure-text'
import { defineView, never, rowsFrame, someRows } from './view'

/** Alignment lines: source above, output below, a line per weight at or above the threshold. */
export const lines = defineView({
  id: 'lines',
  names: { en: 'Alignment lines', zh: '对齐连线' },
  needs: ['translation', 'attention'],
  tab: { selection: 'reset' },
  cli: 'lines',
  export: { colormap: never, translation: (d) => d.translation },
  // Source down the left, output down the right: a long sentence on a narrow page.
  alternative: { names: { en: 'lines drawn down the page', zh: '竖排连线' } },
  steps: (d) => d.translation.tgtTokens.length,
  figure: ({ translation: whole, threshold, rows }, _spec, f) => {
    const t = someRows(whole, rows)
    const frame = rowsFrame(f, rows)
    return buildAlignmentFigure({
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      attention: t.attention,
      threshold,
      frame,
      orient: frame.alternative ? 'down' : 'across',
      outputTitle: rows ? FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], whole.tgtTokens.length) : undefined,
    })
  },
})
