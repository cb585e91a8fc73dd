import { buildCorpusOption } from '../corpus'
import { defineView, never } from './view'

/** Every model of the pair on its test set: BLEU by source length. */
export const corpus = defineView({
  id: 'corpus',
  names: { en: 'BLEU by length', zh: '按句长的 BLEU' },
  needs: ['translation'],
  tab: { selection: 'keep' },
  cli: 'corpus',
  export: { colormap: never },
  figure: ({ corpus }, _spec, frame) => buildCorpusOption(corpus, undefined, frame),
})
