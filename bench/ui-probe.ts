/**
 * The renderer's side of issue 15's targets, measured in browser mode (the built app in Debian's
 * Chromium): the last keystroke of a sentence → its heatmap painted, and one forecast origin step
 * → the forecast repainted. Each time is taken inside the page, from the key event to the last
 * animation frame that changed a canvas pixel after the view showed the new result, so it includes
 * the debounce, the HTTP round trip, the decode and the whole (progressive) repaint.
 * Reported by `npm run bench`; never asserted in tests (timings swing on shared machines).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, startBrowserMode, waitForTranslationOf } from '../test/e2e/harness'

const ROOT = join(__dirname, '..')

export interface UiProbe {
  /** ms from the last keystroke to the painted heatmap, one per sentence. */
  keystroke: number[]
  /** ms from one origin step (arrow key on the slider) to the repainted forecast. */
  forecastStep: number[]
}

/** Installs, once per page, a recorder: key time → time the watched attribute changed + 2 frames. */
async function timeUntilChanged(page: Page, selector: string, attribute: string | null, press: () => Promise<void>): Promise<number> {
  await page.evaluate(
    ([sel, attr]) => {
      const w = window as unknown as { __probe?: Promise<number> }
      const el = () => document.querySelector(sel)
      const read = () => (attr ? el()?.getAttribute(attr) : el()?.textContent) ?? ''
      const before = read()
      let start = 0
      window.addEventListener('keydown', () => (start = performance.now()), { once: true, capture: true })
      w.__probe = new Promise<number>((resolve) => {
        // ECharts paints large heatmaps progressively over several frames: after the view shows the
        // new result, sample every canvas each frame and take the last frame that still changed
        // pixels, once three frames in a row changed nothing.
        const sample = () => {
          let h = 0
          for (const c of Array.from(document.querySelectorAll('canvas'))) {
            const ctx = c.getContext('2d')
            if (!ctx || c.width === 0 || c.height === 0) continue
            const d = ctx.getImageData(0, 0, c.width, c.height).data
            for (let i = 0; i < d.length; i += 28) h = (h * 31 + d[i]) | 0
          }
          return h
        }
        const settle = () => {
          let last = sample()
          let changedAt = performance.now()
          let quiet = 0
          const frame = () => {
            const now = sample()
            if (now !== last) {
              last = now
              changedAt = performance.now()
              quiet = 0
            } else quiet++
            if (quiet >= 3) resolve(changedAt - start)
            else requestAnimationFrame(frame)
          }
          requestAnimationFrame(frame)
        }
        const check = () => {
          if (start > 0 && read() !== before) {
            settle()
            return true
          }
          return false
        }
        const obs = new MutationObserver(() => check() && obs.disconnect())
        obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })
      })
    },
    [selector, attribute] as const,
  )
  await press()
  return page.evaluate(() => (window as unknown as { __probe: Promise<number> }).__probe)
}

export async function probeUi(opts: { sentences?: string[]; steps?: number } = {}): Promise<UiProbe> {
  // Browser mode runs the build: make sure it is the current source's.
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'ensure-build.mjs')], { stdio: 'inherit' })
  if (built.status !== 0) throw new Error('the build for browser mode failed')
  const sentences = opts.sentences ?? [
    'A man in a blue shirt is standing on a ladder.',
    'Two dogs are running through the snow.',
    'A little girl in a pink dress is running on the beach.',
    'A group of people are sitting at a table in a restaurant.',
    'A woman is riding a bicycle down the street.',
    'The old man with a black hat walks along the river.',
    'Children are playing football in the park.',
    'A cat is sleeping on a red sofa.',
    'Three men are working on a construction site.',
    'A boy jumps into the swimming pool.',
    'People are walking on a busy street at night.',
  ]
  const app = await startBrowserMode()
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    // tsx compiles with esbuild's keepNames, which wraps the page functions below in a __name helper.
    await page.addInitScript({ content: 'globalThis.__name = (f) => f' })
    await page.goto(app.url)
    await openAndType(page, 'bundled:en-fr-bahdanau.onnx', 'A dog.')
    const keystroke: number[] = []
    for (const s of sentences) {
      // Everything but the last character first, settled, so the measured keystroke is the last one.
      await page.getByTestId('source').fill(s.slice(0, -1))
      await waitForTranslationOf(page, s.slice(0, -1))
      await page.getByTestId('source').focus()
      keystroke.push(await timeUntilChanged(page, '[data-testid="translation"]', 'data-source', () => page.keyboard.press(s.at(-1)!)))
    }
    await page.getByTestId('model-select').selectOption('bundled:taylor-luong-general.onnx')
    await page.getByTestId('origin-time').filter({ hasText: /\d/ }).waitFor()
    const forecastStep: number[] = []
    for (let i = 0; i < (opts.steps ?? 10); i++) {
      await page.getByTestId('origin-slider').focus()
      forecastStep.push(await timeUntilChanged(page, '[data-testid="origin-time"]', null, () => page.keyboard.press('ArrowRight')))
    }
    return { keystroke, forecastStep }
  } finally {
    await browser.close()
    await app.stop()
  }
}

if (process.argv[1]?.endsWith('ui-probe.ts')) {
  probeUi().then(
    (r) => console.log(JSON.stringify(r)),
    (e: Error) => {
      console.error(`ui-probe: ${e.message}`)
      process.exit(1)
    },
  )
}
