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
  calls(page)
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
 * The page's calls to browser mode's API in flight (its event stream aside), watched from when
 * openSvgPage opens the page, or else from the first time `settled` is asked about it: a view
 * waiting on the engine changes nothing in the page meanwhile, and a quiet page is not a settled
 * one while an answer is still to come.
 */
interface Calls {
  open: Set<object>
  /** Calls made and answered so far. */
  changes: number
  /** Who waits for the next answer. */
  waiting: (() => void)[]
}
const inFlight = new WeakMap<Page, Calls>()
function calls(page: Page): Calls {
  const known = inFlight.get(page)
  if (known) return known
  const c: Calls = { open: new Set(), changes: 0, waiting: [] }
  const api = (url: string) => {
    const path = new URL(url).pathname
    return path.startsWith('/api/') && path !== '/api/events'
  }
  page.on('request', (r) => {
    if (!api(r.url())) return
    c.open.add(r)
    c.changes++
  })
  const done = (r: object) => {
    if (!c.open.delete(r)) return
    c.changes++
    for (const wake of c.waiting.splice(0)) wake()
  }
  page.on('requestfinished', done)
  page.on('requestfailed', done)
  inFlight.set(page, c)
  return c
}
/** Resolves at the page's next answer, or after `ms`. */
const nextAnswer = (c: Calls, ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms)
    c.waiting.push(() => {
      clearTimeout(t)
      resolve()
    })
  })

/**
 * Waits until the main area has settled: no call to the API in flight, then no change to the main
 * area's DOM (a chart's drawing, a resize's refit, a view's late state) for `quietMs` and for two
 * frames after that, and no call made or answered meanwhile. The frames catch a chart whose paint
 * is still to come when the quiet ends (ECharts draws on the next frame, after a fit that held the
 * page's thread longer than the quiet); the calls catch a view waiting on the engine, which changes
 * nothing while it waits. It replaced a fixed sleep, then a quiet of 250 ms with nothing else
 * watched: presentation-slide.test.ts spent a fifth of its time in those waits (issue 40,
 * "Performance"). Up to `maxMs`, then the page is read as it is, which the checks judge.
 */
export async function settled(page: Page, quietMs = 60, maxMs = 5_000): Promise<void> {
  const c = calls(page)
  const until = Date.now() + maxMs
  for (;;) {
    while (c.open.size > 0 && Date.now() < until) await nextAnswer(c, until - Date.now())
    const before = c.changes
    await page.evaluate(
      ([quietMs, maxMs]) =>
        new Promise<void>((resolve) => {
          const main = document.querySelector('main') ?? document.body
          const start = performance.now()
          let last = performance.now()
          const obs = new MutationObserver(() => (last = performance.now()))
          obs.observe(main, { subtree: true, childList: true, attributes: true, characterData: true })
          const frame = () => new Promise((r) => requestAnimationFrame(r))
          const check = async () => {
            const now = performance.now()
            if (now - start >= maxMs) {
              obs.disconnect()
              return resolve()
            }
            if (now - last < quietMs) return void setTimeout(check, Math.max(1, Math.min(last + quietMs, start + maxMs) - now))
            // Quiet: two more frames, and nothing changed in them.
            const quietSince = last
            await frame()
            await frame()
            if (last !== quietSince) return void check()
            obs.disconnect()
            resolve()
          }
          requestAnimationFrame(() => requestAnimationFrame(() => void check()))
        }),
      [quietMs, Math.max(1, until - Date.now())],
    )
    if ((c.open.size === 0 && c.changes === before) || Date.now() >= until) return
  }
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
