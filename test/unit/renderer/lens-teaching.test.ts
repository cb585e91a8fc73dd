import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fakeApi, info, memoryStorage, summary, translation } from './fake-api'
import type { Translation } from '../../../src/shared/api'

const fake = vi.hoisted(() => ({ current: null as ReturnType<typeof import('./fake-api').fakeApi> | null }))
vi.mock('../../../src/renderer/src/lib/api', () => ({
  get api() {
    return fake.current!.api
  },
}))

const { DEBOUNCE_MS, HISTORY_MS, MAX_HISTORY, LensState, selectionOnEnter, VIEWS } = await import('../../../src/renderer/src/state/lens.svelte')

const SAVED = 'attention-lens:session'
let f: ReturnType<typeof fakeApi>
const settle = () => vi.advanceTimersByTimeAsync(0)

async function opened(m = 'en-fr'): Promise<InstanceType<typeof LensState>> {
  const lens = new LensState()
  const done = lens.open(m)
  f.openModel.at(-1)!.resolve(info(m))
  await done
  await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
  return lens
}

/** A forced decoding of `reference` (its words as tokens) for `text`. */
function forcedOf(text: string, reference: string): Translation {
  const t = translation('en-fr', text, reference.split(' ').length + 1)
  const tgtTokens = [...reference.split(' '), '</s>']
  return { ...t, tgtTokens, text: reference, mode: 'forced', attention: tgtTokens.map(() => t.srcTokens.map(() => 1 / t.srcTokens.length)) }
}

/** A model open, `text` translated, `reference` forced through it, and the output scored `score`. */
async function scored(text: string, reference: string, score: { bleu: number; chrf: number }): Promise<InstanceType<typeof LensState>> {
  const lens = await opened()
  lens.setReference(reference)
  lens.setText(text)
  await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
  f.translate[0].resolve(translation('en-fr', text))
  f.forced[0].resolve(forcedOf(text, reference))
  await settle()
  f.scoreSentence[0].resolve(score)
  await settle()
  return lens
}

