import { buildGoldLinksOption } from '../gold-links'
import { always, defineView } from './view'

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
  figure: (d, spec, frame) =>
    buildGoldLinksOption({
      ...d,
      names: GOLD_LINK_NAMES[frame.lang],
      colormap: spec.colormap,
      colorScale: spec.legend,
      frame,
    }),
})
