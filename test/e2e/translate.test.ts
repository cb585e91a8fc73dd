import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { APIResponse, Page, Route } from 'playwright-core'
import type { Channel } from '../../src/shared/routes'
import { join } from 'node:path'
import { launchChromium, ROOT, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'

// The bundled models when they exist; the tiny fixture models keep the test meaningful without them.
const MODELS = process.env.AL_E2E_MODELS ?? join(ROOT, 'resources', 'models')

const TRANSLATE: Channel = 'translate:run'

let app: Running
let browser: TestBrowser
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
    await expect.poll(() => select.locator('option[value="bundled:en-fr-bahdanau.onnx"]').count(), { timeout: 30_000 }).toBe(1)
    await select.selectOption('bundled:en-fr-bahdanau.onnx')
    const sentence = 'A little girl in a pink dress is running on the beach.'
    await page.getByTestId('source').fill(sentence)
    await expect.poll(() => page.getByTestId('translation').count(), { timeout: 20_000 }).toBe(1)
    await expect.poll(async () => (await tokens(page, 'src-tokens')).join(' ')).toContain('girl')
    const src = await tokens(page, 'src-tokens')
    const tgt = await tokens(page, 'tgt-tokens')
    expect(src).toEqual(['a', 'little', 'girl', 'in', 'a', 'pink', 'dress', 'is', 'running', 'on', 'the', 'beach', '.', '</s>'])
    expect(tgt.at(-1)).toBe('</s>')
    await expect.poll(() => heatmapShape(page)).toEqual({ rows: tgt.length, cols: src.length, cells: tgt.length * src.length })

    // Where attention goes: every step counted (no forced first token), on words or on </s>, no tag.
    const goes = page.getByTestId('attention-goes')
    expect(await goes.getAttribute('data-steps')).toBe(String(tgt.length))
    expect(await goes.getAttribute('data-tags')).toBeNull()
    expect(Number(await goes.getAttribute('data-words')) + Number(await goes.getAttribute('data-end'))).toBeCloseTo(1, 6)
    expect(await goes.textContent()).toMatch(/^Where attention goes: source words \d+ % · <\/s> \d+ %$/)

    // Clicking an output token highlights its row; clicking a source token highlights its column.
    await page.getByTestId('tgt-tokens').locator('button').nth(1).click()
    await expect.poll(() => page.getByTestId('tgt-tokens').locator('button.selected').count()).toBe(1)
    await page.getByTestId('src-tokens').locator('button').nth(2).click()
    await expect.poll(() => page.getByTestId('src-tokens').locator('button.selected').innerText()).toBe('girl')
    await screenshot(page, 'translate-en-fr')
  })

  it('heatmap options: colour map, value labels, and arrow keys move the selected cell', async () => {
    const heatmap = page.getByTestId('heatmap')
    await page.getByTestId('opt-colormap').selectOption('greys')
    await expect.poll(() => heatmap.getAttribute('data-colors')).toMatch(/^#ffffff .* #000000$/)
    await page.getByTestId('opt-labels').selectOption('off')
    await expect.poll(() => heatmap.getAttribute('data-labels')).toBe('false')
    await page.getByTestId('opt-labels').selectOption('on')
    await expect.poll(() => heatmap.getAttribute('data-labels')).toBe('true')
    await page.getByTestId('src-tokens').locator('button').nth(2).click() // clear: select column 2
    await page.getByTestId('tgt-tokens').locator('button').nth(1).click() // row 1
    await heatmap.focus()
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => heatmap.getAttribute('data-selected')).toBe('1,0')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => heatmap.getAttribute('data-selected')).toBe('2,1')
    await screenshot(page, 'heatmap-options')
    await page.getByTestId('opt-colormap').selectOption('viridis')
    await page.getByTestId('opt-labels').selectOption('auto')
  })

  it('local-p: one window band and one p_t marker per output token', async () => {
    await page.getByTestId('model-select').selectOption('bundled:en-fr-local-p.onnx')
    await page.getByTestId('model-name').filter({ hasText: 'en-fr-local-p' }).waitFor()
    await expect.poll(async () => Number(await page.getByTestId('heatmap').getAttribute('data-windows')), { timeout: 20_000 }).toBeGreaterThan(0)
    const tgt = await tokens(page, 'tgt-tokens')
    expect(Number(await page.getByTestId('heatmap').getAttribute('data-windows'))).toBe(tgt.length)
    await screenshot(page, 'heatmap-local-p')
  })

  it('Chinese: words (jieba) as source tokens, English out, and the interface in 简体中文', async () => {
    await page.getByTestId('model-select').selectOption('bundled:zh-en-bahdanau.onnx')
    await page.getByTestId('model-name').filter({ hasText: 'zh-en-bahdanau' }).waitFor()
    await page.getByTestId('source').fill('我们明天去公园散步。')
    await expect.poll(async () => (await tokens(page, 'src-tokens')).join(''), { timeout: 20_000 }).toBe('我们明天去公园散步。</s>')
    // 我们 明天 去 公园 散步 。 </s>: one column a word.
    expect(await tokens(page, 'src-tokens')).toEqual(['我们', '明天', '去', '公园', '散步', '。', '</s>'])
    const shape = await heatmapShape(page)
    expect(shape.cols).toBe(7)
    expect(shape.rows).toBe((await tokens(page, 'tgt-tokens')).length)
    await page.getByTestId('lang-select').selectOption('zh')
    await expect.poll(() => page.getByTestId('tab-heatmap').textContent()).toBe('热力图')
    await screenshot(page, 'translate-zh-en')
    // "Click an English word, see which Chinese words it looks at."
    await page.getByTestId('tab-lines').click()
    await page.getByTestId('align-tgt-1').click()
    await expect.poll(async () => Number(await page.getByTestId('alignment').getAttribute('data-lines'))).toBeGreaterThan(0)
    await screenshot(page, 'alignment-zh-en')
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('lang-select').selectOption('en')
  })

  it('stale results are dropped: answers to older text that arrive last are never shown', async () => {
    const box = page.getByTestId('source')
    // No text while the model opens, so the only translate requests are the ones typed below.
    await box.fill('')
    await page.getByTestId('model-select').selectOption('bundled:en-fr-bahdanau.onnx')
    await page.getByTestId('model-name').filter({ hasText: 'en-fr-bahdanau' }).waitFor()

    // Every source-token strip the page shows from now on, in order.
    await page.evaluate(() => {
      const shown: string[] = []
      ;(window as unknown as { shown: string[] }).shown = shown
      const read = () => Array.from(document.querySelectorAll('[data-testid="src-tokens"] button'), (b) => b.textContent!.trim()).join(' ')
      new MutationObserver(() => {
        const now = read()
        if (now !== shown.at(-1)) shown.push(now)
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })

    // The engine answers every request; the answers reach the page when the test lets them, newest first.
    const held: { route: Route; response: APIResponse; text: string }[] = []
    const isTranslate = (url: URL) => url.pathname === `/api/${TRANSLATE}`
    await page.route(isTranslate, async (route) => {
      const [req] = route.request().postDataJSON() as [{ text: string }]
      held.push({ route, response: await route.fetch(), text: req.text })
    })
    const texts = ['A dog', 'A dog runs', 'A dog runs in the park.']
    for (const [i, text] of texts.entries()) {
      await box.fill(text)
      // Past the debounce: this text's own request went out before the next text is typed.
      await expect.poll(() => held.length, { timeout: 20_000 }).toBe(i + 1)
    }
    expect(held.map((h) => h.text)).toEqual(texts)

    await held[2].route.fulfill({ response: held[2].response })
    await expect.poll(() => tokens(page, 'src-tokens').then((t) => t.join(' '))).toBe('a dog runs in the park . </s>')
    await held[1].route.fulfill({ response: held[1].response })
    await held[0].route.fulfill({ response: held[0].response })
    // One more sentence, answered at once: by the time it shows, the late answers have long arrived.
    await page.unroute(isTranslate)
    await box.fill('A cat.')
    await expect.poll(() => tokens(page, 'src-tokens').then((t) => t.join(' ')), { timeout: 20_000 }).toBe('a cat . </s>')
    const shown = await page.evaluate(() => (window as unknown as { shown: string[] }).shown.filter((s) => s !== ''))
    expect(shown).toEqual(['a dog runs in the park . </s>', 'a cat . </s>'])
  })
})
