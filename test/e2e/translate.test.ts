import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { join } from 'node:path'
import { launchChromium, ROOT, screenshot, startBrowserMode, type Running } from './harness'

// The bundled models when they exist; the tiny fixture models keep the test meaningful without them.
const MODELS = process.env.AL_E2E_MODELS ?? join(ROOT, 'resources', 'models')

let app: Running
let browser: Browser
let page: Page

async function heatmapShape(p: Page) {
  const el = p.getByTestId('heatmap')
  return {
    rows: Number(await el.getAttribute('data-rows')),
    cols: Number(await el.getAttribute('data-cols')),
    cells: Number(await el.getAttribute('data-cells')),
  }
}

async function tokens(p: Page, id: string): Promise<string[]> {
  return p.getByTestId(id).locator('button').allInnerTexts()
}

describe('browser mode: open a model, type, see the heatmap', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('translates an English sentence and draws one row per output token, one column per source token', async () => {
    const select = page.getByTestId('model-select')
    await expect.poll(() => select.locator('option').count()).toBeGreaterThan(0)
    const options = await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
    const enfr = options.find((v) => /en-fr-bahdanau|tiny-bahdanau/.test(v))!
    await select.selectOption(enfr)
    const sentence = 'A little girl in a pink dress is running on the beach.'
    await page.getByTestId('source').fill(sentence)
    await expect.poll(() => page.getByTestId('translation').count(), { timeout: 20_000 }).toBe(1)
    await expect.poll(async () => (await tokens(page, 'src-tokens')).join(' ')).toContain('girl')
    const src = await tokens(page, 'src-tokens')
    const tgt = await tokens(page, 'tgt-tokens')
    expect(src).toEqual(['a', 'little', 'girl', 'in', 'a', 'pink', 'dress', 'is', 'running', 'on', 'the', 'beach', '.', '</s>'])
    expect(tgt.at(-1)).toBe('</s>')
    await expect.poll(() => heatmapShape(page)).toEqual({ rows: tgt.length, cols: src.length, cells: tgt.length * src.length })

    // Clicking an output token highlights its row; clicking a source token highlights its column.
    await page.getByTestId('tgt-tokens').locator('button').nth(1).click()
    await expect.poll(() => page.getByTestId('tgt-tokens').locator('button.selected').count()).toBe(1)
    await page.getByTestId('src-tokens').locator('button').nth(2).click()
    await expect.poll(() => page.getByTestId('src-tokens').locator('button.selected').innerText()).toBe('girl')
    await screenshot(page, 'translate-en-fr')
  })

  it('stale results are dropped: the shown translation is for the last text typed', async () => {
    const box = page.getByTestId('source')
    await box.fill('')
    for (const word of ['A', 'A dog', 'A dog runs', 'A dog runs in the park.']) {
      await box.fill(word)
    }
    await expect.poll(async () => (await tokens(page, 'src-tokens')).join(' ')).toBe('a dog runs in the park . </s>')
  })
})
