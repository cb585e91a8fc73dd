/**
 * Groups of tokens that form one word, when the tokenizer marks pieces: subword-nmt's trailing
 * "@@", SentencePiece's leading "▁" (a piece without it continues the previous word) or
 * WordPiece's leading "##". Returns [first, last] index ranges of groups with more than one piece.
 */
export function pieceGroups(tokens: string[]): [number, number][] {
  const sp = tokens.some((t) => t.startsWith('\u2581'))
  const groups: [number, number][] = []
  let start = 0
  for (let i = 1; i <= tokens.length; i++) {
    const prev = tokens[i - 1]
    const cur = tokens[i]
    const continues = i < tokens.length && (prev.endsWith('@@') || cur.startsWith('##') || (sp && !cur.startsWith('\u2581') && !/^<.*>$/.test(cur)))
    if (!continues) {
      if (i - 1 > start) groups.push([start, i - 1])
      start = i
    }
  }
  return groups
}
