import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { attribute, checkSlides, close, exportDialog, MODELS, readers } from './contributions-helpers'
import { launchChromium, openAndType, ROOT, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { presenting } from './slide-helpers'

// The Contributions tab on the bundled RNNs (issue 41): Bahdanau's context-norm share drawn as
// bars under the words and its attention weights as the map, against `attention-lens attribute
// --json` for the same sentence (an independent path through the CLI); its slide in presentation
// mode and its Export button; `none` says why it has none.
const SENTENCE = readFileSync(join(ROOT, 'resources/testsets/en-fr.en'), 'utf8')
  .split('\n')
  .find((l) => l.split(' ').length === 12)!

/** A 25-word sentence for the slide: long enough to be shown in parts. */
const LONG = readFileSync(join(ROOT, 'resources/testsets/en-fr.en'), 'utf8')
  .split('\n')
  .find((l) => l.split(' ').length === 25)!

let app: Running
let browser: TestBrowser
let page: Page
const { attr, json } = readers(() => page)

describe('the Contributions tab on an RNN', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, bypassCSP: true })
    await page.goto(app.url)
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('Bahdanau: the context share under each piece and the weights map are what `attribute --json` writes', async () => {
    await openAndType(page, 'bundled:en-fr-bahdanau.onnx', SENTENCE)
    await page.getByTestId('units-pieces').click()
    await page.getByTestId('tab-contributions').click()
    await page.getByTestId('contrib-maps').waitFor({ timeout: 60_000 })
    expect(await attr('contrib-maps', 'data-method')).toBe('context-norm')
    const cli = attribute('en-fr-bahdanau.onnx', SENTENCE)
    expect(cli.method).toBe('context-norm')
    expect(await json<string[]>('contrib-maps', 'data-tgt')).toEqual(cli.tgtTokens)
    close(await json<number[]>('contrib-share', 'data-bars'), cli.sourceShare, 2e-5)
    const matrix = await json<number[][]>('contrib-maps', 'data-matrix')
    expect(matrix).toHaveLength(cli.matrix.length)
    matrix.forEach((row, t) => close(row, cli.matrix[t], 2e-5))
    // The Transformer methods are not offered; the note says what the analogue is and what needs a Transformer.
    expect(await page.getByTestId('contrib-method').count()).toBe(0)
    await expect.poll(() => page.getByTestId('contrib-rnn-note').textContent()).toMatch(/Context norm.*‖W\[:, c\] c‖.*need a Transformer/s)
    await screenshot(page, 'contributions-rnn-pieces', { fullPage: true })
  }, 300_000)

  it('in words: one bar per output word, the threshold marks the words under it', async () => {
    await page.getByTestId('units-words').click()
    await expect.poll(() => attr('contrib-maps', 'data-units')).toBe('words')
    const words = await json<string[]>('contrib-maps', 'data-tgt')
    const bars = await json<number[]>('contrib-share', 'data-bars')
    expect(bars).toHaveLength(words.length)
    bars.forEach((b) => expect(b >= 0 && b <= 1).toBe(true))
    await page.getByTestId('contrib-threshold').fill('0.45')
    await expect.poll(() => attr('contrib-share', 'data-threshold')).toBe('0.45')
    expect(await json<boolean[]>('contrib-share', 'data-low')).toEqual(bars.map((s) => s < 0.45))
    await screenshot(page, 'contributions-rnn-words', { fullPage: true })
  }, 120_000)

  it('the Export button opens the export dialog on the figure of the weights and the share', async () => {
    await exportDialog(page, 'contributions-rnn-export-dialog')
  }, 120_000)

  it('presentation mode at 1280×720 and 1024×768, a 25-word sentence: the weights and the share bars fitted, in parts at the floor or more, nothing over another', async () => {
    // The page again, its charts drawn as SVG so their texts can be read back.
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.goto(`${app.origin}/?renderer=svg`)
    await openAndType(page, 'bundled:en-fr-bahdanau.onnx', LONG)
    await page.getByTestId('units-words').click()
    await page.getByTestId('tab-contributions').click()
    await page.getByTestId('contrib-maps').waitFor({ timeout: 60_000 })
    // The maps of the sentence just typed: the page comes back with the session's last sentence (the
    // shorter one of the tests above) and its maps, which stay until the new ones come (read in
    // their place once, 14 source words, on a busy machine).
    await expect
      .poll(async () => (await json<string[]>('contrib-maps', 'data-src')).length, { timeout: 60_000, message: "the 25-word sentence's maps" })
      .toBeGreaterThanOrEqual(25)
    const words = await json<string[]>('contrib-maps', 'data-tgt')
    const src = await json<string[]>('contrib-maps', 'data-src')
    await presenting(page, true)
    // No method to choose on an RNN: the weights and the context share.
    expect(await page.getByTestId('slide-contrib-method').count()).toBe(0)
    expect(await page.getByTestId('slide-contrib-show-method').count()).toBe(0)
    const report = await checkSlides(page, { shows: ['raw', 'share'], words, src, shot: 'contributions-rnn-slide' })
    console.log(`${words.length} output words, ${src.length} source words\n${report.join('\n')}`)
    // A sentence this long does not fit one slide at the floor: it is shown in parts.
    expect(report.some((l) => / part \d+\/[2-9]/.test(l))).toBe(true)
    await presenting(page, false)
    await page.setViewportSize({ width: 1400, height: 1000 })
  }, 240_000)

  it('without attention: the tab says why there is nothing to show', async () => {
    await openAndType(page, 'bundled:en-fr-none.onnx', SENTENCE)
    await page.getByTestId('tab-contributions').click()
    const notice = page.getByTestId('contrib-not-offered')
    await notice.waitFor({ timeout: 60_000 })
    expect(await notice.textContent()).toMatch(/no attention.*no "attention" output.*need a Transformer/s)
    await screenshot(page, 'contributions-rnn-none', { fullPage: false })
  }, 120_000)
})
