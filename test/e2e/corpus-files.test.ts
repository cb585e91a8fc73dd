import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'
import { editedModel, FIXTURE_MODELS, setMeta, tiny } from '../helpers'
import { BATCH_TENSORS, fixAxis } from '../unit/engine/check-edits'

// A user's own en→de model: no bundled model or test set shares its pair. Its batch is fixed at 1,
// so the checks at opening report beam search off, and BLEU by length must decode one sentence at a time.
const SRC = 'a dog runs .\ntwo men are sitting on a bench .\na woman is reading a book in the park .\n'
const REF = 'ein hund rennt .\nzwei männer sitzen auf einer bank .\neine frau liest ein buch im park .\n'

let app: Running
let browser: TestBrowser
let page: Page

describe("BLEU by length for a user's model with the user's test set", () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    await page.goto(app.url)
    await page.getByTestId('model-name').filter({ hasText: 'tiny-bahdanau' }).waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('opening the model shows what the checks found', async () => {
    const model = editedModel(tiny('bahdanau'), (m) => {
      setMeta(m, 'al.tgt_lang', 'de')
      setMeta(m, 'al.name', 'my-en-de')
      fixAxis(m, BATCH_TENSORS, 0, 1)
    })
    await page.getByTestId('file-input').setInputFiles({ name: 'my-en-de.onnx', mimeType: 'application/octet-stream', buffer: readFileSync(model) })
    await expect.poll(() => page.getByTestId('model-name').textContent()).toBe('my-en-de')
    const findings = page.getByTestId('model-findings')
    await expect.poll(() => findings.getAttribute('data-count')).toBe('2')
    // One line in the header says what is off; the list opens on a click, over the view.
    expect(await findings.locator('summary .line').innerText()).toMatch(/^my-en-de: beam search is off \(\+ 1 note\) — Beam search decodes/)
    await findings.locator('summary').click()
    expect(await findings.locator('li[data-feature="beam"]').innerText()).toMatch(
      /beam search off Beam search decodes its hypotheses as one batch, but the batch size is fixed at 1/,
    )
    await page.getByTestId('source').fill('A dog runs.')
    await waitForTranslationOf(page, 'A dog runs.')
  })

  it('Run says why it is off, then scores the dropped source and reference files', async () => {
    await page.getByTestId('tab-corpus').click()
    const run = page.getByTestId('corpus-run')
    expect(await run.isDisabled()).toBe(true)
    expect(await page.getByTestId('corpus-blocker').textContent()).toBe(
      'There is no bundled test set for en→de: choose a source file and a reference file to score these models.',
    )
    await page.getByTestId('corpus-source').setInputFiles({ name: 'test.en', mimeType: 'text/plain', buffer: Buffer.from(SRC) })
    await expect.poll(() => page.getByTestId('corpus-blocker').textContent()).toBe('Choose both a source file and a reference file.')
    // Both dropped at once, the reference first: told apart by the language code the names end in.
    const dataTransfer = await page.evaluateHandle(
      ([src, ref]) => {
        const dt = new DataTransfer()
        dt.items.add(new File([ref], 'test.de', { type: 'text/plain' }))
        dt.items.add(new File([src], 'test.en', { type: 'text/plain' }))
        return dt
      },
      [SRC, REF],
    )
    await page.getByTestId('corpus-files').dispatchEvent('drop', { dataTransfer })
    await expect.poll(() => page.getByTestId('corpus-reference-name').textContent()).toBe('test.de · 3 lines')
    expect(await page.getByTestId('corpus-source-name').textContent()).toBe('test.en · 3 lines')
    // The drop stayed in the view: the window did not try to open a text file as a model.
    expect(await page.getByTestId('model-name').textContent()).toBe('my-en-de')
    await expect.poll(() => run.isEnabled()).toBe(true)
    await run.click()
    const rows = page.getByTestId('corpus-table').locator('tbody tr')
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(1)
    expect(await rows.first().innerText()).toMatch(/^my-en-de\tbahdanau\t\d+\.\d\d/)
    expect(await page.getByTestId('corpus-error').count()).toBe(0)
    await screenshot(page, 'corpus-own-test-set')
  })
})
