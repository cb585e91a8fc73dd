import type { Link } from '../../alignment'
import { FIGURE_TEXT } from '../figure-text'
import { buildGoldLinksOption } from '../gold-links'
import { always, defineView, rowsFrame } from './view'

/** The links' names in a figure's key, by the figure's language (the app's view passes its own). */
export const GOLD_LINK_NAMES = {
  en: { sure: 'gold, sure', possible: 'gold, possible', extracted: 'attention argmax', statistical: 'statistical aligner' },
  zh: { sure: '金标准（确定）', possible: '金标准（可能）', extracted: '注意力最大值', statistical: '统计对齐器' },
}

/** Alignment score: a gold set against the open models, and one sentence's attention with the gold, extracted and statistical links. */
export const goldlinks = defineView({
  id: 'goldlinks',
  names: { en: 'Alignment score', zh: '对齐评分' },
  needs: ['translation', 'attention'],
  tab: { selection: 'keep' },
  export: { colormap: always },
  // A long sentence on a slide: consecutive parts of its target words, each with every source word and its own links.
  steps: (d) => d.tgtWords.length,
  figure: ({ rows, ...d }, spec, frame) =>
    buildGoldLinksOption({
      ...(rows ? someWords(d, rows) : d),
      ...(rows ? { outputTitle: FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], d.tgtWords.length) } : {}),
      names: GOLD_LINK_NAMES[frame.lang],
      colormap: spec.colormap,
      colorScale: spec.legend,
      frame: rowsFrame(frame, rows),
    }),
})

/** Target words [first, end) of a gold sentence: their rows and their links, counted from the first. */
function someWords<D extends { tgtWords: string[]; matrix: (number[] | null)[]; gold: Link[]; extracted: Link[]; statistical: Link[] | null }>(
  d: D,
  [a, b]: readonly [number, number],
): D {
  const links = (ls: Link[]) => ls.filter((l) => l.j >= a && l.j < b).map((l) => ({ ...l, j: l.j - a }))
  return {
    ...d,
    tgtWords: d.tgtWords.slice(a, b),
    matrix: d.matrix.slice(a, b),
    gold: links(d.gold),
    extracted: links(d.extracted),
    statistical: d.statistical && links(d.statistical),
  }
}
