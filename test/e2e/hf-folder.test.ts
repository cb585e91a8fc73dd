import { spawnSync } from '../spawn-sync'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { ARTIFACTS, launchChromium, screenshot, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS, ROOT } from '../helpers'

// A Hugging Face Marian folder in transformers.js's layout (test/fixtures/hf/marian, trained
// briefly on Multi30K), opened in browser mode with Open folder… as a user would: its heads in
// the heatmap's grid, scored head by head in the Alignment score tab, and a figure exported.
const FOLDER = join(ROOT, 'test', 'fixtures', 'hf', 'marian')
const GOLD = join(ROOT, 'test', 'fixtures', 'align')
const file = (name: string) => ({ name, mimeType: 'text/plain', buffer: readFileSync(join(GOLD, name)) })
const SENTENCE = 'A little girl in a pink dress is running on the beach.'

let app: Running
let browser: TestBrowser
let page: Page

describe('a Hugging Face folder in browser mode', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true })
    await page.goto(app.url)
    await page.getByTestId('model-name').filter({ hasText: 'tiny-bahdanau' }).waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('opens with Open folder… (the folder goes up file by file) and translates', async () => {
    await page.getByTestId('folder-input').setInputFiles(FOLDER)
    await expect.poll(() => page.getByTestId('model-name').textContent(), { timeout: 60_000 }).toBe('marian')
    expect(await page.getByTestId('error').count()).toBe(0)
    await page.getByTestId('source').fill(SENTENCE)
    await waitForTranslationOf(page, SENTENCE)
    expect((await page.getByTestId('translation').textContent())!.trim().length).toBeGreaterThan(10)
  })

  it("shows the decoder's 3 × 4 cross-attention heads in the heatmap's grid", async () => {
    const grid = page.getByTestId('heads-grid')
    await grid.waitFor()
    expect(await grid.getAttribute('data-layers')).toBe('3')
    expect(await grid.getAttribute('data-heads')).toBe('4')
    await expect.poll(() => grid.getAttribute('data-maps')).toBe('12')
    await screenshot(page, 'hf-marian-heads')
  })

  it('draws the step-through, the alignment lines, the beam tree and BLEU by length on 50 Multi30K test pairs', async () => {
    await page.getByTestId('tab-step').click()
    await page.getByTestId('step-view').waitFor()
    expect(Number(await page.getByTestId('step-view').getAttribute('data-steps'))).toBeGreaterThan(5)
    await screenshot(page, 'hf-marian-step')
    await page.getByTestId('tab-lines').click()
    await page.getByTestId('alignment').waitFor()
    await screenshot(page, 'hf-marian-lines')
    await page.getByTestId('beam-select').selectOption('3')
    await waitForTranslationOf(page, SENTENCE)
    await page.getByTestId('tab-beam').click()
    await page.getByTestId('beam-view').waitFor()
    await screenshot(page, 'hf-marian-beam')
    await page.getByTestId('beam-select').selectOption('1')
    await page.getByTestId('tab-corpus').click()
    // The first 50 pairs of Multi30K test2016 (test/fixtures), as a user's own test set: every open en→fr model is scored.
    for (const [id, ext] of [
      ['corpus-source', 'en'],
      ['corpus-reference', 'fr'],
    ])
      await page
        .getByTestId(id)
        .setInputFiles({ name: `test.${ext}`, mimeType: 'text/plain', buffer: readFileSync(join(ROOT, 'test', 'fixtures', `multi30k-test-50.${ext}`)) })
    const run = page.getByTestId('corpus-run')
    await expect.poll(() => run.isEnabled()).toBe(true)
    await run.click()
    const rows = page.getByTestId('corpus-table').locator('tbody tr', { hasText: 'marian' })
    await expect.poll(() => rows.count(), { timeout: 120_000 }).toBe(1)
    expect(await rows.first().innerText()).toMatch(/^marian\ttransformer\t\d+\.\d\d/)
    expect(await page.getByTestId('error').count()).toBe(0)
    await screenshot(page, 'hf-marian-bleu')
  }, 300_000)

  it('scores it head by head in the Alignment score tab', async () => {
    await page.getByTestId('tab-goldlinks').click()
    await page.getByTestId('gold-pairs').setInputFiles(file('tiny.src-tgt'))
    await page.getByTestId('gold-links').setInputFiles(file('tiny.gold'))
    await page.getByTestId('gold-run').click()
    // the model's own row: its contribution methods' rows (data-method) are named after it too
    const row = page.locator('[data-testid="gold-board"] tbody tr:not([data-method])', { hasText: 'marian' })
    await expect.poll(() => row.count(), { timeout: 120_000 }).toBe(1)
    expect(await row.innerText()).toMatch(/best head \d:\d: AER \d+\.\d\d/)
    await screenshot(page, 'hf-marian-alignment-score')
    // Every open Transformer of the pair gets its grids (the fixture tiny-transformer's 2 layers too): Marian's are the ones with a layer 3.
    const grids = page.getByTestId('gold-heads').filter({ hasText: 'layer 3' }).locator('table')
    await expect.poll(() => grids.count()).toBe(3)
    expect(await grids.first().locator('tbody tr').count()).toBe(3)
  })

  it('lists a row per contribution method beside its heads, each with the AER that `align --method` gives on the same gold', async () => {
    for (const method of ['norm', 'alti', 'alti+', 'rollout']) {
      const row = page.locator(`[data-testid="gold-board"] tbody tr[data-method="${method}"]`, { hasText: 'marian' })
      expect(await row.count()).toBe(1)
      const tabAer = (await row.locator('td').nth(2).textContent())!.trim()
      // the CLI's score, in its own process: `AER 12.34 P … R …` on stderr
      const cli = spawnSync(
        process.execPath,
        [
          join(ROOT, 'bin/attention-lens.mjs'),
          'align',
          '--model',
          FOLDER,
          '--input',
          join(GOLD, 'tiny.src-tgt'),
          '--gold',
          join(GOLD, 'tiny.gold'),
          '--method',
          method,
        ],
        { encoding: 'utf8', timeout: 120_000 },
      )
      expect(cli.status, cli.stderr).toBe(0)
      expect(tabAer).toBe(/AER (\d+\.\d\d)/.exec(cli.stderr)?.[1])
    }
  }, 300_000)

  it('exports the heatmap as a PNG', async () => {
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('export-open').first().click()
    await page.getByTestId('export-format').selectOption('png')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-save').click()])
    const path = join(ARTIFACTS, 'hf-marian-heatmap.png')
    await download.saveAs(path)
    const img = PNG.sync.read(readFileSync(path))
    expect(img.width).toBeGreaterThan(500)
    expect(img.height).toBeGreaterThan(300)
  })
})
