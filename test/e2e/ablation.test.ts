import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, launchChromium, openAndType, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS, ROOT } from '../helpers'

const FIX = join(ROOT, 'test', 'fixtures', 'align')
const file = (name: string) => ({ name, mimeType: 'text/plain', buffer: readFileSync(join(FIX, name)) })

let app: Running
let browser: TestBrowser
let page: Page

const MODELS = ['bundled:tiny-bahdanau.onnx', 'bundled:tiny-local-m.onnx', 'bundled:tiny-local-p.onnx', 'bundled:tiny-transformer.onnx']

describe('the Alignment score panel: corpus ablation and progress', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: { width: 1400, height: 1100 }, acceptDownloads: true })).newPage()
    await page.goto(app.url)
    await openAndType(page, 'bundled:tiny-transformer.onnx', 'a man is sitting on a bench .')
    await page.getByTestId('tab-goldlinks').click()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it("scores the pair's models with their own, uniform and permuted attention on the first N sentences of the bundled set", async () => {
    const limit = page.getByTestId('ablation-limit')
    expect(await limit.inputValue()).toBe('100')
    await limit.fill('20')
    expect(await page.getByTestId('ablation').innerText()).toContain('decodes the first 20 sentences')
    await page.getByTestId('ablation-run').click()
    const rows = page.getByTestId('ablation-table').locator('tbody tr')
    await expect.poll(() => rows.count(), { timeout: 120_000 }).toBe(4)
    expect((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-model')))).sort()).toEqual(MODELS)
    expect(await page.getByTestId('ablation-table').locator('caption').textContent()).toBe('Multi30K test_2016_flickr: first 20 of 1000 sentences')
    for (const id of MODELS) {
      const cells = await page.locator(`[data-model="${id}"] td`).allTextContents()
      // Three BLEU values (0–100, two decimals) and three mean log-probabilities (negative, three decimals).
      cells.slice(1, 4).forEach((c) => expect(c).toMatch(/^\d{1,3}\.\d\d$/))
      cells.slice(4, 7).forEach((c) => expect(c).toMatch(/^-\d+\.\d{3}$/))
      // Breaking the attention lowers the reference's likelihood: own > permuted.
      expect(Number(cells[4])).toBeGreaterThan(Number(cells[6]))
      // Occlusion's mean τ (−1 to 1) and top-1 agreement (a percentage).
      expect(Math.abs(Number(cells[7]))).toBeLessThanOrEqual(1)
      expect(cells[7]).toMatch(/^-?\d\.\d\d$/)
      expect(cells[8]).toMatch(/^\d{1,3}$/)
    }
    expect(await page.getByTestId('ablation-occlusion-note').textContent()).toMatch(/^Occlusion on the first 20 of them/)
    await screenshot(page, 'ablation-table')
  })

  it('shows progress while it runs and stops on cancel', async () => {
    await page.getByTestId('ablation-limit').fill('1000')
    await page.getByTestId('ablation-run').click()
    const progress = page.getByTestId('ablation-progress')
    await expect.poll(() => progress.textContent(), { timeout: 60_000 }).toMatch(/tiny-\S+: \d+ \/ 3050 sentence runs \(model \d of 4\)/)
    await screenshot(page, 'ablation-progress')
    await page.getByTestId('ablation-cancel').click()
    await expect.poll(() => page.getByTestId('ablation-error').textContent(), { timeout: 30_000 }).toMatch(/cancelled/)
    expect(await progress.count()).toBe(0)
  })

  it("shows the scoreboard's progress (models, then EM iterations) while it is computed", async () => {
    await page.getByTestId('gold-pairs').setInputFiles(file('tiny.src-tgt'))
    await page.getByTestId('gold-links').setInputFiles(file('tiny.gold'))
    await page.getByTestId('gold-run').click()
    const running = page.getByTestId('gold-running')
    await expect.poll(() => running.textContent(), { timeout: 60_000, interval: 50 }).toMatch(/\d of 4 models aligned, \d+ of 10 EM iterations/)
    await screenshot(page, 'goldlinks-progress')
    // 4 models and the statistical aligner, and the Transformer's four contribution methods (issue 41).
    await expect.poll(() => page.getByTestId('gold-board').locator('tbody tr').count(), { timeout: 120_000 }).toBe(9)
  })

  it('exports the occlusion figure (both maps, τ and top-1 in the caption) from the panel', async () => {
    await page.getByTestId('occlusion-run').click()
    await expect.poll(() => page.getByTestId('occlusion-summary').count(), { timeout: 60_000 }).toBe(1)
    const summary = (await page.getByTestId('occlusion-summary').textContent())!
    expect(summary).toMatch(/^mean Kendall τ -?\d\.\d\d · top-1 agreement \d+ %$/)
    await page.getByTestId('occlusion-export').click()
    const preview = page.getByTestId('export-preview')
    await expect
      .poll(() => preview.locator('svg text').allTextContents(), { timeout: 30_000 })
      .toEqual(expect.arrayContaining(['attention', 'bench', `tiny-transformer · ${summary}`]))
    await screenshot(page, 'occlusion-export-dialog')
    await page.getByTestId('export-format').selectOption('svg')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-save').click()])
    const path = join(ARTIFACTS, 'occlusion-export.svg')
    await download.saveAs(path)
    const svg = readFileSync(path, 'utf8')
    expect(svg.match(/>bench<\/text>/g)).toHaveLength(2)
  })
})
