import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, launchChromium, screenshot, startBrowserMode, type Running, openAndType, waitForTranslationOf, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'

const MODELS = process.env.AL_E2E_MODELS ?? FIXTURE_MODELS
const MODEL = process.env.AL_E2E_MODELS ? 'bundled:en-fr-local-p.onnx' : 'bundled:tiny-local-p.onnx'
const SENTENCE = 'A little girl in a pink dress is running on the beach.'

let app: Running
let browser: TestBrowser
let page: Page

async function saveDownload(click: () => Promise<void>, name: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()])
  const path = join(ARTIFACTS, name)
  await download.saveAs(path)
  return path
}

describe('the Export dialog', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url })
    page = await context.newPage()
    await page.goto(app.url)
    await openAndType(page, MODEL, SENTENCE)
    await page.getByTestId('tab-heatmap').click()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it("saves a PNG of the heatmap at the size and resolution chosen, with a preview at the page's aspect ratio", async () => {
    await page.evaluate(() => localStorage.removeItem('attention-lens:export'))
    await page.getByTestId('export-open').click()
    await page.getByTestId('export-size').selectOption('slide-4x3')
    await page.getByTestId('export-resolution').selectOption('192')
    await page.getByTestId('export-title').fill('local-p: where each word looks')
    // 10 × 7.5 in at 192 dpi.
    await expect.poll(() => page.getByTestId('export-pixels').textContent()).toBe('1920 × 1440 pixels')
    const preview = page.getByTestId('export-preview')
    await expect.poll(async () => [await preview.getAttribute('data-width'), await preview.getAttribute('data-height')]).toEqual(['720', '540'])
    // The preview draws the figure itself: its title, the tokens, the key. The title is the last
    // setting given, so its figure is the one the preview ends on.
    await expect
      .poll(() => preview.locator('svg text').allTextContents())
      .toEqual(expect.arrayContaining(['local-p: where each word looks', 'girl', 'source', 'pₜ']))
    // With its title the tiny model's map splits into two 4:3 slides at 20 pt (as `attention-lens
    // export --size slide-4x3 --title …` says), shown side by side 24 pt apart: the box is that
    // sheet's shape. (Read before the title's fit was in, it was one slide's 4:3, a race.)
    expect(await preview.getAttribute('data-slides')).toBe('2')
    await expect
      .poll(async () => {
        const box = (await preview.boundingBox())!
        return box.width / box.height
      })
      .toBeCloseTo((2 * 720 + 24) / 540, 1)
    await screenshot(page, 'export-dialog')
    const path = await saveDownload(() => page.getByTestId('export-save').click(), 'export-heatmap.png')
    const img = PNG.sync.read(readFileSync(path))
    expect([img.width, img.height]).toEqual([1920, 1440])
  })

  it('saves SVG and PDF, and the matrix as CSV and JSON', async () => {
    await page.getByTestId('export-format').selectOption('svg')
    const svg = readFileSync(await saveDownload(() => page.getByTestId('export-save').click(), 'export-heatmap.svg'), 'utf8')
    expect(svg).toMatch(/^<svg /)
    expect(svg).toContain('>girl</text>')
    await page.getByTestId('export-format').selectOption('pdf')
    const pdf = readFileSync(await saveDownload(() => page.getByTestId('export-save').click(), 'export-heatmap.pdf'))
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    // The page is the slide's physical size in points.
    expect(pdf.toString('latin1')).toMatch(/\/MediaBox \[0 0 720 540\]/)
    const csv = readFileSync(await saveDownload(() => page.getByTestId('export-csv').click(), 'export-matrix.csv'), 'utf8')
    const lines = csv.trim().split('\n')
    expect(lines[0].split(',').slice(1, 4)).toEqual(['a', 'little', 'girl'])
    const json = JSON.parse(readFileSync(await saveDownload(() => page.getByTestId('export-json').click(), 'export-matrix.json'), 'utf8'))
    expect(json.attention).toHaveLength(lines.length - 1)
    expect(json.positions).toHaveLength(json.tgtTokens.length)
  })

  it('copies the figure to the clipboard as a PNG', async () => {
    await page.getByTestId('export-copy').click()
    await expect.poll(() => page.getByTestId('export-status').textContent()).toBe('Copied to the clipboard.')
    const types = await page.evaluate(async () => (await navigator.clipboard.read()).flatMap((item) => item.types))
    expect(types).toContain('image/png')
    const size = await page.evaluate(async () => (await (await navigator.clipboard.read())[0].getType('image/png')).size)
    expect(size).toBeGreaterThan(10_000)
  })

  it('the server keeps answering while a 4× PNG renders (the figure is drawn off its event loop)', async () => {
    // From the page, as the page calls: a translation, then its heatmap as a 5120 × 2880 PNG, and
    // while that renders, models:list again and again. Rendered on the server's event loop, the
    // calls queue behind the figure and at most the first one or two get in before it is done.
    const r = await page.evaluate(
      async ({ modelId, text }) => {
        const post = (channel: string, args: unknown[]) =>
          fetch(`/api/${channel}`, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) })
        const translation = ((await (await post('translate:run', [{ modelId, text }])).json()) as { result: unknown }).result
        // 13.33 × 7.5 in at 384 dpi (4×).
        const spec = {
          format: 'png',
          width: 960,
          height: 540,
          dpi: 384,
          theme: 'light',
          fontSize: 20,
          lang: 'en',
          legend: true,
          localOverlay: true,
          colormap: 'viridis',
        }
        let exported = false
        const png = post('export:figure', [{ view: 'heatmap', translation }, spec]).then(async (res) => {
          exported = true
          const bytes = new Uint8Array(await res.arrayBuffer())
          return { status: res.status, base64: btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join('')) }
        })
        let answered = 0
        while (!exported) {
          const list = (await (await post('models:list', [])).json()) as { result?: unknown[] }
          if (!exported && list.result?.length) answered++
        }
        return { answered, ...(await png) }
      },
      { modelId: MODEL, text: 'A little girl in a pink dress is running on the beach.' },
    )
    expect(r.status).toBe(200)
    const path = join(ARTIFACTS, 'export-heatmap-4x.png')
    writeFileSync(path, Buffer.from(r.base64, 'base64'))
    const img = PNG.sync.read(readFileSync(path))
    expect([img.width, img.height]).toEqual([5120, 2880])
    expect(r.answered).toBeGreaterThanOrEqual(5)
  })

  it('a bad size is refused in the dialog, before anything is written', async () => {
    await page.getByTestId('export-unit').selectOption('in')
    await page.getByTestId('export-width').fill('0.2')
    await expect.poll(() => page.getByTestId('export-save').isDisabled()).toBe(true)
    await page.getByTestId('export-width').fill('10')
    await expect.poll(() => page.getByTestId('export-save').isDisabled()).toBe(false)
  })

  it('Escape closes the dialog, and it opens again with the last settings', async () => {
    await page.getByTestId('export-size').selectOption('paper-single')
    // A paper size brings paper text (8 pt); slide text would crowd a column out.
    expect(await page.getByTestId('export-font').inputValue()).toBe('paper')
    await page.getByTestId('export-format').selectOption('pdf')
    await page.getByTestId('export-font').selectOption('paper')
    await page.keyboard.press('Escape')
    await page.getByTestId('export-dialog').waitFor({ state: 'detached' })
    await page.getByTestId('export-open').click()
    expect(await page.getByTestId('export-size').inputValue()).toBe('paper-single')
    expect(await page.getByTestId('export-format').inputValue()).toBe('pdf')
    expect(await page.getByTestId('export-font').inputValue()).toBe('paper')
    // A paper preset names its width only: the height follows the content.
    await expect.poll(() => page.getByTestId('export-physical').textContent()).toBe('3.5 in')
    await page.reload()
    await waitForTranslationOf(page, SENTENCE)
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('export-open').click()
    expect(await page.getByTestId('export-size').inputValue()).toBe('paper-single')
    await page.getByTestId('export-close').click()
  })

  // Every view with a figure has Export: each saves a PDF of its own figure.
  it.each([
    ['local', 'export-open', 'source'],
    ['local', 'export-open-positions', 'output step'],
    ['step', 'export-open', '1  scores eₜⱼ'],
    ['lines', 'export-open', 'output'],
  ])('the %s view (%s) exports its figure', async (tab, button, text) => {
    await page.getByTestId(`tab-${tab}`).click()
    await page.getByTestId(button).click()
    await expect.poll(() => page.getByTestId('export-preview').locator('svg text').allTextContents()).toContain(text)
    await page.getByTestId('export-format').selectOption('svg')
    const svg = readFileSync(await saveDownload(() => page.getByTestId('export-save').click(), `export-${tab}-${button}.svg`), 'utf8')
    // A paper column's width; its height follows the figure (216 pt at least).
    const [, height] = /^<svg width="252pt" height="([\d.]+)pt"/.exec(svg) ?? []
    expect(Number(height)).toBeGreaterThanOrEqual(216)
    expect(svg).toContain(`>${text}</text>`)
    await page.keyboard.press('Escape')
    await page.getByTestId('export-dialog').waitFor({ state: 'detached' })
  })

  it('the what-if view exports the outputs before and after with the weights used', async () => {
    await page.getByTestId('tab-whatif').click()
    await page.getByTestId('whatif-run').click()
    await page.getByTestId('whatif-result').waitFor()
    await page.getByTestId('export-open').click()
    await expect
      .poll(() => page.getByTestId('export-preview').locator('svg text').allTextContents())
      .toEqual(expect.arrayContaining(['original', 'with the override']))
    await screenshot(page, 'export-dialog-whatif')
    await page.getByTestId('export-format').selectOption('pdf')
    const pdf = readFileSync(await saveDownload(() => page.getByTestId('export-save').click(), 'export-whatif.pdf'))
    const [, height] = /\/MediaBox \[0 0 252 ([\d.]+)\]/.exec(pdf.toString('latin1')) ?? []
    expect(Number(height)).toBeGreaterThanOrEqual(216)
    await page.getByTestId('export-close').click()
  })
})
