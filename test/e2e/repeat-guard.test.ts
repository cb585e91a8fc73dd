import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, screenshot, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'

let app: Running
let browser: TestBrowser
let page: Page

/** tiny-transformer runs away on this one: "s-shirt shirt shirt shirt …" to the step limit without the guards. */
const LOOPING = "A man wearing a t-shirt isn't looking at the 2 dogs' toys."

const translation = () => page.getByTestId('translation').innerText()

describe('the repeat guards: on by default in the Decoding menu, marked in the step-through', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
    await openAndType(page, 'bundled:tiny-transformer.onnx', LOOPING)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('the Decoding menu shows both guards on (3 and 3); the looping sentence comes out without its loop', async () => {
    expect(await page.getByTestId('guard-ngram').inputValue()).toBe('3')
    expect(await page.getByTestId('guard-repeat').inputValue()).toBe('3')
    const text = await translation()
    expect(text.split('shirt').length - 1).toBeLessThan(6)
  })

  it('the step-through marks the steps the guard changed: "blocked by the repeat guard", with the model\'s own choice', async () => {
    await page.getByTestId('tab-step').click()
    await page.getByTestId('step-view').waitFor()
    const marked = page.getByTestId('step-tokens').locator('button[data-marked="1"]')
    await expect.poll(() => marked.count()).toBeGreaterThan(0)
    await marked.first().click()
    await page.getByTestId('step-blocked').waitFor()
    expect(await page.getByTestId('step-blocked').innerText()).toBe('blocked by the repeat guard')
    expect(await page.getByTestId('step-blocked-note').innerText()).toMatch(/^The model's own choice here was « .+ » \(p = 0\.\d\d\)/)
    await screenshot(page, 'repeat-guard-step')
    // A step the guard left alone is not marked.
    await page.getByTestId('step-tokens').locator('button').first().click()
    await expect.poll(() => page.getByTestId('step-blocked').count()).toBe(0)
  })

  it("turning both off in the Decoding menu shows the model's own loop, and nothing marked", async () => {
    await page.getByTestId('guard-ngram').selectOption('0')
    await page.getByTestId('guard-repeat').selectOption('0')
    await expect.poll(async () => (await translation()).split('shirt').length - 1, { timeout: 20_000 }).toBeGreaterThan(40)
    expect(await page.getByTestId('step-tokens').locator('button[data-marked="1"]').count()).toBe(0)
    // Back on for the next run of the app (the setting is saved).
    await page.getByTestId('guard-ngram').selectOption('3')
    await page.getByTestId('guard-repeat').selectOption('3')
    await page.getByTestId('source').fill(LOOPING + ' ')
    await waitForTranslationOf(page, LOOPING + ' ')
  })
})
