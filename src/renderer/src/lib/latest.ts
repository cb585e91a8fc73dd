/**
 * "The latest request wins", written once: each run supersedes the one before it (its signal is
 * aborted, and its answer or error is dropped when it arrives), so a slow answer to an old
 * question never replaces a newer one. A run with the same key as the one in flight joins it
 * instead of asking again (an $effect that re-runs with unchanged inputs).
 */
export type Outcome<T> = { current: true; value: T } | { current: true; error: Error } | { current: false }

export class Latest {
  private n = 0
  private controller: AbortController | null = null
  private inFlight: { key: string; promise: Promise<Outcome<unknown>> } | null = null

  /** Supersedes whatever is in flight without starting anything: its answer will be dropped. */
  cancel(): void {
    this.n++
    this.controller?.abort()
    this.controller = null
    this.inFlight = null
  }

  /** Whether a run is in flight and not superseded. */
  get pending(): boolean {
    return this.inFlight !== null
  }

  /**
   * Runs `load`; the outcome is current (its value or its error) if nothing superseded it by the
   * time it settled, else `{ current: false }`.
   */
  run<T>(load: (signal: AbortSignal) => Promise<T>, key?: string): Promise<Outcome<T>> {
    if (key !== undefined && this.inFlight?.key === key) return this.inFlight.promise as Promise<Outcome<T>>
    this.cancel()
    const n = this.n
    const controller = (this.controller = new AbortController())
    const settle = (o: Outcome<T>): Outcome<T> => {
      if (n !== this.n) return { current: false }
      this.inFlight = null
      this.controller = null
      return o
    }
    const promise = (async () => load(controller.signal))().then(
      (value) => settle({ current: true, value }),
      (e: unknown) => settle({ current: true, error: e instanceof Error ? e : new Error(String(e)) }),
    )
    this.inFlight = key === undefined ? { key: `#${n}`, promise } : { key, promise }
    return promise
  }
}
