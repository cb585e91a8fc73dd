import type { Link } from '../../alignment'
import { FIGURE_TEXT } from '../figure-text'
import { buildGoldLinksOption } from '../gold-links'
import { always, colsTitle, defineView, rowsFrame } from './view'

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
  // A source too wide for the page: parts of its words, each with its own links, on the one 0–1 scale.
  sources: (d) => d.srcWords.length,
  figure: ({ rows, cols, ...d }, spec, frame) =>
    buildGoldLinksOption({
      ...someSourceWords(rows ? someWords(d, rows) : d, cols),
      ...(rows ? { outputTitle: FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], d.tgtWords.length) } : {}),
      ...(cols ? { sourceTitle: colsTitle(frame, cols, d.srcWords.length) } : {}),
      names: GOLD_LINK_NAMES[frame.lang],
      colormap: spec.colormap,
      colorScale: spec.legend,
      frame: rowsFrame(frame, rows),
    }),
})

type GoldSentence = { srcWords: string[]; tgtWords: string[]; matrix: (number[] | null)[]; gold: Link[]; extracted: Link[]; statistical: Link[] | null }

/** A gold sentence's links kept where `keep` says, moved by `move`: a part's, counted from its first word. */
function someLinks<D extends GoldSentence>(d: D, keep: (l: Link) => boolean, move: (l: Link) => Link): Pick<D, 'gold' | 'extracted' | 'statistical'> {
  const links = (ls: Link[]) => ls.filter(keep).map(move)
  return { gold: links(d.gold), extracted: links(d.extracted), statistical: d.statistical && links(d.statistical) }
}

/** Target words [first, end) of a gold sentence: their rows and their links, counted from the first. */
function someWords<D extends GoldSentence>(d: D, [a, b]: readonly [number, number]): D {
  return {
    ...d,
    tgtWords: d.tgtWords.slice(a, b),
    matrix: d.matrix.slice(a, b),
    ...someLinks(
      d,
      (l) => l.j >= a && l.j < b,
      (l) => ({ ...l, j: l.j - a }),
    ),
  }
}

/** Source words [first, end) of a gold sentence (all of them where undefined): their columns and their links, counted from the first. */
function someSourceWords<D extends GoldSentence>(d: D, cols: readonly [number, number] | undefined): D {
  if (!cols) return d
  const [a, b] = cols
  return {
    ...d,
    srcWords: d.srcWords.slice(a, b),
    matrix: d.matrix.map((r) => r && r.slice(a, b)),
    ...someLinks(
      d,
      (l) => l.i >= a && l.i < b,
      (l) => ({ ...l, i: l.i - a }),
    ),
  }
}
