import { leadingTags } from './tags'

/**
 * Where attention goes (issue 39 #4): of each output step's attention, the part on the source's
 * words, on its `</s>`, and on the tags before it (a language tag or `<s>`, tags.ts). Tags are
 * counted apart from words, and so are the steps that write a tag: a forced first token (the
 * target's language) is no choice of the model's, so its row is left out of the means.
 */
export interface AttentionDestinations {
  /** Mean share of a step's attention on the source's words (everything but its tags and `</s>`). */
  words: number
  /** Mean share on `</s>`. */
  end: number
  /** Mean share on the leading tags; 0 where the source has none. */
  tags: number
  /** Whether the source has leading tags at all. */
  hasTags: boolean
  /** The steps averaged, and the forced steps left out. */
  steps: number
  forcedSteps: number
}

const END = '</s>'

export function attentionDestinations(
  attention: readonly (readonly number[])[],
  srcTokens: readonly string[],
  tgtTokens: readonly string[],
): AttentionDestinations {
  const head = leadingTags(srcTokens)
  // Only the first step is ever forced (forced_bos_token_id: a language tag or BART's <s>); a tag
  // written again after it is the model's own choice.
  const forcedSteps = attention.length && leadingTags(tgtTokens) > 0 ? 1 : 0
  let words = 0
  let end = 0
  let tags = 0
  let steps = 0
  for (let t = forcedSteps; t < attention.length; t++) {
    const row = attention[t]
    let total = 0
    let onEnd = 0
    let onTags = 0
    row.forEach((w, j) => {
      total += w
      if (j < head) onTags += w
      else if (srcTokens[j] === END) onEnd += w
    })
    // An empty row (a masked step) says nothing about where attention goes.
    if (total <= 0) continue
    steps++
    end += onEnd / total
    tags += onTags / total
    words += (total - onEnd - onTags) / total
  }
  const mean = (x: number) => (steps ? x / steps : 0)
  return { words: mean(words), end: mean(end), tags: mean(tags), hasTags: head > 0, steps, forcedSteps }
}
