// A Transformer's heads ranked against another model's alignment of the same sentence: what the
// heatmap view keeps between the grid (which makes it) and the one head it exports.

/** Another model's alignment of the same sentence, forced through it, to rank the heads against. */
export interface ReferenceAlignment {
  /** The sentence and output it was made for: a ranking of another sentence is not shown. */
  key: string
  name: string
  /** [t][s], each row scaled to sum to 1; the steps whose output token both models share. */
  attention: number[][]
  /** Rows and columns are words, not tokens: the models split words into different pieces. */
  words: boolean
  /** Steps (or output words) compared, of all of them. */
  rows: number
  total: number
}

/** The key a reference alignment is made for. */
export const alignmentKey = (t: { source: string; tgtTokens: string[] }) => `${t.source}\u0001${t.tgtTokens.join('\u0001')}`
