import { CancelledError } from '../../shared/errors'

/**
 * A turn of the event loop between pieces of a long synchronous computation, then a check for
 * cancellation: without it the engine neither sends progress nor hears a cancel until the whole
 * computation is done (the Alignment score board's 192 heads × 200 pairs, EM iterations).
 */
export function pause(signal: AbortSignal | undefined, cancelled: string): Promise<void> {
  return new Promise((resolve, reject) => setImmediate(() => (signal?.aborted ? reject(new CancelledError(cancelled)) : resolve())))
}
