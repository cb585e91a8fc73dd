/**
 * Errors that cross a process boundary (engine process → host, Electron main → renderer, browser
 * mode server → page) travel as plain data and come back as an Error with the same name, so the
 * receiver tells a cancellation from a failure by its name, never by its message.
 */

/** An error as it travels: its name, a stable code, the sentence the user reads, and data. */
export interface EncodedError {
  name: string
  code: string
  message: string
  details?: unknown
}

/** What a call answers over a transport: its result, or the error it failed with. */
export type Envelope<T> = { result: T } | { error: EncodedError }

/** An error with a code and details; decoded errors are LensErrors carrying the sender's name. */
export class LensError extends Error {
  code: string
  details?: unknown

  constructor(message: string, opts: { name?: string; code?: string; details?: unknown } = {}) {
    super(message)
    this.name = opts.name ?? 'LensError'
    this.code = opts.code ?? 'error'
    if (opts.details !== undefined) this.details = opts.details
  }
}

/** Work stopped on purpose (a newer sentence superseded it, or the user pressed Cancel). */
export class CancelledError extends LensError {
  constructor(message = 'The work was cancelled.') {
    super(message, { name: 'CancelledError', code: 'cancelled' })
  }
}

/** A call whose arguments are not what its route takes. */
export class RefusedError extends LensError {
  constructor(message: string, details?: unknown) {
    super(message, { name: 'RefusedError', code: 'refused', details })
  }
}

/** The engine process died under a call; it has been restarted. */
export class EngineStoppedError extends LensError {
  constructor(message: string, details?: unknown) {
    super(message, { name: 'EngineStoppedError', code: 'engine-stopped', details })
  }
}

/** Plain data for any thrown value; `details` must survive JSON and structured clone. */
export function encodeError(e: unknown): EncodedError {
  if (e instanceof LensError) {
    return e.details === undefined ? { name: e.name, code: e.code, message: e.message } : { name: e.name, code: e.code, message: e.message, details: e.details }
  }
  if (e instanceof Error) return { name: e.name, code: 'error', message: e.message }
  return { name: 'Error', code: 'error', message: String(e) }
}

/** The Error an encoded one stands for; a CancelledError comes back as one (instanceof works). */
export function decodeError(e: EncodedError): LensError {
  if (e.name === 'CancelledError') return new CancelledError(e.message)
  return new LensError(e.message, { name: e.name, code: e.code, details: e.details })
}

/** The result of an envelope, or its error thrown. */
export function unwrap<T>(envelope: Envelope<T>): T {
  if ('error' in envelope) throw decodeError(envelope.error)
  return envelope.result
}

/** Runs `work` and answers an envelope: what every transport sends back for a call. */
export async function envelope<T>(work: () => Promise<T>): Promise<Envelope<T>> {
  try {
    return { result: await work() }
  } catch (e) {
    return { error: encodeError(e) }
  }
}
