import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { BUNDLED_MODELS } from '../helpers'

let app: Running
let browser: TestBrowser
let page: Page
const errors: string[] = []
const attr = (id: string, name: string) => page.getByTestId(id).getAttribute(name)

describe('what-if for forecasters', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: BUNDLED_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(app.url)
    const id = 'bundled:taylor-luong-general.onnx'
    await page.getByTestId('model-select').locator(`option[value="${id}"]`).waitFor({ state: 'attached', timeout: 30_000 })
    await page.getByTestId('model-select').selectOption(id)
    await page.waitForFunction(() => document.querySelector('[data-testid="forecast-chart"]')?.getAttribute('data-rows') === '48', null, { timeout: 30_000 })
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('all attention on last week (lag 336) at every step: the forecast is redrawn and its MAE change shown', async () => {
    const before = await page.getByTestId('forecast-metrics').innerText()
    await page.getByTestId('fwhatif-mode').selectOption('onehot')
    await page.getByTestId('fwhatif-lag').fill('336')
    await page.getByTestId('fwhatif-at').selectOption('all')
    await page.getByTestId('fwhatif-run').click()
    const result = page.getByTestId('fwhatif-result')
    await result.waitFor({ timeout: 30_000 })
    expect(await result.innerText()).toMatch(/MAE [\d,]+ → [\d,]+ MW \([+−][\d,]+\)/)
    expect(Number(await result.getAttribute('data-mae-change'))).not.toBe(0)
    // The chart now draws the forecast with the override: its errors line is another one.
    expect(await page.getByTestId('forecast-metrics').innerText()).not.toBe(before)
    expect(Number(await attr('forecast-chart', 'data-rows'))).toBe(48)
    await screenshot(page, 'forecast-whatif')
  })

  it('hand-set weights at lags at one step; a lag outside the history is refused with nothing stale left', async () => {
    // Select step +5 in the heatmap with the keyboard.
    await page.getByTestId('forecast-chart').focus()
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown')
    await expect.poll(() => attr('forecast-chart', 'data-selected')).toBe('4')
    await page.getByTestId('fwhatif-mode').selectOption('custom')
    await page.getByTestId('fwhatif-lags').fill('48:1, 336:3')
    await page.getByTestId('fwhatif-at').selectOption('selected')
    await page.getByTestId('fwhatif-run').click()
    await page.getByTestId('fwhatif-result').waitFor({ timeout: 30_000 })
    await page.getByTestId('fwhatif-lags').fill('900:1')
    await page.getByTestId('fwhatif-run').click()
    await expect.poll(() => page.getByTestId('fwhatif-error').innerText(), { timeout: 30_000 }).toMatch(/none of the lags falls inside/)
    expect(await page.getByTestId('fwhatif-result').count()).toBe(0)
    expect(errors).toEqual([])
  })
})
