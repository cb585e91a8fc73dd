/**
 * Issue 41, "Performance": "the view appears within 2 s of the heatmap", on the opus-mt-size
 * folder of bench/HF-RESULTS.md with a 25-word sentence. Browser mode (the built app in Debian's
 * Chromium), the folder opened with Open folder… as a user does. Two ways a user meets the view:
 *   - tab: the heatmap of a new sentence is on show, then the Contributions tab is clicked;
 *   - open: the Contributions tab is already open and a new sentence is typed; measured from the
 *     moment its translation is on show (the heatmap's data) to the view drawn for it.
 * "Drawn" is the tab's maps holding the sentence's output and the method's chart painted (two
 * animation frames after). A different Multi30K test2016 sentence each time, so nothing is served from a
 * cache. `AL_BENCH_REPS` sentences each (4); median and range, wall and the page's main-thread CPU
 * (Chromium's TaskDuration in thread ticks), and the engine processes' CPU (/proc): the two are
 * sequential, so on an idle machine the wall time is about their sum.
 *   npx electron-vite build && npx tsx bench/contributions-view.ts [FOLDER]   (default /tmp/opus-mt-size)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { launchChromium, startBrowserMode, waitForTranslationOf } from '../test/e2e/harness'

const ROOT = join(__dirname, '..')
const FOLDER = process.argv[2] ?? '/tmp/opus-mt-size'
const REPS = Number(process.env.AL_BENCH_REPS ?? 4)
// Multi30K test2016 (../shared/datasets), held out from every bundled model's training: its nine
// sentences of 24–26 words (it has four of exactly 25).
const SENTENCES = gunzipSync(readFileSync(join(ROOT, '..', 'shared', 'datasets', 'multi30k', 'test_2016_flickr.en.gz')))
  .toString('utf8')
  .split('\n')
  .filter((l) => Math.abs(l.trim().split(/\s+/).length - 25) <= 1)

/** CPU seconds (user + system) of the browser-mode host's engine processes, from /proc. */
function engineCpu(host: number): number {
  const tick = 100 // USER_HZ on Linux
  let sum = 0
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(f[1]) !== host || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('engine')) continue
      sum += (Number(f[11]) + Number(f[12])) / tick
    } catch {
      // The process ended while being read.
    }
  }
  return sum
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const spread = (xs: number[]) => `${median(xs)} ms (${Math.min(...xs)}–${Math.max(...xs)})`

/**
 * Resolves once the tab's maps show a source other than `before` (each sentence differs; a random
 * folder's outputs may not) and their chart has painted.
 */
async function drawnAfter(page: Page, before: string | null): Promise<string> {
  await page.waitForFunction(
    (prev) => {
      const maps = document.querySelector('[data-testid="contrib-maps"]')
      const src = maps?.getAttribute('data-src')
      return !!maps && !!src && src !== '[]' && src !== prev && !!maps.querySelector('svg, canvas')
    },
    before,
    { timeout: 120_000 },
  )
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
  return (await page.getByTestId('contrib-maps').getAttribute('data-src'))!
}

async function main(): Promise<void> {
  if (!existsSync(join(FOLDER, 'config.json'))) {
    console.error(`${FOLDER} is not a model folder: make it with training/hf_test_models.py --bench-marian (bench/README.md).`)
    process.exit(1)
  }
  if (SENTENCES.length < 2 * REPS + 1) throw new Error(`the test set has ${SENTENCES.length} sentences of 24–26 words; ${2 * REPS + 1} needed`)
  const load = loadavg()[0]
  const app = await startBrowserMode({ AL_CACHE_DIR: mkdtempSync(join(tmpdir(), 'al-bench-cache-')) })
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    await page.goto(app.url)
    await page.getByTestId('model-name').first().waitFor()
    await page.getByTestId('folder-input').setInputFiles(FOLDER)
    await page.waitForFunction(() => /opus-mt-size|marian/.test(document.querySelector('[data-testid="model-name"]')?.textContent ?? ''), undefined, {
      timeout: 600_000,
    })
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' })
    const busy = async () => 1000 * (await cdp.send('Performance.getMetrics')).metrics.find((x) => x.name === 'TaskDuration')!.value
    const type = async (s: string) => {
      await page.getByTestId('source').fill(s)
      await waitForTranslationOf(page, s, 120_000)
    }
    // Warm-up: the first sentence opens the contribution sessions (once per model).
    await type(SENTENCES[0])
    await page.getByTestId('tab-contributions').click()
    let shown = await drawnAfter(page, null)

    const tab = { wall: [] as number[], cpu: [] as number[], engine: [] as number[] }
    const open = { wall: [] as number[], cpu: [] as number[], engine: [] as number[] }
    const host = app.proc.pid!
    for (let i = 0; i < REPS; i++) {
      await page.getByTestId('tab-heatmap').click()
      await type(SENTENCES[1 + 2 * i])
      await page.getByTestId('heatmap-options').waitFor()
      let [c0, t0, e0] = [await busy(), Date.now(), engineCpu(host)]
      await page.getByTestId('tab-contributions').click()
      shown = await drawnAfter(page, shown)
      tab.wall.push(Date.now() - t0)
      tab.cpu.push(Math.round((await busy()) - c0))
      tab.engine.push(Math.round(1000 * (engineCpu(host) - e0)))

      await page.getByTestId('source').fill(SENTENCES[2 + 2 * i])
      await waitForTranslationOf(page, SENTENCES[2 + 2 * i], 120_000)
      ;[c0, t0, e0] = [await busy(), Date.now(), engineCpu(host)]
      shown = await drawnAfter(page, shown)
      open.wall.push(Date.now() - t0)
      open.cpu.push(Math.round((await busy()) - c0))
      open.engine.push(Math.round(1000 * (engineCpu(host) - e0)))
    }
    console.log(
      `Contributions view after the heatmap, ${FOLDER}, 24–26-word Multi30K test2016 sentences, ${REPS} each; load ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
    )
    console.log('| case | wall | page main-thread CPU | engine CPU |\n|---|---|---|---|')
    console.log(`| heatmap on show, then the tab clicked | ${spread(tab.wall)} | ${spread(tab.cpu)} | ${spread(tab.engine)} |`)
    console.log(`| tab open, a new sentence: from its translation on show | ${spread(open.wall)} | ${spread(open.cpu)} | ${spread(open.engine)} |`)
  } finally {
    await browser.close()
    await app.stop()
  }
}

void main()
