import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, ROOT, screenshot, startBrowserMode, waitForPreview, type Running, type TestBrowser } from './harness'

// The export dialog as a lecturer meets it (issue 40, item 7), with a 25-word sentence of the
// Multi30K test set on en-fr-bahdanau: a refused figure cannot be saved and is refused once, a
// fitting choice clears the refusal, nothing is cut off from 1280×720 to 1920×1080, and the
// refusal shows before the search for what fits ends. The preview's time is a benchmark's
// (bench/export-preview.ts), not a test's: timings swing on a shared machine.
const SENTENCE = 'A man in light colored clothing photographs a group of men wearing dark suits and hats standing around a woman dressed in a strapless gown.'
const SIZES = [
  [1280, 720],
  [1366, 768],
  [1600, 1000],
  [1920, 1080],
] as const

let app: Running
let browser: TestBrowser
let page: Page

/** Opens the step-through's export dialog with the dialog's defaults (a 16:9 slide, lecture-hall text) and waits for its preview or refusal; the time that took, in ms. */
async function openDialog(): Promise<number> {
  const t0 = Date.now()
  await page.getByTestId('export-open').first().click()
  await waitForPreview(page)
  return Date.now() - t0
}

describe('the export dialog with a 25-word sentence', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: join(ROOT, 'resources', 'models') })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
    await page.goto(app.url)
    await openAndType(page, 'bundled:en-fr-bahdanau.onnx', SENTENCE)
    // The step-through: at the defaults (lecture text) its 25 words are two slides, its bar stages
    // and its context; at back-row text (28 pt) it is refused.
    await page.getByTestId('tab-step').click()
    expect(SENTENCE.split(' ')).toHaveLength(25)
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })
  // A test that failed with the dialog open leaves no dialog to the next one.
  beforeEach(async () => {
    if (await page.getByTestId('export-dialog').count()) await page.keyboard.press('Escape')
  })

  it('a refused figure: Save and Copy are off, one refusal; a fitting choice clears it and turns them on', async () => {
    // The dialog's defaults, whatever an earlier export left.
    await page.evaluate(() => localStorage.removeItem('attention-lens:export'))
    await openDialog()
    await page.getByTestId('export-size').selectOption('slide-16x9')
    // The dialog's defaults fit: no refusal, Save on, the note names the two slides.
    // (The fit runs on a worker: seconds of wall clock on a loaded machine.)
    await expect
      .poll(() => page.getByTestId('export-fit-note').textContent(), { timeout: 20_000 })
      .toBe('split into 2 slides to fit at 20 pt: stages 1–2; stage 3')
    expect(await page.getByTestId('export-refused').count()).toBe(0)
    expect(await page.getByTestId('export-save').isEnabled()).toBe(true)
    await page.getByTestId('export-font').selectOption('back-row')
    const refused = page.getByTestId('export-refused')
    await expect.poll(() => refused.count(), { timeout: 20_000 }).toBe(1)
    await expect.poll(() => page.getByTestId('export-save').isDisabled()).toBe(true)
    expect(await page.getByTestId('export-copy').isDisabled()).toBe(true)
    const refusal = (await refused.textContent())!
    // The refusal is said once in the dialog.
    const copies = async () => (await page.getByTestId('export-dialog').innerText()).split(refusal.slice(0, 40)).length - 1
    expect(await copies()).toBe(1)
    await screenshot(page, 'export-dialog-refused', { fullPage: false })
    // Whatever fits (the first alternative offered): the refusal goes, Save comes on, no error is left.
    await page.getByTestId('export-alternative').first().click()
    await expect.poll(() => refused.count(), { timeout: 20_000 }).toBe(0)
    await expect.poll(() => page.getByTestId('export-save').isEnabled()).toBe(true)
    expect(await page.getByTestId('export-error').count()).toBe(0)
    expect(await copies()).toBe(0)
    await page.getByTestId('export-close').click()
  })

  for (const [w, h] of SIZES)
    it(`${w}×${h}: nothing in the dialog is cut off at its edges`, async () => {
      await page.setViewportSize({ width: w, height: h })
      await openDialog()
      const cut = await page.evaluate(() => {
        const dialog = document.querySelector('[data-testid="export-dialog"]') as HTMLElement
        const box = dialog.getBoundingClientRect()
        const out: string[] = []
        if (box.left < 0 || box.right > innerWidth || box.top < 0 || box.bottom > innerHeight) out.push(`the dialog ${JSON.stringify(box)}`)
        if (dialog.scrollWidth > dialog.clientWidth) out.push(`scrolls sideways: ${dialog.scrollWidth} > ${dialog.clientWidth}`)
        for (const el of Array.from(dialog.querySelectorAll('button, select, input, label, p, span'))) {
          const r = el.getBoundingClientRect()
          if (r.width === 0) continue
          if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
            out.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 20)}" ${r.left}–${r.right}`)
        }
        return out
      })
      await screenshot(page, `export-dialog-${w}x${h}`, { fullPage: false })
      expect(cut).toEqual([])
      // Close is on screen, or reached by scrolling the dialog, and works.
      await page.getByTestId('export-close').click()
      await expect.poll(() => page.getByTestId('export-dialog').count()).toBe(0)
    })

  it('refused, the refusal is on show before what fits instead; fitted, the figure (how long either takes: npm run bench:preview)', async () => {
    await page.setViewportSize({ width: 1280, height: 720 })
    for (const font of ['back-row', 'lecture'] as const) {
      // A 16:9 slide with back-row text (refused) or the dialog's defaults, lecture-hall text (fits, split into two slides).
      await page.evaluate((f) => localStorage.setItem('attention-lens:export', JSON.stringify({ preset: 'slide-16x9', font: f })), font)
      // What appears first: the refusal, or the figure (in-page, in order).
      await page.evaluate(() => {
        const w = window as unknown as { seen: string[] }
        w.seen = []
        const has = (id: string) => !!document.querySelector(`[data-testid="${id}"]`)
        const see = (what: string) => !w.seen.includes(what) && w.seen.push(what)
        new MutationObserver(() => {
          // The refusal on its own (before what fits instead is known), then with the alternatives.
          if (has('export-refused') && !has('export-alternative')) see('refusal alone')
          if (has('export-alternative')) see('alternatives')
          if (document.querySelector('[data-testid="export-preview"] svg path')) see('figure')
        }).observe(document.body, { childList: true, subtree: true })
      })
      await openDialog()
      if (font === 'back-row') await page.getByTestId('export-alternative').first().waitFor()
      const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen)
      expect(seen).toEqual(font === 'back-row' ? ['refusal alone', 'alternatives'] : ['figure'])
      await page.getByTestId('export-close').click()
    }
  })
})
