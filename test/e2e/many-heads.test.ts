import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, launchChromium, screenshot, smallText, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'
import { ROOT } from '../helpers'

// A model with the head count of BART-large, M2M100-418M and NLLB-600M: 12 layers × 16 heads = 192
// (test/fixtures/hf/many-heads, a small random Marian made by training/hf_many_heads.py). The heads
// view shows one number per head in a layer × head overview instead of 192 maps; a click on a cell
// opens the head. Its numbers are checked against entropy and diagonality computed here from the raw
// attention the engine returns. The Alignment score over 192 heads on the 200 Hansards pairs shows
// its progress, can be cancelled, and finishes (its time is written to test/artifacts).
const FOLDER = join(ROOT, 'test', 'fixtures', 'hf', 'many-heads')
const GOLD = join(ROOT, '..', 'shared', 'datasets', 'alignment-gold')
const HAS_GOLD = existsSync(join(GOLD, 'enfr.gold'))
const PAIRS = 40
const SENTENCE = 'A little girl in a pink dress is running on the beach.'

let app: Running
let browser: TestBrowser
let page: Page

const attr = async (id: string, name: string) => page.getByTestId(id).getAttribute(name)

/** Entropy in bits of a row scaled to sum to 1 (README: b). */
function entropy(row: number[]): number {
  const z = row.reduce((a, b) => a + Math.max(0, b), 0)
  let h = 0
  for (const w of row) if (w > 0) h -= (w / z) * Math.log2(w / z)
  return h
}
/** The share of a row's weight within ±1 of t·(S−1)/(T−1) (README: d). */
function nearDiagonal(row: number[], t: number, T: number): number {
  const S = row.length
  const d = T > 1 ? (t * (S - 1)) / (T - 1) : 0
  let z = 0
  let near = 0
  row.forEach((w, s) => {
    if (w > 0) {
      z += w
      if (Math.abs(s - d) <= 1 + 1e-9) near += w
    }
  })
  return z > 0 ? near / z : 0
}

/** Clicks the overview's cell of head h in layer l, from where its first and last cells' centres are drawn. */
async function clickCell(l: number, h: number): Promise<void> {
  await expect.poll(() => attr('heads-overview', 'data-corners')).not.toBe('')
  const [x0, y0, x1, y1] = JSON.parse((await attr('heads-overview', 'data-corners'))!) as number[]
  const el = await page.getByTestId('heads-overview').boundingBox()
  const chart = await page.getByTestId('heads-overview').locator('canvas, svg').first().boundingBox()
  const dx = chart!.x - el!.x
  const dy = chart!.y - el!.y
  await page.getByTestId('heads-overview').click({ position: { x: dx + x0 + ((x1 - x0) * h) / 15, y: dy + y0 + ((y1 - y0) * l) / 11 } })
}

