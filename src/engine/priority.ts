/**
 * Interactive calls before batch runs: one engine process serves every page, and a long BLEU-by-
 * length run must not make another page's keystrokes wait for it. Batch work asks `turn()` before
 * each batch and waits there while any interactive call is running.
 */
export class Priority {
  private interactive = 0
  private waiting: (() => void)[] = []

  /** Runs an interactive call; batch work pauses until no interactive call is left. */
  async interactiveCall<T>(work: () => Promise<T>): Promise<T> {
    this.interactive++
    try {
      return await work()
    } finally {
      if (--this.interactive === 0) for (const go of this.waiting.splice(0)) go()
    }
  }

  /** Resolves when no interactive call is running: batch work's turn. */
  turn(): Promise<void> {
    return this.interactive === 0 ? Promise.resolve() : new Promise((go) => this.waiting.push(go))
  }
}
