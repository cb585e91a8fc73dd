import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { presenting } from './slide-helpers'
import { FIXTURE_MODELS } from '../helpers'
import { WINDOW_STROKE } from '../../src/shared/charts/heatmap'

// Predict, then reveal, with the keys a lecturer uses (issue 40, item 6), on a local-p model
// (test/fixtures/models/tiny-local-p.onnx): Enter after a click reveals, ← goes back a step, a step
// revealed without a guess is "not guessed", and the revealed rows draw local-p's window and p_t.
const SENTENCE = 'A man in a blue shirt is standing on a ladder.'

let app: Running
let browser: TestBrowser
let page: Page

describe('predict, then reveal: keys, tally and local-p rows', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
    await page.goto(app.url)
    // The charts as SVG, so the drawn window outlines can be counted.
    await page.goto(`${app.origin}/?renderer=svg`)
    await openAndType(page, 'bundled:tiny-local-p.onnx', SENTENCE)
    await page.getByTestId('tab-heatmap').click()
    await presenting(page, true)
    await page.getByTestId('predict-toggle').click()
    await page.getByTestId('predict-hidden').waitFor()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  const tally = (p: Page) => p.getByTestId('predict-tally')
  /** Paths drawn in the window's colour: the legend's key, and one outline per row drawn with its window. */
  const windows = () => page.getByTestId('heatmap').locator(`svg path[stroke="${WINDOW_STROKE}"]`).count()
  let legend = 0

  it('Enter after clicking a guess reveals it (it does not take the guess back); the revealed row draws its window and p_t', async () => {
    // Nothing revealed: no row's window (only the legend's key, if any).
    legend = await windows()
    expect(legend).toBeLessThanOrEqual(1)
    await page.getByTestId('guess-1').click()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByTestId('predict').getAttribute('data-revealed')).toBe('true')
    expect(await tally(page).getAttribute('data-guessed')).toBe('1')
    expect(await page.getByTestId('guess-1').getAttribute('aria-pressed')).toBe('true')
    await expect.poll(windows).toBe(legend + 1)
    await screenshot(page, 'predict-keys-revealed', { fullPage: false })
  })

  it('a step revealed without a guess counts as not guessed, not as a miss', async () => {
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => page.getByTestId('predict').getAttribute('data-step')).toBe('1')
    expect(await windows()).toBe(legend + 1)
    await page.keyboard.press('Enter')
    await expect.poll(() => tally(page).getAttribute('data-done')).toBe('2')
    const right = Number(await tally(page).getAttribute('data-right'))
    expect(await tally(page).innerText()).toBe(`Tally: ${right} of 1 guessed correct, 1 not guessed`)
    expect(await page.getByTestId('predict').innerText()).toContain('Not guessed.')
    await expect.poll(windows).toBe(legend + 2)
  })

  it('← goes back a step, to that step as it was revealed', async () => {
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => page.getByTestId('predict').getAttribute('data-step')).toBe('0')
    expect(await page.getByTestId('predict').getAttribute('data-revealed')).toBe('true')
    expect(await page.getByTestId('guess-1').getAttribute('aria-pressed')).toBe('true')
    // Nothing is counted twice.
    expect(await tally(page).getAttribute('data-done')).toBe('2')
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => page.getByTestId('predict').getAttribute('data-step')).toBe('1')
    expect(await page.getByTestId('predict').getAttribute('data-revealed')).toBe('true')
  })
})
