/**
 * Browser mode's folder upload, leg by leg (issue 39: a 1.17 GB folder took 486 s to open in the
 * browser e2e): Playwright handing the folder to the page's folder input (over a launchServer
 * connection Playwright copies every file through its websocket first; with a browser of its own
 * it names the files by path), then the page's uploads until the server has every byte on disk,
 * then the open. `npm run bench:upload -- DIR [local|remote ...]` after
 * `npx electron-vite build`. Reported, never asserted (timings swing on shared machines).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { CHROMIUM_ARGS } from '../test/e2e/chromium'
import { startBrowserMode } from '../test/e2e/harness'

const bytesUnder = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0)

async function browserFor(mode: string): Promise<{ browser: Browser; close: () => Promise<void> }> {
  if (mode === 'local') {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
    return { browser, close: () => browser.close() }
  }
  const server = await chromium.launchServer({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
  const browser = await chromium.connect(server.wsEndpoint())
  return { browser, close: async () => (await browser.close(), await server.close()) }
}

async function once(dir: string, mode: string): Promise<Record<string, number | string>> {
  const tmp = mkdtempSync(join(tmpdir(), 'al-upload-bench-'))
  const app = await startBrowserMode({
    AL_MODELS_DIR: mkdtempSync(join(tmpdir(), 'al-no-models-')),
    TMPDIR: tmp,
    AL_CACHE_DIR: mkdtempSync(join(tmpdir(), 'al-cache-')),
  })
  const { browser, close } = await browserFor(mode)
  try {
    const page = await browser.newPage()
    await page.goto(app.url)
    await page.getByTestId('folder-input').waitFor({ state: 'attached' })
    // What the page's uploads read: every byte the server saved, polled.
    let firstByte = 0
    let allBytes = 0
    const t0 = performance.now()
    const watch = setInterval(() => {
      const up = readdirSync(tmp).find((n) => n.startsWith('attention-lens-'))
      if (!up) return
      const n = bytesUnder(join(tmp, up))
      if (n > 0 && !firstByte) firstByte = performance.now()
      if (n >= want && !allBytes) allBytes = performance.now()
    }, 100)
    const want = bytesUnder(dir) * 0.9 // the files the engine reads: nearly all of a folder
    await page.getByTestId('folder-input').setInputFiles(dir)
    const t1 = performance.now()
    await page.waitForFunction((name) => document.querySelector('[data-testid="model-name"]')?.textContent === name, basename(dir), { timeout: 1_800_000 })
    const t2 = performance.now()
    clearInterval(watch)
    const up = readdirSync(tmp).find((n) => n.startsWith('attention-lens-'))!
    const bytes = bytesUnder(join(tmp, up))
    return {
      mode,
      uploadedMB: Math.round(bytes / 1e6),
      setInputFilesS: +((t1 - t0) / 1000).toFixed(1),
      firstByteAfterSetS: +((firstByte - t1) / 1000).toFixed(1),
      uploadS: +((allBytes - Math.max(t1, firstByte || t1)) / 1000).toFixed(1),
      uploadMBps: Math.round(bytes / 1e6 / ((allBytes - Math.max(t1, firstByte || t1)) / 1000)),
      openAfterUploadS: +((t2 - allBytes) / 1000).toFixed(1),
      totalS: +((t2 - t0) / 1000).toFixed(1),
    }
  } finally {
    await close()
    await app.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const [dir, ...modes] = process.argv.slice(2)
  for (const mode of modes.length ? modes : ['local', 'remote']) console.log(JSON.stringify(await once(dir, mode)))
}

void main()