beforeEach(() => {
  vi.useFakeTimers()
  f = fakeApi()
  fake.current = f
  vi.stubGlobal('localStorage', memoryStorage())
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('LensState: reference translation', () => {
  it('force-decodes the reference, scores the model’s output against it, and can show it instead of the output', async () => {
    const lens = await opened()
    lens.setReference('un chien court')
    lens.setText('a dog runs')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    expect(f.forced.map((c) => c.args[0])).toEqual([{ modelId: 'en-fr', text: 'a dog runs', target: 'un chien court' }])
    f.translate[0].resolve({ ...translation('en-fr', 'a dog runs'), text: 'un chien marche' })
    await settle()
    // No score before both are in.
    expect(f.scoreSentence).toHaveLength(0)
    f.forced[0].resolve(forcedOf('a dog runs', 'un chien court'))
    await settle()
    expect(f.scoreSentence.map((c) => c.args[0])).toEqual([{ hypothesis: 'un chien marche', reference: 'un chien court' }])
    f.scoreSentence[0].resolve({ bleu: 42, chrf: 61 })
    await settle()
    expect(lens.score).toEqual({ bleu: 42, chrf: 61 })
    expect(lens.current?.mode).toBe('greedy')
    lens.setShown('reference')
    expect(lens.current?.tgtTokens).toEqual(['un', 'chien', 'court', '</s>'])
  })

  it('editing the reference force-decodes it again without translating the source again, and drops the older answer', async () => {
    const lens = await opened()
    lens.setText('a dog runs')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    f.translate[0].resolve(translation('en-fr', 'a dog runs'))
    await settle()
    lens.setReference('un chien')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    lens.setReference('un chien court')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    expect(f.translate).toHaveLength(1)
    expect(f.forced.map((c) => (c.args[0] as { target: string }).target)).toEqual(['un chien', 'un chien court'])
    f.forced[1].resolve(forcedOf('a dog runs', 'un chien court'))
    await settle()
    f.forced[0].resolve(forcedOf('a dog runs', 'un chien'))
    await settle()
    expect(lens.forced?.text).toBe('un chien court')
  })

  it('a forced decoding of the reference before an edit is marked stale until the edited one arrives', async () => {
    const lens = await scored('a dog runs', 'un chien noir', { bleu: 10, chrf: 20 })
    expect([lens.forcedStale, lens.score]).toEqual([false, { bleu: 10, chrf: 20 }])
    // An example fills the source before the reference: the first forced decoding pairs the new source with the old reference.
    lens.setReference('sur la pelouse')
    expect(lens.forcedStale).toBe(true)
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    expect(lens.forcedStale).toBe(true)
    f.forced[1].resolve(forcedOf('a dog runs', 'sur la pelouse'))
    await settle()
    expect(lens.forcedStale).toBe(false)
    expect(lens.forced?.text).toBe('sur la pelouse')
    // The old reference's score is not shown as the new one's while it is computed.
    expect(lens.score).toBeNull()
    expect(f.scoreSentence.at(-1)!.args[0]).toEqual({ hypothesis: translation('en-fr', 'a dog runs').text, reference: 'sur la pelouse' })
    f.scoreSentence.at(-1)!.resolve({ bleu: 30, chrf: 40 })
    await settle()
    expect(lens.score).toEqual({ bleu: 30, chrf: 40 })
  })

  it('clearing the reference drops the forced decoding and its score, and the views go back to the output', async () => {
    const lens = await scored('a dog runs', 'un chien court', { bleu: 10, chrf: 20 })
    lens.setShown('reference')
    lens.setReference('')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    expect([lens.forced, lens.score, lens.shown]).toEqual([null, null, 'model'])
    expect(lens.current?.mode).toBe('greedy')
  })

  it('a refused forced decoding says why and leaves no stale reference on show', async () => {
    const lens = await opened()
    lens.setReference('un chien')
    lens.setText('a dog')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    f.forced[0].resolve(forcedOf('a dog', 'un chien'))
    await settle()
    lens.setReference('un chien qui court')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    f.forced[1].reject(new Error('The reference is too long.'))
    await settle()
    expect(lens.error).toBe('The reference is too long.')
    expect(lens.forced).toBeNull()
  })

  it('an example fills the source and the reference and goes into the history at once', async () => {
    const lens = await opened()
    lens.useExample({ source: 'Two dogs play.', reference: 'Deux chiens jouent.' })
    expect([lens.text, lens.reference, lens.history]).toEqual(['Two dogs play.', 'Deux chiens jouent.', ['Two dogs play.']])
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    expect(f.translate.at(-1)!.args[0]).toMatchObject({ text: 'Two dogs play.' })
    expect(f.forced.at(-1)!.args[0]).toMatchObject({ text: 'Two dogs play.', target: 'Deux chiens jouent.' })
  })
})

describe('LensState: history of sentences', () => {
  it('keeps a translated sentence once it has been left alone for a while, not every prefix typed on the way', async () => {
    const lens = await opened()
    for (const text of ['A', 'A do', 'A dog']) {
      lens.setText(text)
      await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
      f.translate.at(-1)!.resolve(translation('en-fr', text))
      await settle()
    }
    expect(lens.history).toEqual([])
    await vi.advanceTimersByTimeAsync(HISTORY_MS)
    expect(lens.history).toEqual(['A dog'])
  })

  it('a sentence that failed to translate is not kept', async () => {
    const lens = await opened()
    lens.setText('A dog')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    f.translate[0].reject(new Error('no'))
    await vi.advanceTimersByTimeAsync(HISTORY_MS * 2)
    expect(lens.history).toEqual([])
  })

  it('keeps the last 50, most recent first, each once, and saves them with the session', async () => {
    const lens = await opened()
    for (let i = 0; i < MAX_HISTORY + 5; i++) lens.remember(`sentence ${i}`)
    lens.remember('sentence 10')
    expect(lens.history).toHaveLength(MAX_HISTORY)
    expect(lens.history[0]).toBe('sentence 10')
    expect(lens.history.filter((h) => h === 'sentence 10')).toHaveLength(1)
    expect(lens.history.at(-1)).toBe('sentence 5')
    expect(JSON.parse(localStorage.getItem(SAVED)!).history).toEqual(lens.history)
    lens.forget('sentence 10')
    expect(lens.history[0]).toBe('sentence 54')
  })

  it('a new start restores the history and the reference', async () => {
    f.setModels([summary('a')])
    localStorage.setItem(SAVED, JSON.stringify({ model: 'a', text: 'x', reference: 'y', history: ['x', 3, 'z'] }))
    const lens = new LensState()
    const started = lens.init()
    await vi.waitFor(() => expect(f.openModel).toHaveLength(1))
    f.openModel[0].resolve(info('a'))
    await started
    expect([lens.reference, lens.history]).toEqual(['y', ['x', 'z']])
  })
})

describe('LensState: consistent interaction', () => {
  it('views that show every step start unselected; views about one step keep the selected step', async () => {
    const lens = await opened()
    expect(VIEWS.map(selectionOnEnter)).toEqual(['reset', 'keep', 'keep', 'reset', 'keep', 'keep', 'keep', 'keep', 'keep', 'keep', 'keep'])
    lens.setView('step')
    lens.select(3, 1)
    lens.setView('local')
    expect([lens.selectedRow, lens.selectedCol]).toEqual([3, 1])
    lens.setView('whatif')
    expect(lens.selectedRow).toBe(3)
    lens.setView('lines')
    expect([lens.selectedRow, lens.selectedCol]).toEqual([null, null])
    lens.select(2, null)
    lens.setView('heatmap')
    expect(lens.selectedRow).toBeNull()
    // Clicking the tab of the view already open changes nothing.
    lens.select(2, null)
    lens.setView('heatmap')
    expect(lens.selectedRow).toBe(2)
  })

  it('a failed translation replaces the one on show (of another sentence) with its error, which can be dismissed', async () => {
    const lens = await opened()
    lens.setText('A dog')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    f.translate[0].resolve(translation('en-fr', 'A dog'))
    await settle()
    lens.setText('A dog runs')
    await vi.advanceTimersByTimeAsync(DEBOUNCE_MS)
    f.translate[1].reject(new Error('The engine stopped.'))
    await settle()
    expect(lens.translation).toBeNull()
    expect(lens.error).toBe('The engine stopped.')
    lens.dismissError()
    expect(lens.error).toBeNull()
  })

  it('is loading from start until the first model is open', async () => {
    f.setModels([summary('a')])
    const lens = new LensState()
    expect(lens.loading).toBe(false)
    const started = lens.init()
    expect(lens.loading).toBe(true)
    await vi.waitFor(() => expect(f.openModel).toHaveLength(1))
    expect(lens.loading).toBe(true)
    f.openModel[0].resolve(info('a'))
    await started
    expect(lens.loading).toBe(false)
  })

  it('with no model to open, start-up is not left loading', async () => {
    const lens = new LensState()
    await lens.init()
    expect(lens.loading).toBe(false)
  })
})
