import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { Translation } from '../../src/shared/api'
import { launchChromium, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'

let app: Running
let browser: TestBrowser
let page: Page

const svg = () => page.getByTestId('alignment')
const drawnCount = async () => Number(await svg().getAttribute('data-lines'))
const lineElements = () => svg().locator('line')
const srcCount = () => page.locator('[data-testid^="align-src-"]').count()
const tgtCount = () => page.locator('[data-testid^="align-tgt-"]').count()

async function setThreshold(v: number): Promise<void> {
  await page.getByTestId('align-threshold').fill(String(v))
  await expect.poll(async () => Number(await svg().getAttribute('data-threshold'))).toBe(v)
}

/** Every drawn line as { t, s, w }, read from the SVG. */
async function lines(): Promise<{ t: number; s: number; w: number }[]> {
  return lineElements().evaluateAll((ls) =>
    ls.map((l) => ({ t: Number(l.getAttribute('data-t')), s: Number(l.getAttribute('data-s')), w: Number(l.getAttribute('data-w')) })),
  )
}

/** Moves the mouse off the tokens, so hovering no longer previews one. */
async function unhover(): Promise<void> {
  await page.mouse.move(2, 2)
}

describe('alignment lines view', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
    await page.getByTestId('model-select').locator('option[value="bundled:tiny-bahdanau.onnx"]').waitFor({ state: 'attached' })
    await page.getByTestId('model-select').selectOption('bundled:tiny-bahdanau.onnx')
    await page.getByTestId('model-name').filter({ hasText: 'tiny-bahdanau' }).waitFor()
    await page.getByTestId('source').fill('A little girl in a pink dress is running on the beach.')
    await page.getByTestId('translation').waitFor({ timeout: 20_000 })
    await page.getByTestId('tab-lines').click()
    await svg().waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('threshold 0 draws one line per (output token, source token) pair', async () => {
    await expect.poll(srcCount).toBe(14) // a little girl in a pink dress is running on the beach . </s>
    const S = await srcCount()
    const T = await tgtCount()
    expect(T).toBeGreaterThan(1)
    await setThreshold(0)
    await expect.poll(drawnCount).toBe(T * S)
    expect(await lineElements().count()).toBe(T * S)
    const ls = await lines()
    // Each row of weights sums to (at most) 1.
    for (let t = 0; t < T; t++) {
      const sum = ls.filter((l) => l.t === t).reduce((a, l) => a + l.w, 0)
      expect(sum).toBeLessThanOrEqual(1 + 1e-4)
      expect(sum).toBeGreaterThan(0.5)
    }
    await expect.poll(() => page.getByTestId('align-count').textContent()).toBe(`${T * S} of ${T * S} lines drawn`)
    await screenshot(page, 'alignment-view')
  })

  it('raising the threshold keeps exactly the weights at or above it, with stronger lines drawn thicker', async () => {
    await setThreshold(0)
    const all = await lines()
    // The tiny model attends almost uniformly; also try a threshold in the middle of its weights.
    const sorted = all.map((l) => l.w).sort((a, b) => a - b)
    const median = Math.ceil(sorted[Math.floor(sorted.length / 2)] * 100) / 100
    for (const th of [0.1, 0.3, median]) {
      await setThreshold(th)
      const expected = all.filter((l) => l.w >= th).length
      expect(expected).toBeLessThan(all.length)
      await expect.poll(drawnCount).toBe(expected)
      expect(await lineElements().count()).toBe(expected)
      expect((await lines()).every((l) => l.w >= th)).toBe(true)
    }
    const widths = await lineElements().evaluateAll((ls) =>
      ls.map((l) => ({ w: Number(l.getAttribute('data-w')), sw: Number(l.getAttribute('stroke-width')) })),
    )
    const weakest = widths.reduce((a, b) => (b.w < a.w ? b : a))
    const strongest = widths.reduce((a, b) => (b.w > a.w ? b : a))
    expect(strongest.sw).toBeGreaterThan(weakest.sw)
  })

  it('clicking an output token leaves only its lines and highlights the source tokens by weight; clicking again clears', async () => {
    await setThreshold(0)
    const all = await lines()
    const S = await srcCount()
    await page.getByTestId('align-tgt-1').click()
    await expect.poll(drawnCount).toBe(S)
    expect(new Set((await lines()).map((l) => l.t))).toEqual(new Set([1]))
    await expect.poll(() => page.getByTestId('align-tgt-1').getAttribute('class')).toMatch(/\bselected\b/)
    // Source tokens carry the weights of row 1.
    const row1 = all.filter((l) => l.t === 1).sort((a, b) => a.s - b.s)
    for (const l of row1) expect(Number(await page.getByTestId(`align-src-${l.s}`).getAttribute('data-weight'))).toBeCloseTo(l.w, 6)

    await setThreshold(0.1)
    await expect.poll(drawnCount).toBe(row1.filter((l) => l.w >= 0.1).length)
    await setThreshold(0)
    await unhover()
    await screenshot(page, 'alignment-view-target')

    // Views that show every step start unselected (each view's tab.selection in the view registry, src/shared/charts/views): the heatmap
    // opens with no row singled out, and so do the lines when you come back.
    await page.getByTestId('tab-heatmap').click()
    await expect.poll(() => page.getByTestId('tgt-tokens').locator('button.selected').count()).toBe(0)
    await page.getByTestId('tab-lines').click()
    await svg().waitFor()
    await unhover()
    await expect.poll(drawnCount).toBe(all.filter((l) => l.w >= 0.1).length)
    expect(await page.locator('[data-testid^="align-"].selected').count()).toBe(0)
  })

  it('clicking a source token shows which output tokens look at it; the keyboard works too', async () => {
    await setThreshold(0)
    const all = await lines()
    const T = await tgtCount()
    await page.getByTestId('align-src-2').click() // "girl"
    await unhover()
    await expect.poll(drawnCount).toBe(T)
    expect(new Set((await lines()).map((l) => l.s))).toEqual(new Set([2]))
    const col = all.filter((l) => l.s === 2)
    for (const l of col) expect(Number(await page.getByTestId(`align-tgt-${l.t}`).getAttribute('data-weight'))).toBeCloseTo(l.w, 6)
    await expect.poll(() => page.getByTestId('align-focus').textContent()).toMatch(/^\s*girl is looked at by:/)
    await screenshot(page, 'alignment-view-source')

    // Enter on a focused token toggles it, like a click.
    await page.getByTestId('align-src-2').focus()
    await page.keyboard.press('Enter')
    await expect.poll(drawnCount).toBe(T * (await srcCount()))
    await page.getByTestId('align-tgt-0').focus()
    await page.keyboard.press('Enter')
    await expect.poll(async () => new Set((await lines()).map((l) => l.t))).toEqual(new Set([0]))
    await page.keyboard.press('Escape')
    await expect.poll(drawnCount).toBe(all.length)
  })

  it('hovering a token previews its lines without changing the selection', async () => {
    await setThreshold(0)
    const S = await srcCount()
    await page.getByTestId('align-tgt-2').hover()
    await expect.poll(drawnCount).toBe(S)
    expect(await page.locator('[data-testid^="align-"].selected').count()).toBe(0)
    await unhover()
    await expect.poll(drawnCount).toBe(S * (await tgtCount()))
  })

  // Layout only: a synthetic 47-character matrix stands in for a decode (the real zh→en model is
  // exercised end to end in translate.test.ts), so width, overlap and scrolling can be checked.
  it('layout with a synthetic long Chinese matrix: CJK tokens render at their width, never overlap, and the figure turns instead of running off the right edge', async () => {
    const zh = '一个穿着粉红色连衣裙的小女孩正在海滩上奔跑，她的小狗在后面追着她跑，天气很好，阳光明媚。'
    const srcTokens = [...zh, '</s>']
    const tgtTokens =
      'a little girl in a pink dress is running on the beach , her little dog is chasing her behind , the weather is nice and sunny . </s>'.split(' ')
    const S = srcTokens.length
    const attention = tgtTokens.map((_, t) => {
      const centre = ((t + 0.5) / tgtTokens.length) * S
      const row = srcTokens.map((__, s) => Math.exp(-((s - centre) ** 2) / 4))
      const z = row.reduce((a, b) => a + b, 0)
      return row.map((v) => v / z)
    })
    const fake: Translation = {
      modelId: 'bundled:tiny-bahdanau.onnx',
      source: zh,
      srcTokens,
      srcUnknown: srcTokens.map(() => false),
      tgtTokens,
      text: tgtTokens.slice(0, -1).join(' '),
      attention,
      scores: attention,
      encoderStates: srcTokens.map(() => [0]),
      align: null,
      positions: null,
      windows: null,
      gaussian: null,
      tokenLogProbs: tgtTokens.map(() => -1),
      alternatives: tgtTokens.map(() => []),
      tgtUnknown: null,
      mode: 'greedy',
      beam: 1,
      logProb: -tgtTokens.length,
      truncated: false,
      decodeMs: 1,
      provider: 'cpu',
    }
    const isTranslate = (u: URL) => u.pathname.endsWith('/api/translate:run')
    await page.route(isTranslate, (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ result: fake }) }))
    await page.getByTestId('source').fill(zh)
    await expect.poll(srcCount).toBe(S)
    await setThreshold(0.1)
    await expect.poll(drawnCount).toBe(attention.flat().filter((w) => w >= 0.1).length)

    // Wider than the panel across: turned, the source down the left, one token a row.
    expect(await svg().getAttribute('data-vertical')).toBe('true')
    const boxes = await page
      .locator('[data-testid^="align-src-"] rect.box')
      .evaluateAll((rs) => rs.map((r) => ({ y: Number(r.getAttribute('y')), h: Number(r.getAttribute('height')) })))
    for (let i = 1; i < boxes.length; i++) expect(boxes[i].y).toBeGreaterThanOrEqual(boxes[i - 1].y + boxes[i - 1].h)
    // A CJK character is drawn about one em wide (15 px), not as a narrow fallback.
    const glyph = await page
      .getByTestId('align-src-1')
      .locator('text.tok')
      .evaluate((t) => (t as SVGTextElement).getBBox().width)
    expect(glyph).toBeGreaterThan(12)
    // Nothing past the panel's right edge, nothing to scroll sideways.
    const scroll = await svg().evaluate((s) => ({ sw: s.parentElement!.scrollWidth, cw: s.parentElement!.clientWidth }))
    expect(scroll.sw).toBeLessThanOrEqual(scroll.cw)
    expect(await page.getByTestId('align-scroll').count()).toBe(0)

    await page.getByTestId('align-src-13').click() // 孩
    await unhover()
    await expect.poll(async () => new Set((await lines()).map((l) => l.s))).toEqual(new Set([13]))
    await page.getByTestId('lang-select').selectOption('zh')
    await expect.poll(() => page.getByTestId('align-count').textContent()).toMatch(/^已绘制 \d+ \/ \d+ 条连线$/)
    await expect.poll(() => page.getByTestId('align-focus').textContent()).toMatch(/孩 被以下输出词关注：\s*running 28%/)
    await screenshot(page, 'alignment-view-zh')
    await page.getByTestId('lang-select').selectOption('en')
    await page.unroute(isTranslate)
  })
})
