import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, screenshot, smallText, startBrowserMode, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS } from '../helpers'

// A Transformer's cross-attention, head by head: the heatmap's layer × head grid, one head opened
// large, the ranking against an RNN's alignment, the step-through's per-head weights and what-if
// on one head. The tiny Transformer fixture is a real (barely trained) model with 2 × 2 heads;
// AL_E2E_MODELS=resources/models runs the same on the bundled en→fr Transformer (3 × 4 heads).
const BUNDLED = !!process.env.AL_E2E_MODELS
const MODELS = process.env.AL_E2E_MODELS ?? FIXTURE_MODELS
const MODEL = BUNDLED ? 'bundled:en-fr-transformer.onnx' : 'bundled:tiny-transformer.onnx'
const RNN = BUNDLED ? 'en-fr-bahdanau' : 'tiny-bahdanau'
const SENTENCE = 'A little girl in a pink dress is running on the beach.'

let app: Running
let browser: TestBrowser
let page: Page

const attr = async (id: string, name: string) => page.getByTestId(id).getAttribute(name)
const num = async (id: string, name: string) => Number(await attr(id, name))

describe('a Transformer: the heads of its cross-attention', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
    await openAndType(page, MODEL, SENTENCE)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('the heatmap shows the average of the heads, and under it a grid of L × H maps, one per head', async () => {
    await page.getByTestId('heads-grid').waitFor()
    const layers = await num('heads-grid', 'data-layers')
    const heads = await num('heads-grid', 'data-heads')
    expect(layers).toBeGreaterThan(0)
    expect(heads).toBeGreaterThan(1)
    await expect.poll(() => num('heads-grid', 'data-maps')).toBe(layers * heads)
    // Every map has a cell per output and source token, as the averaged heatmap does.
    const cells = await num('heatmap', 'data-cells')
    expect(cells).toBe((await num('heatmap', 'data-rows')) * (await num('heatmap', 'data-cols')))
    expect(await num('heads-grid', 'data-cells')).toBe(layers * heads * cells)
    expect(await attr('heads-shown', 'data-head')).toBe('')
    const boxes = JSON.parse((await attr('heads-grid', 'data-boxes'))!) as number[][]
    expect(boxes).toHaveLength(layers * heads)
    // Maps apart from each other: rows of layers, columns of heads.
    for (let i = 1; i < heads; i++) expect(boxes[i][0]).toBeGreaterThan(boxes[i - 1][0] + boxes[i - 1][2])
    for (let l = 1; l < layers; l++) expect(boxes[l * heads][1]).toBeGreaterThan(boxes[(l - 1) * heads][1] + boxes[(l - 1) * heads][3])
    await screenshot(page, 'heads-grid')
  })

  it('clicking a map opens that head in the heatmap, with its entropy and diagonality; "back" returns to the average', async () => {
    const heads = await num('heads-grid', 'data-heads')
    const boxes = JSON.parse((await attr('heads-grid', 'data-boxes'))!) as number[][]
    // The last head of the first layer.
    const [x, y, w, h] = boxes[heads - 1]
    await page.getByTestId('heads-grid').click({ position: { x: x + w / 2, y: y + h / 2 } })
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe(`0,${heads - 1}`)
    expect(await attr('heads-grid', 'data-selected')).toBe(`0,${heads - 1}`)
    expect(await page.getByTestId('head-stats').innerText()).toMatch(/entropy \d\.\d\d bits · \d+ % of the weight within ±1 of the diagonal/)
    expect(await page.getByTestId('heads-select').inputValue()).toBe(`0,${heads - 1}`)
    await screenshot(page, 'heads-one-head')
    await page.getByTestId('heads-back').click()
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe('')
  })

  it('ranks the heads by agreement with an RNN of the same pair, best first, word by word where the two split words differently', async () => {
    const layers = await num('heads-grid', 'data-layers')
    const heads = await num('heads-grid', 'data-heads')
    // In pieces: in words (the default) both models show the same words, and only pieces differ.
    await page.getByTestId('units-pieces').click()
    const ref = page.getByTestId('heads-reference')
    expect(await ref.locator('option').allInnerTexts()).toContain(RNN)
    await ref.selectOption({ label: RNN })
    await page.getByTestId('heads-rank').click()
    const table = page.getByTestId('heads-ranking')
    await table.waitFor({ timeout: 20_000 })
    const rows = table.locator('tbody tr')
    expect(await rows.count()).toBe(layers * heads)
    const agreements = (await rows.locator('td:nth-child(3)').allInnerTexts()).map((s) => Number(s.trim()))
    for (const a of agreements) expect(a).toBeGreaterThanOrEqual(0)
    for (let i = 1; i < agreements.length; i++) expect(agreements[i]).toBeLessThanOrEqual(agreements[i - 1])
    // The fixtures split words differently (the RNN has whole words, the Transformer subword
    // pieces): compared word by word. The bundled models share one BPE: compared piece by piece.
    expect(await page.getByTestId('heads-by-words').count()).toBe(BUNDLED ? 0 : 1)
    const best = page.getByTestId('heads-best')
    expect(await best.innerText()).toMatch(/^Best: layer \d, head \d, agreement (\.\d\d|1\.00)\./)
    // The grid names the reference and writes each head's agreement on its map: its key says so.
    await screenshot(page, 'heads-ranking')
    // A row of the ranking opens its head.
    const first = rows.first()
    const [l, h] = [await first.getAttribute('data-layer'), await first.getAttribute('data-head')]
    await first.locator('button').click()
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe(`${l},${h}`)
    await page.getByTestId('heads-back').click()
    await page.getByTestId('units-words').click()
  })

  it('exports the grid: the dialog previews the figure, every head named and titled with its entropy', async () => {
    const layers = await num('heads-grid', 'data-layers')
    const heads = await num('heads-grid', 'data-heads')
    await page.getByTestId('export-open-heads').click()
    await page.getByTestId('export-dialog').waitFor()
    // A grid that cannot fit a slide at 14 pt is refused before anything is saved, saying what would fit; a paper column's page grows to hold it.
    const refused = page.getByTestId('export-refused')
    const svg = page.getByTestId('export-preview').locator('svg')
    await Promise.race([svg.waitFor({ timeout: 20_000 }), refused.waitFor({ timeout: 20_000 })])
    if (await refused.count()) {
      expect(await refused.innerText()).toMatch(/cannot fit .*; try: /)
      await page.getByTestId('export-size').selectOption('paper-double')
    }
    await svg.waitFor({ timeout: 20_000 })
    const texts = await page.getByTestId('export-preview').locator('svg text').allTextContents()
    for (let l = 1; l <= layers; l++) expect(texts).toContain(`layer ${l}`)
    for (let h = 1; h <= heads; h++) expect(texts).toContain(`head ${h}`)
    // One title per map, each with its entropy in bits.
    expect(texts.filter((t) => /\d\.\d\d b\b/.test(t))).toHaveLength(layers * heads)
    await screenshot(page, 'heads-export', { fullPage: false })
    await page.keyboard.press('Escape')
    await page.getByTestId('export-dialog').waitFor({ state: 'detached' })
  })

  it("step-through: every head's weights at the step, and their mean, instead of raw scores", async () => {
    const layers = await num('heads-grid', 'data-layers')
    const heads = await num('heads-grid', 'data-heads')
    await page.getByTestId('tab-step').click()
    await page.getByTestId('step-view').waitFor()
    expect(await attr('step-view', 'data-kind')).toBe('transformer')
    await expect.poll(() => num('step-heads', 'data-rows')).toBe(layers * heads + 1)
    const S = Number(await num('step-weights', 'data-bars'))
    expect(S).toBeGreaterThan(3)
    expect(await num('step-heads', 'data-cells')).toBe((layers * heads + 1) * S)
    expect(await num('step-weights', 'data-sum')).toBeCloseTo(1, 3)
    expect(await page.getByTestId('stage-scores').count()).toBe(0)
    await page.getByTestId('step-next').click()
    await expect.poll(() => num('step-view', 'data-step')).toBe(1)
    await screenshot(page, 'heads-step')
  })

  it('what-if: silences one head and decodes again', async () => {
    await page.getByTestId('tab-whatif').click()
    await page.getByTestId('whatif-step').selectOption('all')
    const modes = await page
      .getByTestId('whatif-mode')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
    expect(modes).toContain('silence')
    await page.getByTestId('whatif-mode').selectOption('silence')
    // Silencing needs a head.
    await page.getByTestId('whatif-head').selectOption('')
    expect(await page.getByTestId('whatif-run').isDisabled()).toBe(true)
    await page.getByTestId('whatif-head').selectOption('0,0')
    await page.getByTestId('whatif-run').click()
    const result = page.getByTestId('whatif-result')
    await result.waitFor({ timeout: 20_000 })
    expect(await page.getByTestId('whatif-modified').locator('span').count()).toBeGreaterThan(0)
    await screenshot(page, 'heads-whatif')
  })

  it("alignment lines, side by side and beam draw the Transformer (its attention: the heads' average)", async () => {
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.getByTestId('tab-lines').click()
    await expect.poll(() => num('alignment', 'data-lines')).toBeGreaterThan(0)
    await screenshot(page, 'heads-lines')
    await page.getByTestId('tab-sidebyside').click()
    const sides = page.getByTestId('sbs-side')
    await expect.poll(() => sides.locator('[data-testid="heatmap"]').count(), { timeout: 30_000 }).toBe(2)
    expect(await page.getByTestId('side-a').inputValue()).toContain('transformer')
    // In words (the default) both sides have the same cells, so their difference is drawn.
    await page.getByTestId('sbs-difference').waitFor()
    await screenshot(page, 'heads-sidebyside')
    // In pieces the other side, an RNN fixture, splits the source into whole words, the Transformer
    // into pieces: no cell-by-cell difference, and the view says why. The bundled RNNs share its pieces.
    await page.getByTestId('units-pieces').click()
    await page.getByTestId(BUNDLED ? 'sbs-difference' : 'sbs-no-difference').waitFor()
    await page.getByTestId('units-words').click()
    await page.getByTestId('tab-beam').click()
    await page.getByTestId('beam-width-3').click()
    await page.getByTestId('beam-tree').waitFor({ timeout: 20_000 })
    expect(await num('beam-tree', 'data-nodes')).toBeGreaterThan(3)
    await screenshot(page, 'heads-beam')
    await page.getByTestId('beam-select').selectOption('1')
    expect(errors).toEqual([])
  })

  it('presentation mode (P) at 1280 × 720: the grid of every head is a slide of its own, a click opens one head', async () => {
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('heads-grid').waitFor()
    await page.locator('header h1').click()
    await page.keyboard.press('p')
    await expect.poll(() => page.getByTestId('app').getAttribute('data-presenting')).toBe('true')
    // The heatmap's slide shows the average; the bar above it picks the grid (or one head).
    await page.getByTestId('slide-heatmap').waitFor()
    await page.getByTestId('heads-select').selectOption('grid')
    await page.getByTestId('heads-grid').waitFor()
    const layers = await num('heads-grid', 'data-layers')
    const heads = await num('heads-grid', 'data-heads')
    await expect.poll(() => num('heads-grid', 'data-maps')).toBe(layers * heads)
    // The slide's text is set at the largest size that fits the window (presentation-slide.test.ts reads it back), here 18 px or more.
    expect(await smallText(page, 18)).toEqual([])
    expect(await num('heads-grid', 'data-font')).toBeGreaterThanOrEqual(18)
    const boxes = JSON.parse((await attr('heads-grid', 'data-boxes'))!) as number[][]
    for (let i = 1; i < heads; i++) expect(boxes[i][0]).toBeGreaterThan(boxes[i - 1][0] + boxes[i - 1][2])
    for (let l = 1; l < layers; l++) expect(boxes[l * heads][1]).toBeGreaterThan(boxes[(l - 1) * heads][1] + boxes[(l - 1) * heads][3])
    // Whole in the window: nothing to scroll.
    expect(await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight])).toEqual([1280, 720])
    await screenshot(page, 'present-heads-grid', { fullPage: false })
    // One head opened large, in presentation mode too.
    const [x, y, w, h] = boxes[0]
    await page.getByTestId('heads-grid').click({ position: { x: x + w / 2, y: y + h / 2 } })
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe('0,0')
    await page.getByTestId('slide-heatmap').waitFor()
    expect(await smallText(page, 18)).toEqual([])
    await screenshot(page, 'present-heads-one', { fullPage: false })
    await page.getByTestId('heads-back').click()
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe('')
    await page.locator('main').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('p')
    await expect.poll(() => page.getByTestId('app').getAttribute('data-presenting')).toBe('false')
  })
})
