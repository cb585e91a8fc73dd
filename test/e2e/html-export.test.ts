/**
 * The interactive HTML export (issue 34) opened in Chromium from file:// with every request
 * blocked and counted: none is made. Hover shows the cell's value, the slider moves the step, the
 * words/pieces switch and a Transformer's head open, the page is under 2 MB, prints to one page,
 * and axe-core finds nothing critical or serious. Predict, then reveal: the row is not in the page
 * before the reveal, and the tally counts. The page is made here, and once from the app's Export
 * dialog in browser mode (that part needs the app built).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GifReader } from 'omggif'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../src/engine/service'
import { HTML_MAX_BYTES, htmlExport } from '../../src/shared/charts/html-export/page'
import type { Translation } from '../../src/shared/api'
import { inUnits } from '../../src/shared/attention/word-translation'
import { BUNDLED_MODELS, FIXTURE_MODELS, tempDir } from '../helpers'
import { launchChromium, openAndType, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { axeViolations, serious } from './axe'

const SENTENCE = 'A young man in a red jacket is standing on the corner of a busy street while his two friends wait for the bus outside .'

let browser: TestBrowser
let local: Translation
let transformer: Translation
const files: Record<string, string> = {}
const sizes: Record<string, number> = {}

beforeAll(async () => {
  const svc = new InferenceService()
  local = await svc.translate(join(BUNDLED_MODELS, 'en-fr-local-p.onnx'), SENTENCE)
  transformer = await svc.translate(join(BUNDLED_MODELS, 'en-fr-transformer.onnx'), SENTENCE)
  await svc.closeAll()
  const dir = tempDir()
  for (const [name, t] of [
    ['local', local],
    ['transformer', transformer],
  ] as const) {
    const html = htmlExport(
      { view: 'heatmap', translation: t },
      { lang: 'en', colormap: 'viridis', model: { name: `en-fr-${name}`, card: `en-fr-${name}: a card line` } },
    )
    files[name] = join(dir, `${name}.html`)
    writeFileSync(files[name], html)
    sizes[name] = Buffer.byteLength(html)
  }
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
})

/** The page opened from file:// with every other request aborted and counted. */
async function open(file: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const requests: string[] = []
  const errors: string[] = []
  const url = `file://${file}`
  await page.route('**', (route) => {
    if (route.request().url() === url) return route.continue()
    requests.push(route.request().url())
    return route.abort()
  })
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  await page.goto(url)
  return { page, requests, errors }
}

