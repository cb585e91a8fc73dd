import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS } from './chromium'

export const ROOT = join(__dirname, '..', '..')
export const ARTIFACTS = join(ROOT, 'test', 'artifacts')
// Made as the harness loads: the e2e files write their read-backs and downloads there, and a file
// that wrote before any screenshot had made it (presentation-fit's list of problems) relied on
// another file having run first.
mkdirSync(ARTIFACTS, { recursive: true })

export interface Running {
  /** The link browser mode printed (http://127.0.0.1:PORT/?token=…): opening it signs the page in. */
  url: string
  /** http://127.0.0.1:PORT, for permissions and the like. */
  origin: string
  proc: ChildProcess
  stop(): Promise<void>
}

/** Starts browser mode from the build (`npm run build` output) as a user would, on a random port (AL_PORT=0). */
export async function startBrowserMode(env: Record<string, string> = {}): Promise<Running> {
  const proc = spawn(process.execPath, [join(ROOT, 'out', 'main', 'web.js')], {
    // Fresh settings and a fresh evaluation cache, so no run sees what an earlier one left.
    env: {
      ...process.env,
      AL_PORT: '0',
      AL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'al-cfg-')),
      XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'al-cache-')),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      // The whole line: a chunk may end inside the token.
      const m = out.match(/(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)\r?\n/)
      if (m) resolve(m[1])
    })
    proc.on('exit', (code) => reject(new Error(`browser mode exited with ${code}: ${out}`)))
  })
  return {
    url,
    origin: new URL(url).origin,
    proc,
    stop: async () => {
      proc.kill()
      await new Promise((r) => proc.once('exit', r))
    },
  }
}

/** What a test file holds of its worker's Chromium: closing it closes the file's pages and contexts, not the browser. */
export type TestBrowser = Pick<Browser, 'newPage' | 'newContext' | 'close'>

class FileBrowser implements TestBrowser {
  private readonly contexts = new Set<BrowserContext>()
  constructor(private readonly browser: Browser) {}

  async newPage(options?: Parameters<Browser['newPage']>[0]): Promise<Page> {
    const page = await this.browser.newPage(options)
    this.contexts.add(page.context())
    return page
  }

  async newContext(options?: BrowserContextOptions): Promise<BrowserContext> {
    const context = await this.browser.newContext(options)
    this.contexts.add(context)
    return context
  }

  async close(): Promise<void> {
    await Promise.all([...this.contexts].map((c) => c.close()))
    this.contexts.clear()
  }
}

let workerBrowser: Promise<Browser> | undefined

/**
 * Under vitest, the test worker's Chromium: launched by the first file that asks, and kept for the
 * files the worker runs after it (they share its modules, `isolate: false`); Playwright ends it with
 * the worker. A launch costs about 1.6 CPU s on this kind of machine, and 33 files each made one.
 * One Chromium for the whole run, shared over Playwright's browser server, cost more: every message
 * between a test and its page went through the server in vitest's main process (issue 40,
 * "Performance": 4 CPU s of the 80 of presentation-slide.test). Each file still gets fresh browser
 * contexts, so no cookies, storage or permissions pass between files. Outside vitest (the
 * benchmarks: bench/ui-probe.ts…), a Chromium of the caller's own.
 */
export async function launchChromium(): Promise<TestBrowser> {
  const launch = () => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  if (!process.env.VITEST) return launch()
  const current = workerBrowser && (await workerBrowser.catch(() => undefined))
  if (!current?.isConnected()) workerBrowser = launch()
  return new FileBrowser(await workerBrowser!)
}

/**
 * Whether a run keeps its screenshots (AL_SCREENSHOTS=1). They are for people to look at, never a
 * check, and each costs the browser a paint and a PNG of the page, the wait before it a PNG of every
 * canvas at each frame (issue 40, "Performance": the suite took them all on every run).
 */
