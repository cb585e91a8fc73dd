/**
 * The fit worker's queue: fits wait until the worker is free, one at a time, and a fit the preview
 * has given up on (a setting changed while the last fit ran, typically the slow search for what
 * fits instead) is dropped rather than run ahead of the one now on show. Between two fits the
 * worker yields, so cancels that came in meanwhile are read first.
 */
export interface FitQueue<T extends { id: number }> {
  push(request: T): void
  /** Drops a waiting fit (false: it is running or done, and its answer will be ignored). */
  cancel(id: number): boolean
}

export function fitQueue<T extends { id: number }>(run: (request: T) => void, dropped: (id: number) => void): FitQueue<T> {
  const waiting: T[] = []
  let draining = false
  const drain = () => {
    const next = waiting.shift()
    if (!next) {
      draining = false
      return
    }
    run(next)
    setTimeout(drain)
  }
  return {
    push(request) {
      waiting.push(request)
      if (draining) return
      draining = true
      setTimeout(drain)
    },
    cancel(id) {
      const i = waiting.findIndex((r) => r.id === id)
      if (i < 0) return false
      waiting.splice(i, 1)
      dropped(id)
      return true
    },
  }
}
