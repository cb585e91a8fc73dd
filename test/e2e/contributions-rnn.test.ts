import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, openAndType, ROOT, screenshot, startBrowserMode, type Running } from './harness'

// The Contributions tab on the bundled RNNs (issue 41): Bahdanau's context-norm share drawn as
// bars under the words and its attention weights as the map, against `attention-lens attribute
// --json` for the same sentence (an independent path through the CLI); `none` says why it has none.
const MODELS = join(ROOT, 'resources/models')
const SENTENCE = readFileSync(join(ROOT, 'resources/testsets/en-fr.en'), 'utf8')
  .split('\n')
  .find((l) => l.split(' ').length === 12)!

interface Attribution {
  method: string
  tgtTokens: string[]
  matrix: number[][]
  sourceShare: number[]
}
function attribute(model: string): Attribution {
  const out = execFileSync(process.execPath, [join(ROOT, 'bin/attention-lens.mjs'), 'attribute', '--model', join(MODELS, model), '--src', SENTENCE, '--json'], {
    encoding: 'utf8',
    timeout: 120_000,
  })
  return JSON.parse(out.trim().split('\n')[0]) as Attribution
}

let app: Running
let browser: Browser
let page: Page
const attr = async (id: string, name: string) => (await page.getByTestId(id).getAttribute(name))!
const json = async <T>(id: string, name: string) => JSON.parse(await attr(id, name)) as T
const close = (a: number[], b: number[], tol: number) => {
  expect(a).toHaveLength(b.length)
  a.forEach((x, i) => expect(Math.abs(x - b[i]), `at ${i}: ${x} vs ${b[i]}`).toBeLessThan(tol))
}

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
    const cli = attribute('en-fr-bahdanau.onnx')
    expect(cli.method).toBe('context-norm')
    expect(await json<string[]>('contrib-maps', 'data-tgt')).toEqual(cli.tgtTokens)
    close(await json<number[]>('contrib-share', 'data-bars'), cli.sourceShare, 2e-5)
    const matrix = await json<number[][]>('contrib-maps', 'data-matrix')
    expect(matrix).toHaveLength(cli.matrix.length)
    matrix.forEach((row, t) => close(row, cli.matrix[t], 2e-5))
    // The Transformer methods are not offered; the note says what the analogue is and what needs a Transformer.
    expect(await page.getByTestId('contrib-method').count()).toBe(0)
    await expect.poll(() => page.getByTestId('contrib-rnn-note').textContent()).toMatch(/Context norm.*‖W_c c‖.*need a Transformer/s)
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

  it('without attention: the tab says why there is nothing to show', async () => {
    await openAndType(page, 'bundled:en-fr-none.onnx', SENTENCE)
    await page.getByTestId('tab-contributions').click()
    const notice = page.getByTestId('contrib-not-offered')
    await notice.waitFor({ timeout: 60_000 })
    expect(await notice.textContent()).toMatch(/no attention.*no "attention" output.*need a Transformer/s)
    await screenshot(page, 'contributions-rnn-none', { fullPage: false })
  }, 120_000)
})
