/**
 * "Predict, then reveal" in presentation mode, with the rules of the interactive HTML export
 * (src/shared/charts/html-export/client.ts): the attention row of the next step is hidden, the
 * class guesses the source word the model will read most, a click or key reveals the row with the
 * model's top-1 word and its weight, and a tally counts the guesses that matched over the
 * sentence. Nothing is stored: the state lives in memory and starts over with each sentence.
 */

/** The model's top-1 source position of a row (the first of equal weights), and its weight. */
export function topOf(row: readonly number[]): { index: number; weight: number } {
  let index = 0
  for (let s = 1; s < row.length; s++) if (row[s] > row[index]) index = s
  return { index, weight: row[index] ?? 0 }
}

export class Predict {
  /** The step whose row is hidden until it is revealed (0-based, in the rows the heatmap draws). */
  step = $state(0)
  /** The source position guessed for this step, or null. */
  guess = $state<number | null>(null)
  revealed = $state(false)
  /** Guesses that matched the model's top-1 word, and steps revealed, over the sentence. */
  right = $state(0)
  done = $state(0)
  /** The model's answer at this step, once revealed (the row itself is read only then). */
  answer = $state<{ index: number; weight: number; matched: boolean } | null>(null)
  /** What the tally is for: the sentence and units it counted; another starts it over. */
  private key = ''

  constructor(readonly steps: () => number) {}

  /** Starts over for another sentence (or other units): the tally goes back to 0 of 0. */
  reset(key: string, step = 0): void {
    this.key = key
    this.step = Math.max(0, Math.min(step, this.steps() - 1))
    this.guess = null
    this.revealed = false
    this.right = 0
    this.done = 0
    this.answer = null
  }

  /** Resets when `key` differs from the one counted. */
  follow(key: string): void {
    if (key !== this.key) this.reset(key)
  }

  choose(s: number): void {
    if (!this.revealed) this.guess = this.guess === s ? null : s
  }

  /** Reveals the hidden row: `row` is read here, not before. Counts once per step. */
  reveal(row: readonly number[]): void {
    if (this.revealed || this.finished) return
    const top = topOf(row)
    this.revealed = true
    this.done += 1
    const matched = this.guess === top.index
    if (matched) this.right += 1
    this.answer = { ...top, matched }
  }

  /** The next step, hidden again; past the last one the exercise is finished. */
  next(): void {
    if (!this.revealed) return
    this.step += 1
    this.guess = null
    this.revealed = false
    this.answer = null
  }

  get finished(): boolean {
    return this.step >= this.steps()
  }
}
