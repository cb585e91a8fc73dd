import { readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, startBrowserMode, type Running, openAndType, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'

// The views that compare runs: with vs without attention, what-if attention, BLEU by length.
const MODELS = process.env.AL_E2E_MODELS ?? FIXTURE_MODELS
const ATT = process.env.AL_E2E_MODELS ? 'bundled:en-fr-bahdanau.onnx' : 'bundled:tiny-bahdanau.onnx'
// Every en→fr model in the folder (not the zh→en ones, not the forecasters) takes part in the comparison and the corpus run.
const PAIR_MODELS = readdirSync(MODELS).filter((f) => f.endsWith('.onnx') && /^(en-fr|tiny)-/.test(f)).length

let app: Running
let browser: TestBrowser
let page: Page

describe('comparison, what-if and corpus views', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    await page.goto(app.url)
    await openAndType(page, ATT, 'A man in a blue shirt is standing on a ladder cleaning windows.')
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('runs the same sentence through the models with and without attention and marks where they differ', async () => {
    await page.getByTestId('tab-comparison').click()
    const rows = page.getByTestId('compare-row')
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(PAIR_MODELS)
    expect(await rows.first().getAttribute('data-attention')).toBe('none')
    // A Transformer of the pair compares like the RNNs (its attention: the heads' average).
    if (!process.env.AL_E2E_MODELS) expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-attention')))).toContain('transformer')
    // The fixed context vector of the no-attention model is drawn as one strip.
    expect(await page.getByTestId('fixed-context').count()).toBe(1)
    // Every token shows its probability.
    const subs = await page.getByTestId('compare-token').locator('sub').allInnerTexts()
    for (const s of subs) expect(Number(s)).toBeGreaterThanOrEqual(0)
    expect(await page.locator('[data-testid="compare-token"][data-diff="true"]').count()).toBeGreaterThan(0)
    await screenshot(page, 'compare-view')
  })

  it('what-if: forcing one-hot attention on the first source token changes the output', async () => {
    await page.getByTestId('tab-whatif').click()
    await page.getByTestId('whatif-step').selectOption('all')
    await page.getByTestId('whatif-mode').selectOption('onehot')
    await page.getByTestId('whatif-source').selectOption('0')
    await page.getByTestId('whatif-run').click()
    const result = page.getByTestId('whatif-result')
    await expect.poll(async () => Number(await result.getAttribute('data-changed')), { timeout: 20_000 }).toBeGreaterThan(0)
    const original = await page.getByTestId('whatif-original').locator('span').allInnerTexts()
    const modified = await page.getByTestId('whatif-modified').locator('span').allInnerTexts()
    expect(modified).not.toEqual(original)
    await screenshot(page, 'whatif-view')
  })

  it('BLEU by sentence length for every model of the pair, with progress', async () => {
    await page.getByTestId('tab-corpus').click()
    await page.getByTestId('corpus-run').click()
    await expect.poll(() => page.getByTestId('corpus-progress').count(), { timeout: 20_000 }).toBe(1)
    await expect.poll(async () => Number(await page.getByTestId('corpus-chart').getAttribute('data-lines')), { timeout: 240_000 }).toBe(PAIR_MODELS)
    expect(await page.getByTestId('corpus-table').locator('tbody tr').count()).toBe(PAIR_MODELS)
    // The Transformer is scored with the RNNs: a row with a BLEU for it.
    const rowOf = (name: string) => page.getByTestId('corpus-table').locator('tbody tr', { hasText: name })
    const transformer = process.env.AL_E2E_MODELS ? 'en-fr-transformer' : 'tiny-transformer'
    expect(await rowOf(transformer).count()).toBe(1)
    expect(await rowOf(transformer).innerText()).toMatch(/\d+\.\d/)
    await screenshot(page, 'corpus-view')
  }, 300_000)
})
