/**
 * The export preview's fit worker runs one fit at a time and drops one the preview has given up
 * on before running it: a setting changed while a slow fit ran (a refusal's search for what fits
 * instead) must not make the fit now on show wait behind the stale ones (issue 40 #7).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fitQueue } from '../../../src/renderer/src/lib/fit-queue'

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('the fit queue', () => {
  it('runs every fit in order, one per turn of the event loop, when none is cancelled', () => {
    const ran: number[] = []
    const q = fitQueue<{ id: number }>(
      (r) => ran.push(r.id),
      () => {},
    )
    q.push({ id: 1 })
    q.push({ id: 2 })
    expect(ran).toEqual([])
    vi.advanceTimersToNextTimer()
    expect(ran).toEqual([1])
    vi.runAllTimers()
    expect(ran).toEqual([1, 2])
  })

  it('drops the fits cancelled while another ran, says so, and runs the latest', () => {
    const ran: number[] = []
    const dropped: number[] = []
    // The first fit is slow: while it runs, the preview asks for three more and gives up on two.
    let q = fitQueue<{ id: number }>(
      () => {},
      () => {},
    )
    q = fitQueue<{ id: number }>(
      (r) => {
        ran.push(r.id)
        if (r.id === 1) {
          q.push({ id: 2 })
          q.push({ id: 3 })
          q.push({ id: 4 })
          expect([q.cancel(2), q.cancel(3)]).toEqual([true, true])
        }
      },
      (id) => dropped.push(id),
    )
    q.push({ id: 1 })
    vi.runAllTimers()
    expect(ran).toEqual([1, 4])
    expect(dropped).toEqual([2, 3])
  })

  it('cannot cancel a fit that has begun or is done: its answer is the client’s to ignore', () => {
    const q = fitQueue<{ id: number }>(
      () => {},
      () => {},
    )
    q.push({ id: 7 })
    vi.runAllTimers()
    expect(q.cancel(7)).toBe(false)
    expect(q.cancel(99)).toBe(false)
  })
})
