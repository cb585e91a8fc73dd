import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { attribute as contributionsOf, checkSlides, close, exportDialog, floorAt, MODELS, readers, type Attribution } from './contributions-helpers'
import { launchChromium, openAndType, ROOT, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { presenting } from './slide-helpers'
import { axeViolations, serious } from './axe'

// The Contributions tab (issue 41) on the bundled en→fr Transformer, a 25-word sentence of the
// bundled test set: the numbers it draws (read from the options it handed ECharts) against
// `attention-lens attribute --json` for the same sentence, an independent path through the CLI.
const MODEL = 'bundled:en-fr-transformer.onnx'
const SENTENCE = readFileSync(join(ROOT, 'resources/testsets/en-fr.en'), 'utf8')
  .split('\n')
  .find((l) => l.split(' ').length === 25)!

// One CLI run a method: the shifted-step test reads the same ALTI+ output as the first test.
const attributions = new Map<string, Attribution>()
const attribute = (method: string) => {
  if (!attributions.has(method)) attributions.set(method, contributionsOf('en-fr-transformer.onnx', SENTENCE, method))
  return attributions.get(method)!
}

let app: Running
let browser: TestBrowser
let page: Page
const { attr, json } = readers(() => page)

describe('the Contributions tab', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, bypassCSP: true })
    await page.goto(app.url)
    await openAndType(page, MODEL, SENTENCE)
    await page.getByTestId('units-pieces').click()
    await page.getByTestId('tab-contributions').click()
    await page.getByTestId('contrib-maps').waitFor({ timeout: 60_000 })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('ALTI+ (the default) and value-weighted norms draw what `attribute --json` writes for the sentence', async () => {
    for (const method of ['alti+', 'norm', 'alti', 'rollout']) {
      await page.getByTestId('contrib-method').selectOption(method)
      await expect.poll(() => attr('contrib-maps', 'data-method')).toBe(method)
      const cli = attribute(method)
      expect(await json<string[]>('contrib-maps', 'data-tgt')).toEqual(cli.tgtTokens)
      expect(cli.tgtTokens.length).toBeGreaterThan(20)
      close(await json<number[]>('contrib-share', 'data-bars'), cli.sourceShare, 2e-5)
      const matrix = await json<number[][]>('contrib-maps', 'data-matrix')
      expect(matrix).toHaveLength(cli.matrix.length)
      matrix.forEach((row, t) => close(row, cli.matrix[t], 2e-5))
    }
  }, 300_000)

  it('the shifted step reads output piece t at row t + 1; the threshold marks the words under it', async () => {
    await page.getByTestId('contrib-method').selectOption('alti+')
    const cli = attribute('alti+')
    await page.getByTestId('contrib-step').selectOption('shifted')
    await expect.poll(() => attr('contrib-maps', 'data-step')).toBe('shifted')
    expect(await json<string[]>('contrib-maps', 'data-tgt')).toEqual(cli.tgtTokens.slice(0, -1))
    close(await json<number[]>('contrib-share', 'data-bars'), cli.sourceShare.slice(1), 2e-5)
    await page.getByTestId('contrib-step').selectOption('usual')
    await page.getByTestId('contrib-threshold').fill('0.55')
    await expect.poll(() => attr('contrib-share', 'data-threshold')).toBe('0.55')
    const low = await json<boolean[]>('contrib-share', 'data-low')
    expect(low).toEqual(cli.sourceShare.map((s) => s < 0.55))
    expect(await page.getByTestId('contrib-prefix-words').locator('mark').count()).toBe(low.filter(Boolean).length)
    await screenshot(page, 'contributions-pieces', { fullPage: true })
  }, 300_000)

  it('in words: one bar per output word, and the layers chart shows the residual share', async () => {
    await page.getByTestId('units-words').click()
    await expect.poll(() => attr('contrib-maps', 'data-units')).toBe('words')
    const words = await json<string[]>('contrib-maps', 'data-tgt')
    expect(words.length).toBeLessThanOrEqual((await json<number[]>('contrib-share', 'data-bars')).length)
    expect(await json<number[]>('contrib-share', 'data-bars')).toHaveLength(words.length)
    const residual = await json<number[]>('contrib-layers', 'data-residual')
    expect(residual).toHaveLength(3)
    residual.forEach((r) => expect(r).toBeGreaterThan(0.5))
    await screenshot(page, 'contributions-words', { fullPage: true })
  }, 120_000)

  it('the Export button opens the export dialog on the figure of the map', async () => {
    await exportDialog(page, 'contributions-export-dialog')
  }, 120_000)

  it('axe-core: nothing critical or serious on the tab', async () => {
    expect(serious(await axeViolations(page, 3))).toEqual([])
  }, 120_000)

  it('presentation mode at 1280×720 and 1024×768: a fitted slide, a long sentence in parts at the floor (18.7 px × height / 720) or more, nothing over another, nothing scrolling', async () => {
    // The page again (signed in), its charts drawn as SVG so their texts can be read back.
    const svg = page
    await svg.setViewportSize({ width: 1280, height: 720 })
    await svg.goto(`${app.origin}/?renderer=svg`)
    await openAndType(svg, MODEL, SENTENCE)
    await svg.getByTestId('units-words').click()
    await svg.getByTestId('tab-contributions').click()
    await svg.getByTestId('contrib-maps').waitFor({ timeout: 60_000 })
    const words = JSON.parse((await svg.getByTestId('contrib-maps').getAttribute('data-tgt'))!) as string[]
    const src = JSON.parse((await svg.getByTestId('contrib-maps').getAttribute('data-src'))!) as string[]
    await presenting(svg, true)
    // The raw weights are the method map's layout with other numbers: their slide is checked for being fitted at the floor only.
    const report = await checkSlides(svg, { shows: ['method', 'share'], words, src, shot: 'contributions-slide' })
    await svg.getByTestId('slide-contrib-show-raw').click()
    await expect.poll(() => svg.getByTestId('slide-contrib-chart').getAttribute('data-shown')).toBe('raw')
    expect(await svg.getByTestId('slide-contrib-chart').getAttribute('data-fits')).toBe('true')
    expect(Number(await svg.getByTestId('slide-contrib-chart').getAttribute('data-font'))).toBeGreaterThanOrEqual(floorAt(768) - 0.05)
    console.log(`${words.length} output words, ${src.length} source words\n${report.join('\n')}`)
    await presenting(svg, false)
    await svg.setViewportSize({ width: 1400, height: 1000 })
  }, 120_000)
})
