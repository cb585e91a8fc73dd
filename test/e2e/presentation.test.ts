import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import {
  launchChromium,
  openAndType,
  ROOT,
  screenshot,
  smallestChartFont as chartFonts,
  smallText as textUnder,
  startBrowserMode,
  type Running,
  type TestBrowser,
} from './harness'

// The bundled models: local-p has every view (local attention included).
const MODELS = process.env.AL_E2E_MODELS ?? join(ROOT, 'resources', 'models')
const LOCAL_P = 'bundled:en-fr-local-p.onnx'
const SENTENCE = 'A little girl in a pink dress is running on the beach.'

let app: Running
let browser: TestBrowser
let page: Page
const errors: string[] = []

const smallText = (min: number) => textUnder(page, min)
const smallestChartFont = () => chartFonts(page)

describe('presentation mode and consistent interaction', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) errors.push(msg.text())
    })
    await page.goto(app.url)
    await openAndType(page, LOCAL_P, SENTENCE)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('the same step is numbered the same in every view: 1-based, kept by the one-step views, reset by the overviews', async () => {
    // Output step 3 picked in the heatmap's token strip.
    await page.getByTestId('tgt-tokens').locator('button').nth(2).click()
    const token = await page.getByTestId('tgt-tokens').locator('button').nth(2).innerText()
    await page.getByTestId('tab-local').click()
    await expect.poll(() => page.getByTestId('local-step-label').innerText()).toBe(`Step 3: "${token}"`)
    await page.getByTestId('tab-step').click()
    await expect
      .poll(() => page.getByTestId('step-label').innerText())
      .toMatch(new RegExp(`^step 3 / \\d+: « ${token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} »$`))
    await page.getByTestId('tab-whatif').click()
    expect(await page.getByTestId('whatif-step').inputValue()).toBe('2')
    expect(await page.getByTestId('whatif-step').locator('option:checked').innerText()).toBe(`step 3 (${token})`)
    // The overviews start unselected: nothing dimmed, no lines singled out.
    await page.getByTestId('tab-heatmap').click()
    expect(await page.getByTestId('heatmap').getAttribute('data-selected')).toBe(',')
    await page.getByTestId('tgt-tokens').locator('button').nth(2).click()
    await page.getByTestId('tab-lines').click()
    expect(await page.locator('[data-testid^="align-tgt-"].selected').count()).toBe(0)
    await page.getByTestId('tab-heatmap').click()
  })

  it('local-p: the text under the heading matches the chart, and odd first or last steps are explained', async () => {
    await page.getByTestId('tab-local').click()
    const tagline = page.getByTestId('local-tagline')
    const distance = Number(await tagline.getAttribute('data-distance'))
    expect(await page.getByTestId('local-distance').innerText()).toContain(distance.toFixed(2))
    if (distance >= 0.5) expect(await tagline.innerText()).toContain(distance.toFixed(1))
    else expect(await tagline.innerText()).toMatch(/diagonal/)
    expect(await tagline.innerText()).not.toMatch(/sits on the diagonal/)
    await page.getByTestId('tab-heatmap').click()
  })

  it(`one key (P) turns on large type and fewer controls; every view is readable at 1280 × 720`, async () => {
    // Every tab is a slide: its charts' text at the largest size that fits the window, and the text
    // around them at 18 px or more; presentation-slide.test.ts reads them back at four window sizes.
    // Contributions too, once its answer comes (ContributionsSlide, fitted down to the floor: 18.75 px here, as
    // contributions.test checks); before it comes, its panel's charts are the enlarged ones (≥ 20 px).
    const slides = ['heatmap', 'local', 'step', 'lines', 'beam', 'comparison', 'sidebyside', 'whatif', 'corpus', 'goldlinks', 'contributions']
    await page.locator('header h1').click()
    await page.keyboard.press('p')
    await expect.poll(() => page.getByTestId('app').getAttribute('data-presenting')).toBe('true')
    // Typing a "p" in the sentence does not switch it off.
    await page.getByTestId('source').press('End')
    await page.getByTestId('source').press('p')
    expect(await page.getByTestId('app').getAttribute('data-presenting')).toBe('true')
    await page.getByTestId('source').fill(SENTENCE)
    // Controls a lecture does not need are gone.
    for (const id of ['heatmap-options', 'provider-select', 'export-open'])
      expect(
        await page
          .getByTestId(id)
          .first()
          .isVisible()
          .catch(() => false),
        id,
      ).toBe(false)
    const heatmap = page.getByTestId('heatmap')
    // A 12-word sentence: its slide has room for text of 18 px and more.
    await expect.poll(async () => Number(await heatmap.getAttribute('data-font'))).toBeGreaterThanOrEqual(18)

    const views = await page.locator('[data-testid^="tab-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)))
    expect(views).toEqual(expect.arrayContaining(['heatmap', 'local', 'step', 'lines', 'comparison', 'sidebyside', 'beam', 'whatif', 'corpus']))
    for (const view of views) {
      await page.getByTestId(`tab-${view}`).click()
      await page.getByTestId(`view-${view}`).waitFor()
      // Views that ask the engine: wait for what they draw.
      if (view === 'comparison') await page.getByTestId('slide-comparison').waitFor({ timeout: 20_000 })
      if (view === 'sidebyside') await page.getByTestId('slide-sidebyside').waitFor({ timeout: 30_000 })
      if (view === 'beam') {
        await page.getByTestId('beam-width-3').click()
        await page.getByTestId('beam-tree').waitFor({ timeout: 20_000 })
      }
      expect(await smallText(18), view).toEqual([])
      // Polled: a view that asks the engine (contributions) draws its chart once the answer comes.
      if (!slides.includes(view))
        await expect.poll(async () => Math.min(20, ...(await smallestChartFont())), { message: `${view}: smallest chart text` }).toBe(20)
      await page.evaluate(() => window.scrollTo(0, 0))
      await screenshot(page, `present-${view}`, { fullPage: false })
    }
    await page.getByTestId('tab-heatmap').click()
    await page.locator('main').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('p')
    await expect.poll(() => page.getByTestId('app').getAttribute('data-presenting')).toBe('false')
    expect(Number(await heatmap.getAttribute('data-font'))).toBeLessThan(20)
    // The Decoding menu is off the projector's controls: greedy again, outside presentation mode.
    await page.getByTestId('beam-select').selectOption('1')
    expect(errors).toEqual([])
  })

  it('the Chinese interface: chart axis names, tab names and view labels in Chinese', async () => {
    await page.getByTestId('lang-select').selectOption('zh')
    const cjk = /[\u3000-\u9fff]/
    for (const view of ['comparison', 'local', 'step', 'sidebyside', 'beam']) {
      await page.getByTestId(`tab-${view}`).click()
      await page.getByTestId(`view-${view}`).waitFor()
      if (view === 'comparison') await expect.poll(() => page.getByTestId('compare-row').count(), { timeout: 20_000 }).toBeGreaterThan(1)
      const names = await page
        .locator('main .chart[data-axis-names]')
        .evaluateAll((els) => els.flatMap((e) => (e.getAttribute('data-axis-names') || '').split('|').filter(Boolean)))
      for (const n of names) expect(/[A-Za-z]{3,}/.test(n.replace(/\b(BLEU|softmax|log)\b/g, '')) && !cjk.test(n), `${view}: axis "${n}"`).toBe(false)
      const labels = await page.locator('main :is(.label, .tabs button, h3, .intro, .caption)').allInnerTexts()
      for (const l of labels.filter((x) => x.trim())) expect(cjk.test(l) || !/[A-Za-z]{4,}/.test(l), `${view}: "${l}"`).toBe(true)
      await screenshot(page, `zh-${view}`)
    }
    await page.getByTestId('lang-select').selectOption('en')
  })
})
