import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS, ROOT } from '../helpers'

// A three-pair gold set with hand-made links (test/fixtures/align), scored against the fixture models.
const FIX = join(ROOT, 'test', 'fixtures', 'align')
const file = (name: string) => ({ name, mimeType: 'text/plain', buffer: readFileSync(join(FIX, name)) })

let app: Running
let browser: TestBrowser
let page: Page

describe('the Alignment score panel', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1100 } })
    await page.goto(app.url)
    await openAndType(page, 'bundled:tiny-transformer.onnx', 'a man is sitting on a bench .')
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('scores every open model of the pair on the gold files, a Transformer head by head', async () => {
    await page.getByTestId('tab-goldlinks').click()
    expect(await page.getByTestId('gold-blocker').textContent()).toBe('Choose the pairs file and its gold file.')
    await page.getByTestId('gold-pairs').setInputFiles(file('tiny.src-tgt'))
    await page.getByTestId('gold-links').setInputFiles(file('tiny.gold'))
    await page.getByTestId('gold-awesome').setInputFiles(file('tiny.hyp'))
    await page.getByTestId('gold-run').click()
    const rows = page.getByTestId('gold-board').locator('tbody tr')
    // The fixture's en→fr models with attention (Bahdanau, local-m, local-p, Transformer), the Transformer's four
    // contribution methods (issue 41), the statistical aligner, awesome-align's file.
    await expect.poll(() => rows.count(), { timeout: 120_000 }).toBe(10)
    const keys = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))
    expect(keys.filter((k) => k?.includes('|')).sort()).toEqual(['alti', 'alti+', 'norm', 'rollout'].map((m) => `bundled:tiny-transformer.onnx|${m}`))
    expect(await page.locator('[data-key="bundled:tiny-transformer.onnx|alti+"]').innerText()).toMatch(
      /tiny-transformer · ALTI\+.*read at the shifted step: AER \d+\.\d\d/s,
    )
    expect(keys.filter((k) => k?.startsWith('bundled:') && !k.includes('|')).sort()).toEqual([
      'bundled:tiny-bahdanau.onnx',
      'bundled:tiny-local-m.onnx',
      'bundled:tiny-local-p.onnx',
      'bundled:tiny-transformer.onnx',
    ])
    expect(keys).toContain('statistical')
    expect(keys).toContain('awesome')
    // awesome-align's stand-in file scores as the hand computation in test/unit/cli/align.test.ts.
    expect(await page.locator('[data-key="awesome"] td').nth(2).textContent()).toBe((100 * (1 - 28 / 29)).toFixed(2))
    expect(await page.locator('[data-key="bundled:tiny-transformer.onnx"]').innerText()).toMatch(/best head \d:\d: AER \d+\.\d\d/)
    // The 2 × 2 heads as AER, entropy and diagonality grids.
    const grids = page.getByTestId('gold-heads').locator('table')
    expect(await grids.count()).toBe(3)
    expect(await grids.first().locator('tbody tr').count()).toBe(2)
    // Every grid names its columns: one per head, and the AER grid's last column is the layer average.
    expect(await grids.nth(0).locator('thead th').allInnerTexts()).toEqual(['head 1', 'head 2', 'layer average'])
    expect(await grids.nth(1).locator('thead th').allInnerTexts()).toEqual(['head 1', 'head 2'])
    expect(await grids.nth(2).locator('thead th').allInnerTexts()).toEqual(['head 1', 'head 2'])
    expect(await grids.nth(0).locator('tbody tr').first().locator('td').count()).toBe(3)
    await screenshot(page, 'goldlinks-board')
  })

  it('draws the model open in the app by default, not the first of the pair', async () => {
    expect(await page.getByTestId('gold-model').inputValue()).toBe('bundled:tiny-transformer.onnx')
  })

  it('draws one sentence with its gold and extracted links, and another when picked', async () => {
    const chart = page.getByTestId('gold-chart')
    // Sentence 1: 8 gold links (all sure), argmax gives one link per target word (8).
    expect(await chart.getAttribute('data-gold')).toBe('8')
    expect(await chart.getAttribute('data-extracted')).toBe('8')
    await page.getByTestId('gold-sentences').locator('button').nth(2).click()
    await expect.poll(() => chart.getAttribute('data-gold')).toBe('4')
    expect(await chart.getAttribute('data-extracted')).toBe('4')
    await page.getByTestId('gold-sentences').locator('button').nth(0).click()
    await screenshot(page, 'goldlinks-sentence')
  })

  it('puts occlusion beside attention for the sentence in the source box', async () => {
    await page.getByTestId('occlusion-run').click()
    await expect.poll(() => page.getByTestId('occlusion-summary').count(), { timeout: 60_000 }).toBe(1)
    expect(await page.getByTestId('occlusion-summary').textContent()).toMatch(/^mean Kendall τ -?\d\.\d\d · top-1 agreement \d+ %$/)
    expect(await page.getByTestId('occlusion-charts').locator('.plot').count()).toBe(2)
    await screenshot(page, 'goldlinks-occlusion')
  })

  it("ranks the Transformer's heads by AER on the loaded gold set in the heads view", async () => {
    await page.getByTestId('tab-heatmap').click()
    const gold = page.getByTestId('heads-gold')
    await gold.waitFor()
    expect(await gold.innerText()).toMatch(
      /^By AER on the gold set tiny\.gold \(3 pairs, scored in the Alignment score tab; lower is better\): layer 2, head 2 40\.0 · /,
    )
    await screenshot(page, 'goldlinks-heads-rank')
  })
})
