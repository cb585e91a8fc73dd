/**
 * What the presentation-mode read-backs share (presentation-slide.test.ts, presentation-fit.test.ts):
 * a signed-in page whose charts are drawn as SVG, presentation mode by its key, a few lines of a
 * test set, every chart text on screen with its turned box, and the list of problems as one string.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Point } from '../../src/shared/charts/text-boxes'
import { launchChromium, ROOT, startBrowserMode, type Running, type TestBrowser } from './harness'

export const MODELS = process.env.AL_E2E_MODELS ?? join(ROOT, 'resources', 'models')

export interface SvgPage {
  app: Running
  browser: TestBrowser
  page: Page
  /** The page's uncaught errors, as they come. */
  errors: string[]
}

/** Browser mode with the bundled models, and a 1280 × 720 page signed in with its charts drawn by ECharts' SVG renderer. */
export async function openSvgPage(): Promise<SvgPage> {
  const app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
  const browser = await launchChromium()
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  // The login link sets the cookie and drops its query; the SVG renderer is asked for after it.
  await page.goto(app.url)
  await page.goto(`${app.origin}/?renderer=svg`)
  return { app, browser, page, errors }
}

export async function closeSvgPage(s: SvgPage | undefined): Promise<void> {
  await s?.browser.close()
  await s?.app.stop()
}

/** Presentation mode on or off by its key, as a lecturer does (no text field may have the focus). */
export async function presenting(page: Page, on: boolean): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  await page.keyboard.press(on ? 'p' : 'Escape')
  await page.locator(`[data-testid="app"][data-presenting="${on}"]`).waitFor()
}

/**
 * Waits until the main area has settled: no change to its DOM (a chart's animation, a resize's
 * refit, a view's late state) for `quietMs`, and at least two frames drawn. It replaces a fixed
 * sleep: a slide that settles at once is read after 250 ms, not 700-800, and one still animating is
 * waited for however long it takes (up to `maxMs`, then read as it is, which the checks judge).
 * After the two frames the quiet is timed by timers, not by a frame each: a frame asked for is one
 * the browser draws (its renderer, GPU and browser processes), about 15 per wait for nothing, and a
 * change to the page asks for its own frames.
 */
export async function settled(page: Page, quietMs = 250, maxMs = 5_000): Promise<void> {
  await page.evaluate(
    ([quietMs, maxMs]) =>
      new Promise<void>((resolve) => {
        const main = document.querySelector('main') ?? document.body
        const start = performance.now()
        let last = performance.now()
        const obs = new MutationObserver(() => (last = performance.now()))
        obs.observe(main, { subtree: true, childList: true, attributes: true, characterData: true })
        const check = () => {
          const now = performance.now()
          if (now - last >= quietMs || now - start >= maxMs) {
            obs.disconnect()
            resolve()
          } else setTimeout(check, Math.max(1, Math.min(last + quietMs, start + maxMs) - now))
        }
        requestAnimationFrame(() => requestAnimationFrame(check))
      }),
    [quietMs, maxMs],
  )
}

/** The first lines of a bundled test set (resources/testsets/<pair>.<lang>), so that BLEU by length draws in seconds. */
export const fewLines = (pair: string, lang: string, lines = 12) => ({
  name: `few.${lang}`,
  mimeType: 'text/plain',
  buffer: Buffer.from(
    readFileSync(join(ROOT, 'resources', 'testsets', `${pair}.${lang}`), 'utf8')
      .split('\n')
      .slice(0, lines)
      .join('\n') + '\n',
  ),
})

/** The problems found, the first 12 of them, as one string that an assertion shows whole ('' when there are none). */
export const listed = (found: string[]): string => found.slice(0, 12).join('\n') + (found.length > 12 ? `\n… ${found.length - 12} more` : '')

export interface SvgText {
  text: string
  /** Its size on screen, in px (the font size scaled with its element). */
  size: number
  /** Its box's four corners on screen, turned with the text. */
  corners: Point[]
  /** The box of the chart it is drawn in (the `.chart` element, else its outermost SVG). */
  box: { x0: number; y0: number; x1: number; y1: number }
  /** The size its slide was fitted at (`data-font` of the nearest element that has one), or null. */
  slideFont: number | null
  /** The slide's test id, else the chart's label. */
  where: string
  /** The view it is in (`view-heatmap`…). */
  view: string
}

/** Every text drawn in an SVG of the main area and on show, with its size and its turned box on screen. */
export async function svgTexts(page: Page): Promise<SvgText[]> {
  return page.evaluate(() => {
    const out: SvgText[] = []
    for (const el of Array.from(document.querySelectorAll('main svg text'))) {
      const t = el as SVGTextElement
      const text = (t.textContent ?? '').trim()
      if (!text || t.closest('.sr-only, [hidden], [aria-hidden="true"]')) continue
      const style = getComputedStyle(t)
      if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0 || Number(style.fillOpacity) === 0) continue
      const rect = t.getBoundingClientRect()
      const ctm = t.getScreenCTM()
      if (rect.width === 0 || rect.height === 0 || !ctm) continue
      const b = t.getBBox()
      const corners = [
        [b.x, b.y],
        [b.x + b.width, b.y],
        [b.x + b.width, b.y + b.height],
        [b.x, b.y + b.height],
      ].map(([x, y]) => [ctm.a * x + ctm.c * y + ctm.e, ctm.b * x + ctm.d * y + ctm.f]) as [number, number][]
      const chart = t.closest('.chart') ?? (t.ownerSVGElement?.ownerSVGElement ?? t.ownerSVGElement)!
      const r = chart.getBoundingClientRect()
      const slide = t.closest('[data-font]')
      out.push({
        text,
        size: parseFloat(style.fontSize) * Math.hypot(ctm.a, ctm.b),
        corners,
        box: { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom },
        slideFont: slide ? Number(slide.getAttribute('data-font')) : null,
        where: slide?.getAttribute('data-testid') ?? chart.getAttribute('aria-label') ?? chart.getAttribute('data-testid') ?? chart.tagName,
        view: t.closest('[data-testid^="view-"]')?.getAttribute('data-testid') ?? '',
      })
    }
    return out
  })
}
