import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, startBrowserMode, type Running, openAndType, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'

let app: Running
let browser: TestBrowser
let page: Page

const SENTENCE = 'A little girl in a pink dress is running on the beach.'
const SRC = ['a', 'little', 'girl', 'in', 'a', 'pink', 'dress', 'is', 'running', 'on', 'the', 'beach', '.', '</s>']

const attr = async (id: string, name: string) => page.getByTestId(id).getAttribute(name)
const num = async (id: string, name: string) => Number(await attr(id, name))
const step = () => num('step-view', 'data-step')
const label = () => page.getByTestId('step-label').innerText()
const outputs = () => page.getByTestId('step-tokens').locator('button').allInnerTexts()

/** StepView's pace while playing, in ms. */
const STEP_MS = 700

/** Stops the page's clock: from here the test moves time, so playback cannot outrun (or lag) the checks. */
async function stopClock(): Promise<void> {
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000)
}

describe('the step-through view: scores → softmax → (Gaussian) → context vector, one output step at a time', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    // Fake timers that run at the normal pace until a test stops them.
    await page.clock.install()
    await page.goto(app.url)
    await openAndType(page, 'bundled:tiny-local-p.onnx', SENTENCE)
    await page.getByTestId('tab-step').click()
    await page.getByTestId('step-view').waitFor()
  })
  afterEach(async () => {
    await page.clock.resume()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('local-p: draws every stage with one bar per source token, the Gaussian included', async () => {
    await expect.poll(() => attr('step-view', 'data-kind')).toBe('local-p')
    await expect.poll(() => num('step-scores', 'data-bars')).toBe(SRC.length)
    expect(await step()).toBe(0)
    const tgt = await outputs()
    expect(tgt.length).toBeGreaterThan(1)
    expect(await label()).toBe(`step 1 / ${tgt.length}: « ${tgt[0]} »`)

    await expect.poll(() => num('step-weights', 'data-bars')).toBe(SRC.length)
    // The in-window softmax sums to 1.
    expect(await num('step-weights', 'data-sum')).toBeCloseTo(1, 3)
    expect(await page.getByTestId('stage-gaussian').count()).toBe(1)
    await expect.poll(() => num('step-gaussian', 'data-bars')).toBe(SRC.length)
    expect(await num('step-gaussian', 'data-points')).toBe(SRC.length)
    // h_j: one weight bar and one heatmap row per source token; c_t over the same dimensions.
    await expect.poll(() => num('step-context', 'data-rows')).toBe(SRC.length)
    const dims = await num('step-context', 'data-dims')
    expect(dims).toBeGreaterThanOrEqual(16)
    expect(dims).toBeLessThanOrEqual(48)
    expect(await num('step-context', 'data-cells')).toBe(SRC.length * dims)
    expect(await num('step-context', 'data-max')).toBeGreaterThan(0)
    expect(await page.getByTestId('step-top').innerText()).toMatch(/\d\.\d{3}/)
    await screenshot(page, 'step-view')
  })

  it('→ and ← (keys and buttons) move between steps, and the shown output token follows', async () => {
    const tgt = await outputs()
    await page.getByTestId('step-label').click()
    await page.keyboard.press('ArrowRight')
    await expect.poll(step).toBe(1)
    expect(await label()).toBe(`step 2 / ${tgt.length}: « ${tgt[1]} »`)
    await expect.poll(() => page.getByTestId('step-tokens').locator('button.selected').innerText()).toBe(tgt[1])

    await page.getByTestId('step-next').click()
    await expect.poll(step).toBe(2)
    expect(await label()).toBe(`step 3 / ${tgt.length}: « ${tgt[2]} »`)
    await page.keyboard.press('ArrowLeft')
    await expect.poll(step).toBe(1)
    await page.getByTestId('step-prev').click()
    await expect.poll(step).toBe(0)
    expect(await page.getByTestId('step-prev').isDisabled()).toBe(true)

    // Arrow keys typed into the sentence box move the caret, not the step: once the caret has
    // moved, the key has been handled, and the step is still the same.
    const source = page.getByTestId('source')
    await source.evaluate((el: HTMLTextAreaElement) => {
      el.focus()
      el.setSelectionRange(0, 0)
    })
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => source.evaluate((el: HTMLTextAreaElement) => el.selectionStart)).toBe(1)
    expect(await step()).toBe(0)

    // Clicking an output token jumps to its step.
    await page.getByTestId('step-tokens').locator('button').nth(3).click()
    await expect.poll(step).toBe(3)

    // Clicking a source token's label selects it (the bar charts share a 64 px / 24 px plot margin);
    // clicking it again clears it, and moving to another step clears it too.
    const box = (await page.getByTestId('step-weights').boundingBox())!
    const labelAt = (j: number) => ({ x: 64 + ((box.width - 64 - 24) / SRC.length) * (j + 0.5), y: box.height - 16 })
    await page.getByTestId('step-weights').click({ position: labelAt(2) })
    await expect.poll(() => attr('step-view', 'data-col')).toBe('2')
    expect(await step()).toBe(3)
    await page.getByTestId('step-weights').click({ position: labelAt(2) })
    await expect.poll(() => attr('step-view', 'data-col')).toBe('')
    await page.getByTestId('step-weights').click({ position: labelAt(5) })
    await expect.poll(() => attr('step-view', 'data-col')).toBe('5')
    await page.keyboard.press('ArrowRight')
    await expect.poll(step).toBe(4)
    expect(await attr('step-view', 'data-col')).toBe('')
    await page.keyboard.press('ArrowLeft')
    await expect.poll(step).toBe(3)
  })

  it('play decodes from the first output token to the last, one step at a time, then stops', async () => {
    const T = await num('step-view', 'data-steps')
    expect(await step()).toBe(3)
    await stopClock()
    await page.getByTestId('step-play').click()
    // Play starts over from the first token, and shows every step on the way.
    await expect.poll(step).toBe(0)
    expect(await attr('step-view', 'data-playing')).toBe('true')
    for (let s = 1; s < T; s++) {
      await page.clock.runFor(STEP_MS)
      await expect.poll(step).toBe(s)
    }
    await expect.poll(() => attr('step-view', 'data-playing')).toBe('false')
    // Stopped at the last token: time passing moves nothing.
    await page.clock.runFor(3 * STEP_MS)
    expect(await step()).toBe(T - 1)
    expect(await page.getByTestId('step-next').isDisabled()).toBe(true)
    expect(await label()).toMatch(new RegExp(`^step ${T} / ${T}: « .+ »$`))
  })

  it('pause stops the playback where it is, and play resumes from there', async () => {
    await stopClock()
    await page.getByTestId('step-play').click()
    await expect.poll(step).toBe(0)
    await page.clock.runFor(STEP_MS)
    await expect.poll(step).toBe(1)
    await page.getByTestId('step-play').click()
    await expect.poll(() => attr('step-view', 'data-playing')).toBe('false')
    await page.clock.runFor(3 * STEP_MS)
    expect(await step()).toBe(1)
    await page.getByTestId('step-play').click()
    await expect.poll(() => attr('step-view', 'data-playing')).toBe('true')
    expect(await step()).toBe(1)
    await page.clock.runFor(STEP_MS)
    await expect.poll(step).toBe(2)
    await page.getByTestId('step-play').click()
    await expect.poll(() => attr('step-view', 'data-playing')).toBe('false')
  })

  it('a global model (tiny-bahdanau) has no Gaussian stage; its weights sum to 1; labels follow the language', async () => {
    await page.getByTestId('model-select').selectOption('bundled:tiny-bahdanau.onnx')
    await expect.poll(() => attr('step-view', 'data-kind'), { timeout: 20_000 }).toBe('bahdanau')
    await expect.poll(() => num('step-scores', 'data-bars')).toBe(SRC.length)
    await expect.poll(() => num('step-weights', 'data-bars')).toBe(SRC.length)
    expect(await num('step-weights', 'data-sum')).toBeCloseTo(1, 3)
    expect(await page.getByTestId('stage-gaussian').count()).toBe(0)
    expect(await page.getByTestId('step-gaussian').count()).toBe(0)
    expect(await page.getByTestId('stage-window').count()).toBe(0)
    await expect.poll(() => num('step-context', 'data-rows')).toBe(SRC.length)
    await page.getByTestId('step-tokens').locator('button').nth(1).click()
    await expect.poll(step).toBe(1)
    await screenshot(page, 'step-view-bahdanau')

    await page.getByTestId('lang-select').selectOption('zh')
    const T = await num('step-view', 'data-steps')
    await expect.poll(label).toMatch(new RegExp(`^第 2 / ${T} 步：« .+ »$`))
    expect(await page.getByTestId('step-play').innerText()).toContain('播放')
    await page.getByTestId('lang-select').selectOption('en')
    await expect.poll(label).toMatch(/^step 2 \//)
  })
})
