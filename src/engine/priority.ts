/** For this long after an interactive call, batch work runs in small batches: the user is typing. */
const TYPING_MS = 3000
/** A batch small enough that a keystroke waits for it no longer than for its own decode (bench/keystrokes.ts). */
export const TYPING_BATCH = 4

/**
 * Interactive calls before batch runs: one engine process serves every page, and a long BLEU-by-
 * length run must not make another page's keystrokes wait for it. Batch work asks `turn()` before
 * each batch, waits there while any interactive call is running, and while someone has typed in
 * the last few seconds runs batches of TYPING_BATCH (a batch of 32 in flight made a keystroke wait
 * ~0.25 s, a batch of 8 ~0.07 s).
 */
export class Priority {
  private interactive = 0
  private waiting: (() => void)[] = []
  private lastInteractive = -Infinity

  constructor(private now: () => number = () => performance.now()) {}

  /** Runs an interactive call; batch work pauses until no interactive call is left. */
  async interactiveCall<T>(work: () => Promise<T>): Promise<T> {
    this.interactive++
    this.lastInteractive = this.now()
    try {
      return await work()
    } finally {
      this.lastInteractive = this.now()
      if (--this.interactive === 0) for (const go of this.waiting.splice(0)) go()
    }
  }

  /** Resolves, once no interactive call is running, with the size batch work of `batch` may use now. */
  async turn(batch: number): Promise<number> {
    if (this.interactive > 0) await new Promise<void>((go) => this.waiting.push(go))
    return this.now() - this.lastInteractive < TYPING_MS ? Math.min(batch, TYPING_BATCH) : batch
  }
}
