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

/** What one revealed step came to: the guess (or none), and the model's answer. */
interface Revealed {
  guess: number | null
  index: number
  weight: number
  matched: boolean
}

export class Predict {
  /** The step whose row is hidden until it is revealed (0-based, in the rows the heatmap draws). */
  step = $state(0)
  /** The source position guessed for this step, or null. */
  guess = $state<number | null>(null)
  /** Each step revealed so far, by step: the tally is counted from these, once per step. */
  private results = $state<(Revealed | undefined)[]>([])
  /** What the tally is for: the sentence and units it counted; another starts it over. */
  private key = ''

  constructor(readonly steps: () => number) {}

  /** Whether the step on show has been revealed. */
  get revealed(): boolean {
    return this.results[this.step] !== undefined
  }

  /** The model's answer at this step, once revealed (the row itself is read only then). */
  get answer(): { index: number; weight: number; matched: boolean } | null {
    const r = this.results[this.step]
    return r ? { index: r.index, weight: r.weight, matched: r.matched } : null
  }

  private get counted(): Revealed[] {
    return this.results.filter((r): r is Revealed => r !== undefined)
  }
  /** Steps revealed, over the sentence. */
  get done(): number {
    return this.counted.length
  }
  /** Steps revealed with a guess. */
  get guessed(): number {
    return this.counted.filter((r) => r.guess !== null).length
  }
  /** Guesses that matched the model's top-1 word. */
  get right(): number {
    return this.counted.filter((r) => r.matched).length
  }
  /** Steps revealed without a guess: not guessed, which is no miss. */
  get notGuessed(): number {
    return this.done - this.guessed
  }

  /** Starts over for another sentence (or other units): the tally goes back to 0 of 0. */
  reset(key: string, step = 0): void {
    this.key = key
    this.step = Math.max(0, Math.min(step, this.steps() - 1))
    this.guess = null
    this.results = []
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
    const results = [...this.results]
    results[this.step] = { guess: this.guess, ...top, matched: this.guess === top.index }
    this.results = results
  }

  /** The next step, hidden again unless it was revealed before (after ←); past the last one the exercise is finished. */
  next(): void {
    if (!this.revealed) return
    this.step += 1
    this.guess = this.results[this.step]?.guess ?? null
  }

  /** A step back (←): that step as it was revealed, its guess and answer; from the end, the last step. */
  back(): void {
    if (this.step <= 0) return
    this.step = Math.min(this.step, this.steps()) - 1
    this.guess = this.results[this.step]?.guess ?? null
  }

  get finished(): boolean {
    return this.step >= this.steps()
  }
}
