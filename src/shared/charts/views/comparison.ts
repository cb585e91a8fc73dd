import { buildComparisonOption } from '../comparison'
import { defineView, never } from './view'

/** The same sentence through the no-attention model and the attention models. */
export const comparison = defineView({
  id: 'comparison',
  names: { en: 'With / without', zh: '有无注意力' },
  needs: ['translation'],
  tab: { selection: 'keep' },
  cli: 'comparison',
  export: { colormap: never },
  figure: ({ translations, names, colours }, _spec, frame) => buildComparisonOption({ translations, names, colours, frame }),
})
