import { describe, expect, it } from 'vitest'
import { Latest } from '../../../src/renderer/src/lib/latest'

/** A promise settled from outside, to answer requests in any order. */
function deferred<T>() {
  let resolve!: (v: T) => void
  let reject!: (e: Error) => void
  const promise = new Promise<T>((a, b) => ((resolve = a), (reject = b)))
  return { promise, resolve, reject }
}

describe('Latest: the latest request wins', () => {
  it('drops an answer that arrives after a newer request, and aborts the older request', async () => {
    const latest = new Latest()
    const [a, b] = [deferred<string>(), deferred<string>()]
    let signalA: AbortSignal | undefined
    const first = latest.run((s) => ((signalA = s), a.promise))
    const second = latest.run(() => b.promise)
    expect(signalA?.aborted).toBe(true)
    b.resolve('new')
    a.resolve('old')
    expect(await first).toEqual({ current: false })
    expect(await second).toEqual({ current: true, value: 'new' })
  })

  it('an old answer arriving first is still dropped', async () => {
    const latest = new Latest()
    const [a, b] = [deferred<string>(), deferred<string>()]
    const first = latest.run(() => a.promise)
    const second = latest.run(() => b.promise)
    a.resolve('old')
    expect(await first).toEqual({ current: false })
    expect(latest.pending).toBe(true)
    b.resolve('new')
    expect(await second).toEqual({ current: true, value: 'new' })
    expect(latest.pending).toBe(false)
  })

  it("the latest request's error is current; a superseded one's is dropped", async () => {
    const latest = new Latest()
    const [a, b] = [deferred<string>(), deferred<string>()]
    const first = latest.run(() => a.promise)
    const second = latest.run(() => b.promise)
    a.reject(new Error('old failure'))
    b.reject(new Error('new failure'))
    expect(await first).toEqual({ current: false })
    const o = await second
    expect(o.current && 'error' in o && o.error.message).toBe('new failure')
  })

  it('cancel() supersedes the request in flight without starting another', async () => {
    const latest = new Latest()
    const a = deferred<number>()
    const first = latest.run(() => a.promise)
    latest.cancel()
    a.resolve(1)
    expect(await first).toEqual({ current: false })
    expect(latest.pending).toBe(false)
  })

  it('a request with the key of the one in flight joins it instead of asking again', async () => {
    const latest = new Latest()
    const a = deferred<string>()
    let calls = 0
    const load = () => (calls++, a.promise)
    const first = latest.run(load, 'k')
    const again = latest.run(load, 'k')
    a.resolve('x')
    expect([await first, await again, calls]).toEqual([{ current: true, value: 'x' }, { current: true, value: 'x' }, 1])
    // Another key is a new request.
    const b = deferred<string>()
    const other = latest.run(() => b.promise, 'other')
    b.resolve('y')
    expect(await other).toEqual({ current: true, value: 'y' })
  })

  it('a load that throws synchronously is an error outcome, not an exception', async () => {
    const latest = new Latest()
    const o = await latest.run(() => {
      throw new Error('at once')
    })
    expect(o.current && 'error' in o && o.error.message).toBe('at once')
  })
})
