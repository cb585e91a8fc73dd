/**
 * "The latest keystroke wins", per client: a page's new translation stops that page's earlier one,
 * never another page's, and a caller without a client id (a script, the CLI) is never stopped by
 * anybody (its calls simply queue in the engine).
 */
export class ClientCalls {
  private running = new Map<string, AbortController>()

  /**
   * A call of `kind` starts for `client`: the same client's earlier call of that kind is aborted.
   * The signal stops this one when the same client sends the next, or cancels; `done` forgets it.
   */
  start(kind: string, client: string | null): { signal: AbortSignal; done(): void } {
    const ac = new AbortController()
    if (client === null) return { signal: ac.signal, done: () => undefined }
    const key = keyOf(kind, client)
    this.running.get(key)?.abort()
    this.running.set(key, ac)
    return { signal: ac.signal, done: () => void (this.running.get(key) === ac && this.running.delete(key)) }
  }

  /** Stops the client's call of `kind` in flight, if any; a caller without an id has nothing to stop. */
  cancel(kind: string, client: string | null): void {
    if (client === null) return
    const key = keyOf(kind, client)
    this.running.get(key)?.abort()
    this.running.delete(key)
  }
}

const keyOf = (kind: string, client: string) => `${kind}\u0000${client}`