describe('interactive HTML export, offline in Chromium', () => {
  it('makes no network request, has no script error, and stays under 2 MB', async () => {
    for (const name of ['local', 'transformer']) {
      const { page, requests, errors } = await open(files[name])
      await page.waitForTimeout(200)
      expect(requests).toEqual([])
      expect(errors).toEqual([])
      expect(sizes[name]).toBeLessThan(HTML_MAX_BYTES)
      await screenshot(page, `html-export-${name}`)
      await page.close()
    }
  })

  it('shows the right value on hover for three cells, in words and in pieces', async () => {
    const { page } = await open(files.local)
    const words = inUnits(local, 'words')
    for (const [t, s] of [
      [0, 0],
      [3, 4],
      [words.tgtTokens.length - 1, words.srcTokens.length - 1],
    ]) {
      await page.hover(`#hm td[data-t="${t}"][data-s="${s}"]`)
      const read = await page.textContent('#readout')
      expect(read).toBe(`“${words.tgtTokens[t]}” ← “${words.srcTokens[s]}”: ${words.attention[t][s].toFixed(4)}`)
      expect(await page.textContent('#tip')).toBe(words.attention[t][s].toFixed(4))
    }
    await page.check('#units input[value=pieces]')
    expect(await page.locator('#hm tbody tr').count()).toBe(local.tgtTokens.length)
    await page.hover('#hm td[data-t="2"][data-s="1"]')
    expect(await page.textContent('#readout')).toBe(`“${local.tgtTokens[2]}” ← “${local.srcTokens[1]}”: ${local.attention[2][1].toFixed(4)}`)
    await page.close()
  })

  it('is a keyboard grid with a text alternative', async () => {
    const { page } = await open(files.local)
    await page.focus('#hm td[tabindex="0"]')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowDown')
    const words = inUnits(local, 'words')
    expect(await page.textContent('#readout')).toBe(`“${words.tgtTokens[1]}” ← “${words.srcTokens[1]}”: ${words.attention[1][1].toFixed(4)}`)
    expect(await page.locator('#summary li').count()).toBe(words.tgtTokens.length)
    await page.close()
  })

  it('moves the step with the slider: scores, softmax, Gaussian, weights and the context', async () => {
    const { page } = await open(files.local)
    expect(await page.textContent('#step-out')).toBe(`1 of ${local.tgtTokens.length}: « ${local.tgtTokens[0]} »`)
    await page.fill('#step', '7')
    expect(await page.textContent('#step-out')).toBe(`7 of ${local.tgtTokens.length}: « ${local.tgtTokens[6]} »`)
    const rows = await page.locator('#stages table th[scope=row]').allTextContents()
    expect(rows).toEqual(['1. scores', '2. softmax', '3. × Gaussian', '4. weights'])
    const weights = await page.locator('#stages table tr:last-child td').allTextContents()
    expect(weights).toEqual(local.attention[6].map((w) => w.toFixed(2).replace(/^0\./, '.')))
    expect(await page.locator('#stages .strip span').count()).toBe(local.encoderStates[0].length)
    // Enter on a heatmap row (pieces) opens that step.
    await page.check('#units input[value=pieces]')
    await page.focus('#hm td[tabindex="0"]')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    expect(await page.inputValue('#step')).toBe('3')
    await page.close()
  })

  it("opens a Transformer's head from the layers × heads grid", async () => {
    const { page } = await open(files.transformer)
    const L = transformer.crossAttention![0].length
    const H = transformer.crossAttention![0][0].length
    expect(await page.locator('#heads button').count()).toBe(L * H)
    await page.click('#heads button[data-head="1,2"]')
    expect(await page.textContent('#showing')).toBe('Showing layer 2, head 3')
    await page.hover('#hm td[data-t="4"][data-s="5"]')
    expect(await page.textContent('#readout')).toContain(transformer.crossAttention![4][1][2][5].toFixed(3).slice(0, 4))
    await page.click('#average')
    expect(await page.textContent('#showing')).toBe("Showing the heads' average")
    await page.close()
  })

  it('predict, then reveal: the row is not in the page before the reveal, and the tally counts', async () => {
    const { page } = await open(files.local)
    // Before: no revealed row, and the matrix is not in the page either (its JSON was removed once read).
    expect(await page.locator('#revealed').count()).toBe(0)
    expect(await page.locator('#data').count()).toBe(0)
    const html = await page.content()
    expect(html).not.toContain(JSON.stringify(local.attention[0].map((x) => Math.round(x * 1e4) / 1e4)))
    const best = (t: number) => local.attention[t].indexOf(Math.max(...local.attention[t]))
    // Step 1: the right guess; step 2: a wrong one; step 3: revealed by the R key without a guess.
    await page.click(`#predict button[data-source="${best(0)}"]`)
    await page.click('#reveal')
    expect(await page.locator('#revealed td').allTextContents()).toEqual(local.attention[0].map((w) => w.toFixed(2)))
    expect(await page.textContent('#tally')).toBe('Tally: 1 of 1 correct')
    await page.click('#next')
    expect(await page.locator('#revealed').count()).toBe(0)
    await page.click(`#predict button[data-source="${(best(1) + 1) % local.srcTokens.length}"]`)
    await page.click('#reveal')
    expect(await page.textContent('#tally')).toBe('Tally: 1 of 2 correct')
    await page.click('#next')
    await page.keyboard.press('r')
    expect(await page.textContent('#tally')).toBe('Tally: 1 of 3 correct')
    await page.close()
  })

  it('prints to one page', async () => {
    for (const name of ['local', 'transformer']) {
      const { page } = await open(files[name])
      const pdf = await page.pdf({ format: 'A4', landscape: true, printBackground: true, preferCSSPageSize: true })
      expect((pdf.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? []).length, name).toBe(1)
      await page.close()
    }
  })

  it('axe-core finds nothing critical or serious', async () => {
    for (const name of ['local', 'transformer']) {
      const { page } = await open(files[name])
      expect(serious(await axeViolations(page)), name).toEqual([])
      await page.close()
    }
  })
})

describe("the app's Export dialog saves the interactive page (browser mode)", () => {
  let app: Running
  let context: BrowserContext
  let page: Page

  // One window for both downloads: the sentence opened and translated once (a page load, a model
  // opened and a translation each cost as much as the export they lead to).
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    page = await context.newPage()
    await page.goto(app.url)
    await openAndType(page, 'bundled:tiny-local-p.onnx', 'A little girl in a pink dress is running on the beach.')
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('export-open').click()
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    await app?.stop()
  })

  it('downloads one HTML file that opens offline', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()])
    expect(download.suggestedFilename()).toBe('attention-lens-heatmap.html')
    const file = join(tempDir(), 'from-app.html')
    await download.saveAs(file)
    expect(readFileSync(file, 'utf8')).toMatch(/^<!doctype html>/)
    const opened = await open(file)
    expect(await opened.page.locator('#hm tbody tr').count()).toBeGreaterThan(0)
    expect(opened.requests).toEqual([])
    expect(opened.errors).toEqual([])
    await opened.page.close()
  }, 120_000)

  it('downloads an animated GIF drawn on the host: 1280×720, one frame per decoder step, the last held', async () => {
    // The dialog the HTML was saved from, open again if saving closed it.
    if ((await page.getByTestId('export-dialog').count()) === 0) await page.getByTestId('export-open').click()
    await page.getByTestId('export-font').selectOption('screen')
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 110_000 }), page.getByTestId('export-gif').click()])
    expect(download.suggestedFilename()).toBe('attention-lens-heatmap-animated.gif')
    const file = join(tempDir(), 'from-app.gif')
    await download.saveAs(file)
    const gif = new GifReader(new Uint8Array(readFileSync(file)))
    expect([gif.width, gif.height]).toEqual([1280, 720])
    expect(gif.numFrames()).toBeGreaterThan(1)
    expect(gif.frameInfo(gif.numFrames() - 1).delay).toBe(300)
    await expect.poll(() => page.getByTestId('export-status').textContent()).toContain('attention-lens-heatmap-animated.gif')
  }, 180_000)
})