export const SCREENSHOTS = process.env.AL_SCREENSHOTS === '1'

/**
 * A screenshot of the whole page, or with `fullPage: false` of the viewport only (what a 1280 × 720
 * projector shows), where the run keeps screenshots or `always` says to (a slide a check found
 * wrong, the gallery); else null, and nothing is waited for.
 */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean; always?: boolean } = {}): Promise<string | null> {
  if (!SCREENSHOTS && !opts.always) return null
  // ECharts puts heatmap cells on an incremental layer that zrender paints ~15 ms per frame, so
  // a large heatmap (48 × 384) can still be half drawn: wait until the canvases stop changing.
  await page.evaluate(async () => {
    const snap = () => Array.from(document.querySelectorAll('canvas'), (c) => c.toDataURL()).join('|')
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)))
    let previous = ''
    for (let i = 0; i < 60; i++) {
      await frame()
      const now = snap()
      if (now === previous) return
      previous = now
    }
  })
  const path = join(ARTIFACTS, `${name}.png`)
  await page.screenshot({ path, fullPage: opts.fullPage ?? true })
  return path
}

/** Picks a bundled model by id, waits until it is open, types a sentence and waits for its translation. */
export async function openAndType(page: Page, modelId: string, sentence: string): Promise<void> {
  const select = page.getByTestId('model-select')
  await select.locator(`option[value="${modelId}"]`).waitFor({ state: 'attached' })
  // Playwright's selectOption fires `change` even for the option already chosen, which a person
  // re-picking it does not: the app then opens the model anew, its views go while the translation
  // still names the sentence, and a file that asked again for the same model read the tabs between.
  if ((await select.inputValue()) !== modelId) await select.selectOption(modelId)
  const name = modelId.replace(/^bundled:/, '').replace(/\.onnx$/, '')
  await page.getByTestId('model-name').filter({ hasText: name }).waitFor()
  await page.getByTestId('source').fill(sentence)
  await waitForTranslationOf(page, sentence)
}

/** Waits until the translation on show is the one of `sentence`, not an earlier one still showing. */
export async function waitForTranslationOf(page: Page, sentence: string, timeout = 20_000): Promise<void> {
  await page.waitForFunction((s) => document.querySelector('[data-testid="translation"]')?.getAttribute('data-source') === s, sentence, { timeout })
}

/** Waits until the export dialog's preview is drawn: its figure, or the refusal in its place. */
export async function waitForPreview(page: Page, timeout = 20_000): Promise<void> {
  await page.locator('[data-testid="export-preview"] svg path, [data-testid="export-refused"]').first().waitFor({ state: 'attached', timeout })
}

/** Text elements on show in the main area whose computed font size is under `min` px: their text and size. */
export async function smallText(page: Page, min: number): Promise<string[]> {
  return page.evaluate((min) => {
    const out: string[] = []
    const els = document.querySelectorAll('main :is(div, p, span, label, button, select, h3, b, strong, output, li, td, th)')
    for (const el of Array.from(els)) {
      const box = (el as HTMLElement).getBoundingClientRect()
      if (box.width === 0 || box.height === 0 || el.closest('svg, sub')) continue
      // Only elements that hold text of their own.
      if (!Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim())) continue
      const size = parseFloat(getComputedStyle(el).fontSize)
      if (size < min) out.push(`${el.tagName.toLowerCase()}.${(el as HTMLElement).className} "${el.textContent!.trim().slice(0, 30)}" ${size}px`)
    }
    return out
  }, min)
}

/** The smallest font size set in any chart on show (the option ECharts was given). */
export async function smallestChartFont(page: Page): Promise<number[]> {
  return page
    .locator('main .chart[data-min-font]')
    .evaluateAll((els) =>
      els.filter((e) => (e as HTMLElement).offsetParent !== null && e.getAttribute('data-min-font')).map((e) => Number(e.getAttribute('data-min-font'))),
    )
}
