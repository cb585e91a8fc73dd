import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, launchChromium, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { BUNDLED_MODELS, ROOT, tempDir, tiny } from '../helpers'

let app: Running
let browser: TestBrowser
let page: Page
const errors: string[] = []

const attr = async (name: string) => page.getByTestId('forecast-chart').getAttribute(name)
const num = async (name: string) => Number(await attr(name))

async function pick(file: string): Promise<void> {
  const id = `bundled:${file}`
  await page.getByTestId('model-select').locator(`option[value="${id}"]`).waitFor({ state: 'attached' })
  await page.getByTestId('model-select').selectOption(id)
  await page
    .getByTestId('model-name')
    .filter({ hasText: file.replace(/\.onnx$/, '') })
    .waitFor()
}

describe('forecasting view', () => {
  beforeAll(async () => {
    // The three forecasters and one translation model, so the app switches between the two kinds.
    const dir = tempDir()
    for (const k of ['local-p', 'luong-general', 'none']) symlinkSync(join(BUNDLED_MODELS, `taylor-${k}.onnx`), join(dir, `taylor-${k}.onnx`))
    symlinkSync(tiny('bahdanau'), join(dir, 'tiny-bahdanau.onnx'))
    app = await startBrowserMode({ AL_MODELS_DIR: dir })
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true })
    page = await context.newPage()
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) errors.push(msg.text())
    })
    await page.goto(app.url)
    await pick('taylor-local-p.onnx')
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('opens on the held-out weeks: the series chart and a heatmap of 48 forecast steps × 384 history steps', async () => {
    await expect.poll(() => num('data-rows'), { timeout: 20_000 }).toBe(48)
    expect(await num('data-cols')).toBe(384)
    expect(await num('data-cells')).toBe(48 * 384)
    // Two vertical guides (lags 48 and 336) and the two per-step lag lines.
    expect(await num('data-guides')).toBe(4)
    expect(await num('data-lines')).toBe(3)
    // The translation input is gone; the origin is the first held-out step.
    expect(await page.getByTestId('source').count()).toBe(0)
    expect(await page.getByTestId('origin-time').innerText()).toBe('Mon 14 Aug')
    expect(await page.getByTestId('forecast-metrics').innerText()).toMatch(
      /This forecast: MAE [\d,]+ MW, MAPE \d+\.\d\d % · same time last week: MAE [\d,]+ MW/,
    )
    expect(await page.getByTestId('forecast-ms').innerText()).toMatch(/^forecast in \d+ ms on cpu$/)
    await screenshot(page, 'forecast')
  })

  it('picking another origin forecasts from there', async () => {
    const before = await page.getByTestId('forecast-metrics').innerText()
    await page.getByTestId('origin-next-day').click()
    await expect.poll(() => page.getByTestId('origin-time').innerText()).toBe('Tue 15 Aug')
    await expect.poll(() => page.getByTestId('forecast-metrics').innerText()).not.toBe(before)
    expect(await num('data-rows')).toBe(48)
    expect(await num('data-cols')).toBe(384)
    // The slider moves the origin by half-hours.
    const slider = page.getByTestId('origin-slider')
    await slider.evaluate((el: HTMLInputElement) => {
      el.value = String(Number(el.value) + 17)
      el.dispatchEvent(new Event('change', { bubbles: true }))
    })
    await expect.poll(() => page.getByTestId('origin-time').innerText()).toBe('Tue 15 Aug 08:30')
  })

  it('clicking a forecast step in the heatmap highlights the history it reads on the series chart', async () => {
    expect(await num('data-bars')).toBe(0)
    const box = (await page.getByTestId('forecast-chart').boundingBox())!
    // Inside the heatmap grid (lower part of the chart, left of the origin), near its top row.
    await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.56 + 6)
    await expect.poll(() => num('data-bars')).toBe(384)
    const step = Number(await attr('data-selected'))
    expect(step).toBeGreaterThanOrEqual(0)
    expect(step).toBeLessThan(3)
    expect(await page.getByTestId('forecast-selection').innerText()).toMatch(new RegExp(`Step \\+${step + 1} .*reads most around .*pₜ = \\d+\\.\\d`))
    // Arrow keys move to the next step.
    await page.getByTestId('forecast-chart').focus()
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => attr('data-selected')).toBe(String(step + 1))
    await screenshot(page, 'forecast-selected')
  })

  it('exports the figure as PNG', async () => {
    await page.getByTestId('export-open').click()
    await page.getByTestId('export-size').selectOption('slide-16x9')
    await page.getByTestId('export-resolution').selectOption('96')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-save').click()])
    const path = join(ARTIFACTS, 'export-forecast.png')
    await download.saveAs(path)
    const png = PNG.sync.read(readFileSync(path))
    expect([png.width, png.height]).toEqual([1280, 720])
    // The matrix with timestamps: a header of 384 history times, one row per forecast step.
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()])
    const csvPath = join(ARTIFACTS, 'export-forecast.csv')
    await csvDownload.saveAs(csvPath)
    const rows = readFileSync(csvPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','))
    expect(rows).toHaveLength(49)
    expect(rows.every((r) => r.length === 385)).toBe(true)
    expect(rows[1][0]).toBe('2000-08-15T08:30:00Z')
    await page.getByRole('button', { name: 'Close' }).click()
  })

  it('loads a CSV of the user’s own and forecasts past its end', async () => {
    const lines = readFileSync(join(ROOT, 'resources', 'series', 'taylor-holdout.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(0, 501)
    const csv = join(tempDir(), 'my-demand.csv')
    writeFileSync(csv, lines.join('\n') + '\n')
    await page.getByTestId('series-input').setInputFiles(csv)
    await expect.poll(() => page.getByTestId('forecast-metrics').innerText()).toMatch(/no errors to show/)
    expect(await page.getByText('your series: my-demand.csv').count()).toBe(1)
    expect(await num('data-cols')).toBe(384)
    // A file that is not a series is refused in one sentence; the forecast stays.
    const bad = join(tempDir(), 'bad.csv')
    writeFileSync(bad, 'when,what\n1,2\n')
    await page.getByTestId('series-input').setInputFiles(bad)
    await expect
      .poll(() => page.getByTestId('forecast-error').innerText())
      .toBe('The CSV must start with a header "timestamp,<value column>", like "timestamp,demand_mw".')
    expect(await num('data-rows')).toBe(48)
    await screenshot(page, 'forecast-own-csv')
  })

  it('global attention (luong-general) spreads over the whole history; no window is drawn', async () => {
    await page.getByTestId('load-csv').waitFor()
    await page.getByRole('button', { name: 'Use the bundled series' }).click()
    await pick('taylor-luong-general.onnx')
    await expect.poll(() => page.getByTestId('forecast-selection').innerText()).toMatch(/^Step \+\d+ .*reads most around/)
    await expect.poll(() => num('data-cells')).toBe(48 * 384)
    expect(await page.getByTestId('forecast-selection').innerText()).not.toMatch(/pₜ|p_t/)
    await page.getByTestId('forecast-chart').focus()
    await page.keyboard.press('ArrowDown')
    await screenshot(page, 'forecast-luong-general')
  })

  it('speaks Chinese too', async () => {
    await page.getByTestId('lang-select').selectOption('zh')
    await expect.poll(() => page.getByTestId('forecast-view').locator('label[for="origin"]').innerText()).toBe('预测起点')
    expect(await page.getByTestId('forecast-metrics').innerText()).toMatch(/预测用时 \d+ ms（cpu）/)
    await screenshot(page, 'forecast-zh')
    await page.getByTestId('lang-select').selectOption('en')
  })

  it('the no-attention forecaster draws no heatmap and says why; a translation model brings the text input back', async () => {
    await pick('taylor-none.onnx')
    await expect.poll(() => page.getByTestId('forecast-selection').innerText()).toMatch(/no attention/)
    await expect.poll(() => num('data-cells')).toBe(0)
    // No empty heatmap frame: the series chart alone, with no grid left for a heatmap.
    expect(await num('data-rows')).toBe(0)
    await screenshot(page, 'forecast-none')
    await pick('tiny-bahdanau.onnx')
    await page.getByTestId('source').waitFor()
    expect(await page.getByTestId('forecast-view').count()).toBe(0)
    expect(errors).toEqual([])
  })
})
