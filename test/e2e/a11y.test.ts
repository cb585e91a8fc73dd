import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'
import { presenting, settled } from './slide-helpers'
import { axeViolations, isSerious, type Violation } from './axe'

// axe-core on every view of the translation window and on the export dialog (issue 33): no
// critical or serious violation, landmarks at the top level and headings in order. A local model
// (its Local tab) and a Transformer (its heads).
const SENTENCE = 'A man in a blue shirt is standing on a ladder.'
/** Moderate rules the app keeps too: landmarks at the top level, headings in order. */
const ALSO = ['landmark-banner-is-top-level', 'landmark-contentinfo-is-top-level', 'landmark-main-is-top-level', 'heading-order']

let app: Running
let browser: TestBrowser
let page: Page

async function audit(p: Page): Promise<Violation[]> {
  return (await axeViolations(p)).filter((v) => isSerious(v) || ALSO.includes(v.id))
}

/** Opens a tab and does what it needs before its charts draw. */
async function openTab(view: string): Promise<void> {
  await page.getByTestId(`tab-${view}`).click()
  if (view === 'beam' && (await page.getByTestId('beam-width-3').count())) {
    await page.getByTestId('beam-width-3').click()
    await page.getByTestId('beam-tree').waitFor({ timeout: 30_000 })
  }
  if (view === 'comparison') await page.getByTestId('compare-token').first().waitFor({ timeout: 30_000 })
  if (view === 'whatif') {
    await page.getByTestId('whatif-run').click()
    await page.getByTestId('whatif-result').waitFor({ timeout: 30_000 })
  }
  await settled(page)
}

describe('accessibility: axe-core finds nothing critical or serious', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    // The app's CSP allows no inline script: axe-core goes in past it (the app's own scripts are unchanged).
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
    await page.goto(app.url)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  for (const model of ['bundled:tiny-local-p.onnx', 'bundled:tiny-transformer.onnx']) {
    it(`${model}: every view`, async () => {
      await openAndType(page, model, SENTENCE)
      const tabs = await page.locator('[data-testid^="tab-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)))
      const found: Record<string, Violation[]> = {}
      for (const view of tabs) {
        await openTab(view)
        const v = await audit(page)
        if (v.length) found[view] = v
        if (view === 'beam') await page.getByTestId('beam-select').selectOption('1')
      }
      await screenshot(page, `a11y-${model.replace(/^bundled:|\.onnx$/g, '')}`, { fullPage: false })
      expect(found).toEqual({})
    })
  }

  it('presentation mode at 1280×720: every slide, and predict-then-reveal', async () => {
    await page.setViewportSize({ width: 1280, height: 720 })
    await openAndType(page, 'bundled:tiny-transformer.onnx', SENTENCE)
    await presenting(page, true)
    const tabs = await page.locator('[data-testid^="tab-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)))
    expect(tabs.length).toBeGreaterThan(5)
    const found: Record<string, Violation[]> = {}
    for (const view of tabs) {
      await page.getByTestId(`tab-${view}`).click()
      await page.getByTestId(`view-${view}`).waitFor()
      if (view === 'whatif' && (await page.getByTestId('whatif-run').count())) await page.getByTestId('whatif-run').click()
      await settled(page)
      const v = await audit(page)
      if (v.length) found[view] = v
    }
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('predict-toggle').click()
    await page.getByTestId('predict-hidden').waitFor()
    const hidden = await audit(page)
    if (hidden.length) found['predict, hidden'] = hidden
    await page.getByTestId('predict-reveal').click()
    await settled(page)
    const revealed = await audit(page)
    if (revealed.length) found['predict, revealed'] = revealed
    await screenshot(page, 'a11y-presentation-predict', { fullPage: false })
    await page.getByTestId('predict-toggle').click()
    await presenting(page, false)
    await page.setViewportSize({ width: 1280, height: 900 })
    expect(found).toEqual({})
  })

  it('the export dialog', async () => {
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('export-open').first().click()
    await page.getByTestId('export-dialog').waitFor()
    await settled(page)
    const v = await audit(page)
    await screenshot(page, 'a11y-export-dialog', { fullPage: false })
    await page.getByTestId('export-close').click()
    expect(v).toEqual([])
  })
})
