import { beforeEach, describe, expect, it, vi } from 'vitest'
import { fakeApi, translation } from './fake-api'

const fake = vi.hoisted(() => ({ current: null as ReturnType<typeof import('./fake-api').fakeApi> | null }))
vi.mock('../../../src/renderer/src/lib/api', () => ({
  get api() {
    return fake.current!.api
  },
}))

const { ComparisonState } = await import('../../../src/renderer/src/state/comparison.svelte')

let f: ReturnType<typeof fakeApi>
beforeEach(() => {
  f = fakeApi()
  fake.current = f
})

describe('ComparisonState: one sentence through several models', () => {
  it('shows the answer to the latest question, even when an older one answers later', async () => {
    const c = new ComparisonState()
    const first = c.load(['none', 'bahdanau'], 'A dog')
    const second = c.load(['none', 'bahdanau'], 'A dog runs')
    expect(f.compare.map((x) => x.args[0])).toEqual([
      { modelIds: ['none', 'bahdanau'], text: 'A dog' },
      { modelIds: ['none', 'bahdanau'], text: 'A dog runs' },
    ])
    f.compare[1].resolve([translation('none', 'A dog runs'), translation('bahdanau', 'A dog runs')])
    await second
    f.compare[0].resolve([translation('none', 'A dog')])
    await first
    expect(c.results.map((t) => t.source)).toEqual(['A dog runs', 'A dog runs'])
  })

  it("an older question's error does not show; the latest one's does, and an answer clears it", async () => {
    const c = new ComparisonState()
    const first = c.load(['a'], 'x')
    const second = c.load(['a'], 'y')
    f.compare[0].reject(new Error('old'))
    await first
    expect(c.error).toBeNull()
    f.compare[1].reject(new Error('new'))
    await second
    expect(c.error).toBe('new')
    const third = c.load(['a'], 'z')
    f.compare[2].resolve([translation('a', 'z')])
    await third
    expect([c.error, c.results.length]).toEqual([null, 1])
  })

  it('asks nothing, and shows nothing, with no model or an empty sentence; the same question in flight is asked once', async () => {
    const c = new ComparisonState()
    const pending = c.load(['a'], 'x')
    void c.load(['a'], 'x')
    expect(f.compare).toHaveLength(1)
    await c.load([], 'x')
    await c.load(['a'], '  ')
    expect(f.compare).toHaveLength(1)
    // The question in flight was superseded by "nothing": its answer does not show.
    f.compare[0].resolve([translation('a', 'x')])
    await pending
    expect(c.results).toEqual([])
  })
})
