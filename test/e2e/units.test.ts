/**
 * The words / pieces switch: words by default, pieces one click away, remembered across a
 * restart; a word picked in words is its first piece in pieces; the views of one decoder step say
 * that they show pieces.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, launchChromium, openAndType, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { KIND_COLOURS } from '../../src/shared/charts/model-colours'
import { BUNDLED_MODELS } from '../helpers'

const MODEL = 'bundled:en-fr-luong-general.onnx'
const SENTENCE = 'A little girl climbing into a wooden playhouse .'

let app: Running
let browser: TestBrowser
let page: Page

afterAll(async () => {
  await browser?.close()
  await app?.stop()
})

const strip = (id: 'src-tokens' | 'tgt-tokens') => page.getByTestId(id).locator('button').allInnerTexts()

describe('words / pieces switch', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: BUNDLED_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
    await openAndType(page, MODEL, SENTENCE)
  }, 120_000)

  it('shows words by default: "playhouse" is one source token of the heatmap', async () => {
    await expect.poll(() => page.getByTestId('units').getAttribute('data-units')).toBe('words')
    await expect.poll(() => strip('src-tokens')).toEqual(['a', 'little', 'girl', 'climbing', 'into', 'a', 'wooden', 'playhouse', '.', '</s>'])
    expect(await page.getByTestId('units-words').getAttribute('aria-checked')).toBe('true')
    await screenshot(page, 'units-words')
  })

  it('a word picked in words is its first piece in pieces, and pieces survive a reload', async () => {
    await page.getByTestId('src-tokens').locator('button', { hasText: 'playhouse' }).click()
    await page.getByTestId('units-pieces').click()
    await expect.poll(() => strip('src-tokens')).toEqual(['a', 'little', 'girl', 'climbing', 'into', 'a', 'wooden', 'play@@', 'house', '.', '</s>'])
    expect(await page.getByTestId('src-tokens').locator('button.selected').innerText()).toBe('play@@')
    await screenshot(page, 'units-pieces')
    await page.reload()
    await page.getByTestId('translation').waitFor({ timeout: 30_000 })
    await expect.poll(() => page.getByTestId('units').getAttribute('data-units')).toBe('pieces')
    await expect.poll(() => strip('src-tokens')).toContain('play@@')
    await page.getByTestId('units-words').click()
    await expect.poll(() => strip('src-tokens')).toContain('playhouse')
  })

  it('exports the heatmap in words, and the file says so', async () => {
    await page.getByTestId('export-open').click()
    await page.getByTestId('export-format').selectOption('svg')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-save').click()])
    const path = join(ARTIFACTS, 'units-export.svg')
    await download.saveAs(path)
    const svg = readFileSync(path, 'utf8')
    expect(svg).toContain('>playhouse</text>')
    expect(svg).not.toContain('>play@@</text>')
    expect(svg).toMatch(/<desc>Units: words\. A source word receives the sum/)
    await page.keyboard.press('Escape')
  })

  it('the step-through says it shows pieces; the heatmap does not', async () => {
    expect(await page.getByTestId('pieces-note').count()).toBe(0)
    await page.getByTestId('tab-step').click()
    await page.getByTestId('pieces-note').waitFor()
    expect(await page.getByTestId('pieces-note').innerText()).toMatch(/subword pieces/)
    await screenshot(page, 'units-step-note', { fullPage: false })
  })
})

describe('with / without in words, each model in its colour', () => {
  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    await page.goto(app.url)
    await openAndType(page, MODEL, SENTENCE)
  }, 120_000)

  it('shows output words, and the swatch of each model in the colour its line has in every view', async () => {
    await page.getByTestId('tab-comparison').click()
    await expect.poll(() => page.getByTestId('compare-row').count(), { timeout: 30_000 }).toBeGreaterThan(1)
    const swatches = await page
      .getByTestId('compare-swatch')
      .evaluateAll((els) => els.map((e) => [e.parentElement!.textContent!.trim(), e.getAttribute('data-colour')]))
    const colourOf = Object.fromEntries(swatches)
    expect(colourOf['en-fr-luong-general']).toBe(KIND_COLOURS['luong-general'])
    expect(colourOf['en-fr-none']).toBe(KIND_COLOURS.none)
    await screenshot(page, 'units-compare')
  })
})