describe('a model with 12 × 16 = 192 heads', () => {
  beforeAll(async () => {
    // No bundled models: the folder is the only model, so the Alignment score tab scores it alone.
    app = await startBrowserMode({ AL_MODELS_DIR: mkdtempSync(join(tmpdir(), 'al-no-models-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    await page.goto(app.url)
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('the heads view shows a layer × head overview of 192 cells, not 192 maps', async () => {
    await page.getByTestId('folder-input').setInputFiles(FOLDER)
    await expect.poll(() => page.getByTestId('model-name').textContent(), { timeout: 120_000 }).toBe('many-heads')
    await page.getByTestId('source').fill(SENTENCE)
    await waitForTranslationOf(page, SENTENCE, 60_000)
    const ov = page.getByTestId('heads-overview')
    await ov.waitFor({ timeout: 30_000 })
    expect(await attr('heads-overview', 'data-layers')).toBe('12')
    expect(await attr('heads-overview', 'data-heads')).toBe('16')
    await expect.poll(() => attr('heads-overview', 'data-cells')).toBe('192')
    expect(await page.getByTestId('heads-grid').count()).toBe(0)
    await ov.scrollIntoViewIfNeeded()
    await screenshot(page, 'many-heads-overview')
  }, 240_000)

  it("its numbers are each head's entropy and diagonality, as computed here from the engine's raw attention", async () => {
    // In pieces: the raw attention the engine returns, as translate:run gives it.
    await page.getByTestId('units-pieces').click()
    const raw = await page.evaluate(async (text) => {
      const post = async (channel: string, args: unknown[]) =>
        (await (
          await fetch(`/api/${channel}`, {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'content-type': 'application/json', 'x-al-client': 'many-heads-test' },
            body: JSON.stringify(args),
          })
        ).json()) as {
          result: unknown
        }
      const models = (await post('models:list', [])).result as { id: string; name: string }[]
      const id = models.find((m) => m.name === 'many-heads')!.id
      return (await post('translate:run', [{ modelId: id, text }])).result as { crossAttention: number[][][][]; tgtTokens: string[] }
    }, SENTENCE)
    const cross = raw.crossAttention
    const T = cross.length
    expect(T).toBeGreaterThan(1)
    expect(cross[0]).toHaveLength(12)
    expect(cross[0][0]).toHaveLength(16)
    const head = (l: number, h: number) => cross.map((step) => step[l][h])
    const expectedEntropy = Array.from({ length: 12 }, (_, l) => Array.from({ length: 16 }, (_, h) => head(l, h).reduce((a, r) => a + entropy(r), 0) / T))
    const expectedDiag = Array.from({ length: 12 }, (_, l) =>
      Array.from({ length: 16 }, (_, h) => head(l, h).reduce((a, r, t) => a + nearDiagonal(r, t, T), 0) / T),
    )
    await expect.poll(() => attr('heads-overview', 'data-metric')).toBe('entropy')
    const shown = JSON.parse((await attr('heads-overview', 'data-values'))!) as number[][]
    for (let l = 0; l < 12; l++) for (let h = 0; h < 16; h++) expect(shown[l][h]).toBeCloseTo(expectedEntropy[l][h], 6)
    // The heads differ (the fixture's layers are drawn sharper layer by layer): not one number 192 times.
    const flat = expectedEntropy.flat()
    expect(Math.max(...flat) - Math.min(...flat)).toBeGreaterThan(0.5)
    await page.getByTestId('heads-metric').selectOption('diagonality')
    await expect.poll(() => attr('heads-overview', 'data-metric')).toBe('diagonality')
    const diag = JSON.parse((await attr('heads-overview', 'data-values'))!) as number[][]
    for (let l = 0; l < 12; l++) for (let h = 0; h < 16; h++) expect(diag[l][h]).toBeCloseTo(expectedDiag[l][h], 6)
    await screenshot(page, 'many-heads-overview-diagonality')
    await page.getByTestId('heads-metric').selectOption('entropy')
  })

  it('a click on a cell opens that head in the heatmap, with the same entropy', async () => {
    const [l, h] = [4, 9]
    await clickCell(l, h)
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe(`${l},${h}`)
    expect(await attr('heads-overview', 'data-selected')).toBe(`${l},${h}`)
    const values = JSON.parse((await attr('heads-overview', 'data-values'))!) as number[][]
    expect(await page.getByTestId('head-stats').innerText()).toContain(`entropy ${values[l][h].toFixed(2)} bits`)
    await page.getByTestId('heads-shown').scrollIntoViewIfNeeded()
    await screenshot(page, 'many-heads-one-head')
    await page.getByTestId('heads-back').click()
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe('')
    await page.getByTestId('units-words').click()
  })

  it('presentation mode (P) at 1280 × 720: the overview is a slide of its own, fitted, and a click opens one head', async () => {
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.locator('header h1').click()
    await page.keyboard.press('p')
    await expect.poll(() => page.getByTestId('app').getAttribute('data-presenting')).toBe('true')
    await page.getByTestId('heads-select').selectOption('grid')
    await page.getByTestId('heads-overview').waitFor()
    await expect.poll(() => attr('heads-overview', 'data-cells')).toBe('192')
    expect(await smallText(page, 18)).toEqual([])
    // Whole in the window: nothing to scroll.
    expect(await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight])).toEqual([1280, 720])
    await screenshot(page, 'many-heads-present-overview', { fullPage: false })
    await clickCell(11, 15)
    await expect.poll(() => attr('heads-shown', 'data-head')).toBe('11,15')
    await screenshot(page, 'many-heads-present-one', { fullPage: false })
    await page.getByTestId('heads-back').click()
    await page.locator('main').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('p')
    await expect.poll(() => page.getByTestId('app').getAttribute('data-presenting')).toBe('false')
    await page.setViewportSize({ width: 1400, height: 1000 })
  })

  it.runIf(HAS_GOLD)(
    'the Alignment score over 192 heads: progress, cancel, then a full run whose grid the overview shows',
    async () => {
      await page.getByTestId('tab-goldlinks').click()
      // The first 40 of the 200 gold pairs (a line each in both files): the same board, in a fifth
      // of the time. How long all 200 take is measured by the bench (npm run bench:align).
      const file = (name: string) => ({
        name,
        mimeType: 'text/plain',
        buffer: Buffer.from(readFileSync(join(GOLD, name), 'utf8').split('\n').slice(0, PAIRS).join('\n') + '\n'),
      })
      await page.getByTestId('gold-pairs').setInputFiles(file('enfr.src-tgt'))
      await page.getByTestId('gold-links').setInputFiles(file('enfr.gold'))
      // Cancel: the run shows that it is running, and stops when cancelled, with no scoreboard.
      await page.getByTestId('gold-run').click()
      await page.getByTestId('gold-running').waitFor()
      expect(await page.getByTestId('gold-cancel').isVisible()).toBe(true)
      await page.waitForTimeout(1000)
      const cancelledAt = Date.now()
      await page.getByTestId('gold-cancel').click()
      await page.getByTestId('gold-running').waitFor({ state: 'detached', timeout: 120_000 })
      const cancelSeconds = (Date.now() - cancelledAt) / 1000
      expect(await page.getByTestId('gold-board').count()).toBe(0)
      // The full run: progress while it runs, then the scoreboard with a 12 × 16 AER grid.
      const started = Date.now()
      await page.getByTestId('gold-run').click()
      await page.getByTestId('gold-running').waitFor()
      let sawProgress = false
      const said = new Set<string>()
      // the model's own row, not its contribution methods' (data-method), which are named after it too
      const board = page.locator('[data-testid="gold-board"] tbody tr:not([data-method])', { hasText: 'many-heads' })
      while ((await board.count()) === 0) {
        const running = page.getByTestId('gold-running')
        if (await running.locator('progress').count()) sawProgress = true
        said.add((await running.textContent({ timeout: 100 }).catch(() => null)) ?? '')
        expect(Date.now() - started).toBeLessThan(600_000)
        await page.waitForTimeout(100)
      }
      const seconds = (Date.now() - started) / 1000
      expect(sawProgress).toBe(true)
      // The bar moves while the heads are scored, not only between models (issue 39).
      expect([...said].filter((t) => /heads \d+ of 192/.test(t)).length).toBeGreaterThan(1)
      expect(await board.innerText()).toMatch(/best head \d+:\d+: AER \d+\.\d\d/)
      await screenshot(page, 'many-heads-alignment-score')
      // The tab's own AER grid (layers × heads, then the layer average), two decimals.
      const aerTable = page.getByTestId('gold-heads').locator('table').first()
      const tabAer = await aerTable
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => Number(td.textContent)).slice(0, 16)))
      expect(tabAer).toHaveLength(12)
      writeFileSync(join(ARTIFACTS, 'many-heads-align.json'), JSON.stringify({ heads: 192, pairs: PAIRS, seconds, cancelSeconds }, null, 1))
      // The overview's AER: the board's per-head AER on the gold set.
      await page.getByTestId('tab-heatmap').click()
      await page.getByTestId('heads-metric').selectOption('aer')
      await expect.poll(() => attr('heads-overview', 'data-metric')).toBe('aer')
      const aer = JSON.parse((await attr('heads-overview', 'data-values'))!) as number[][]
      expect(aer).toHaveLength(12)
      for (let l = 0; l < 12; l++) for (let h = 0; h < 16; h++) expect(aer[l][h].toFixed(2)).toBe(tabAer[l][h].toFixed(2))
      await page.getByTestId('heads-overview').scrollIntoViewIfNeeded()
      await screenshot(page, 'many-heads-overview-aer')
    },
    900_000,
  )
})
