import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, startBrowserMode, type Running, openAndType, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'

let app: Running
let browser: TestBrowser
let page: Page
const errors: string[] = []

const SENTENCE = 'A dog runs on the grass.'
// a dog runs on the grass . </s>
const S = 8

const attr = async (testid: string, name: string) => page.getByTestId(testid).getAttribute(name)
const num = async (testid: string, name: string) => Number(await attr(testid, name))

describe('local attention view', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (msg) => {
      // The browser asks for a favicon the app does not serve; that 404 is not the view's doing.
      if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) errors.push(msg.text())
    })
    await page.goto(app.url)
    await openAndType(page, 'bundled:tiny-local-p.onnx', SENTENCE)
    await page.getByTestId('tab-local').click()
    await page.getByTestId('local-spotlight').waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('the spotlight draws softmax, Gaussian and final weights over every source token, with the window and p_t', async () => {
    await expect.poll(() => num('local-spotlight', 'data-align')).toBe(S)
    expect(await num('local-spotlight', 'data-gaussian')).toBe(S)
    expect(await num('local-spotlight', 'data-weights')).toBe(S)
    expect(await num('local-spotlight', 'data-windows')).toBe(1)
    expect(await num('local-spotlight', 'data-lines')).toBe(1)
    // Nothing is selected yet, so the first step is on show.
    expect(await attr('local-pt', 'data-step')).toBe('0')
    const text = await page.getByTestId('local-pt').innerText()
    expect(text).toMatch(/pt = \d+\.\d\d/)
    expect(text).toContain('D = 4')
    expect(text).toMatch(/window \[-?\d+\.\d\d, -?\d+\.\d\d\]/)
  })

  it('the p_t plot has one point per output token, the diagonal and the window band', async () => {
    const T = await page.getByTestId('local-steps').locator('button').count()
    expect(T).toBeGreaterThan(1)
    await expect.poll(() => num('local-positions', 'data-points')).toBe(T)
    expect(await num('local-positions', 'data-band')).toBe(T)
    expect(await num('local-positions', 'data-diagonal')).toBe(2)
    expect(await page.getByTestId('local-about').innerText()).toMatch(/local-p learns where to look/)
  })

  it('a step button, the arrow keys and a click on the p_t plot change the step and its p_t', async () => {
    const steps = page.getByTestId('local-steps').locator('button')
    const T = await steps.count()
    const first = await attr('local-pt', 'data-position')
    await steps.nth(T - 1).click()
    await expect.poll(() => attr('local-pt', 'data-step')).toBe(String(T - 1))
    expect(await steps.nth(T - 1).getAttribute('aria-pressed')).toBe('true')
    // Local-p predicts a new position at every step; the last one differs from the first.
    expect(await attr('local-pt', 'data-position')).not.toBe(first)

    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => attr('local-pt', 'data-step')).toBe(String(T - 2))
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => attr('local-pt', 'data-step')).toBe(String(T - 1))

    // Click over step 1 in the p_t plot (anywhere in its column picks it).
    const xs = (await attr('local-positions', 'data-step-x'))!.split(',').map(Number)
    expect(xs).toHaveLength(T)
    const plot = page.getByTestId('local-positions')
    const box = (await plot.boundingBox())!
    await plot.click({ position: { x: xs[1], y: box.height / 2 } })
    await expect.poll(() => attr('local-pt', 'data-step')).toBe('1')
    // Steps are numbered from 1 in the interface: data-step 1 is the second step.
    expect(await page.getByTestId('local-pt').innerText()).toContain(`Step 2: "${await steps.nth(1).innerText()}"`)

    // Hovering the charts shows their tooltips without errors.
    const spot = page.getByTestId('local-spotlight')
    await spot.hover()
    await plot.hover({ position: { x: xs[2], y: box.height / 2 } })
    await screenshot(page, 'local-view')
    expect(errors).toEqual([])
  })

  it('reads in Chinese too', async () => {
    await page.getByTestId('lang-select').selectOption('zh')
    await expect.poll(() => page.getByTestId('local-pt').innerText()).toMatch(/第 2 步/)
    expect(await page.getByTestId('local-about').innerText()).toMatch(/local-p 学习该看哪里/)
    await screenshot(page, 'local-view-zh')
    await page.getByTestId('lang-select').selectOption('en')
  })

  it('the tab is offered only for local models', async () => {
    await page.getByTestId('model-select').selectOption('bundled:tiny-bahdanau.onnx')
    await page.getByTestId('model-name').filter({ hasText: 'tiny-bahdanau' }).waitFor()
    await expect.poll(() => page.getByTestId('tab-local').count()).toBe(0)
    await expect.poll(() => page.getByTestId('tab-heatmap').count()).toBe(1)
    expect(errors).toEqual([])
  })

  it('local-m: p_t follows the output step (no prediction) and the factor is a box, not a Gaussian', async () => {
    await page.getByTestId('model-select').selectOption('bundled:tiny-local-m.onnx')
    await page.getByTestId('model-name').filter({ hasText: 'tiny-local-m' }).waitFor()
    await page.getByTestId('tab-local').click()
    await expect.poll(() => page.getByTestId('local-about').innerText()).toMatch(/local-m/)
    await page.getByTestId('local-steps').locator('button').nth(0).click()
    await expect.poll(() => attr('local-pt', 'data-position')).toBe('0.0000')
    await page.getByTestId('local-steps').locator('button').nth(2).click()
    const p2 = Number(await attr('local-pt', 'data-position'))
    await page.getByTestId('local-steps').locator('button').nth(1).click()
    const p1 = Number(await attr('local-pt', 'data-position'))
    // p_t = t·r: equally spaced steps (until the end of the sentence clips it).
    expect(p1).toBeGreaterThan(0)
    expect(p2).toBeCloseTo(2 * p1, 3)
    await screenshot(page, 'local-view-local-m')
    expect(errors).toEqual([])
  })
})
