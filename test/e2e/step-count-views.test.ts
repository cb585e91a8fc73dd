/**
 * One count of steps in the app's views (issue 40 #3): for a sentence whose French has a word of
 * two pieces, presentation mode's heatmap (drawn in words) counts decoder steps, and names a word
 * by the steps that wrote it, "word 4 of 11 (pieces 4–5)", where it said "step 4 / 11"; the
 * step-through counts the same decoder steps.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../src/engine/service'
import { inWords } from '../../src/shared/attention/word-translation'
import type { Translation } from '../../src/shared/api'
import { launchChromium, openAndType, ROOT, startBrowserMode, type Running, type TestBrowser } from './harness'
import { presenting } from './slide-helpers'

const MODELS = process.env.AL_E2E_MODELS ?? join(ROOT, 'resources', 'models')
const SENTENCE = 'A firefighter sprays water on a burning building .'

let app: Running
let browser: TestBrowser
let page: Page
let pieces: Translation

beforeAll(async () => {
  const svc = new InferenceService()
  pieces = await svc.translate(join(MODELS, 'en-fr-local-p.onnx'), SENTENCE)
  await svc.closeAll()
  app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  await page.goto(app.url)
  await openAndType(page, 'bundled:en-fr-local-p.onnx', SENTENCE)
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await app?.stop()
})

describe('one count of decoder steps in the views', () => {
  it('presentation heatmap in words names words by their decoder steps; the step-through counts the same steps', async () => {
    const words = inWords(pieces)
    const spans = words.words!.tgt
    const k = spans.findIndex(([a, b]) => b > a)
    expect(k).toBeGreaterThanOrEqual(0)
    const P = pieces.tgtTokens.length
    const W = words.tgtTokens.length
    await page.getByTestId('tab-step').click()
    expect(Number(await page.getByTestId('step-view').getAttribute('data-steps'))).toBe(P)
    await page.getByTestId('tab-heatmap').click()
    await presenting(page, true)
    await expect.poll(() => page.getByTestId('slide-step').innerText()).toBe(`${W} words (${P} decoder steps)`)
    for (let i = 0; i <= k; i++) await page.getByTestId('slide-next').click()
    const [a, b] = spans[k]
    await expect.poll(() => page.getByTestId('slide-step').innerText()).toContain(`word ${k + 1} of ${W} (pieces ${a + 1}–${b + 1})`)
    await presenting(page, false)
  }, 120_000)
})
