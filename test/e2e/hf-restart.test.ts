import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS, ROOT } from '../helpers'
import { axeViolations, serious } from './axe'

// A lecturer's Hugging Face folder in browser mode (issue 40, items 9 and 10): one file of it
// dropped alone, the folder itself, its figures' captions, the banner of what it cannot do, and a
// restart of the server on a fixed port, after which the upload is gone.
const FOLDER = join(ROOT, 'test', 'fixtures', 'hf', 'marian')
const SENTENCE = 'A little girl in a pink dress is running on the beach.'

/** axe-core's critical and serious violations on the page as it is (as a11y.test.ts audits the views). */
const seriousOn = async (p: Page): Promise<string[]> => serious(await axeViolations(p, 1)).map((v) => `${v.id}: ${v.nodes[0] ?? ''}`)

/** A port free right now, for a fixed AL_PORT. */
async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))
  const port = (s.address() as { port: number }).port
  await new Promise((r) => s.close(r))
  return port
}

let app: Running
let browser: TestBrowser
let page: Page
let env: Record<string, string>

describe('a Hugging Face folder in a lecture, in browser mode', () => {
  beforeAll(async () => {
    env = {
      AL_MODELS_DIR: FIXTURE_MODELS,
      AL_PORT: String(await freePort()),
      AL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'al-cfg-')),
      XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'al-cache-')),
    }
    app = await startBrowserMode(env)
    browser = await launchChromium()
    // bypassCSP: axe-core goes in as an inline script, as in a11y.test.ts.
    page = await browser.newPage({ viewport: { width: 1280, height: 720 }, bypassCSP: true })
    await page.goto(app.url)
    await page.getByTestId('model-name').filter({ hasText: 'tiny-bahdanau' }).waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it.each([
    ['the decoder', join('onnx', 'decoder_model_merged.onnx')],
    ['the encoder', join('onnx', 'encoder_model.onnx')],
  ])('%s dropped alone is recognised as one file of a folder, and the message says to open the folder', async (_, file) => {
    const name = file.split('/').pop()!
    await page.getByTestId('file-input').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: readFileSync(join(FOLDER, file)) })
    const error = page.getByTestId('error')
    await expect.poll(() => error.textContent()).toMatch(/Hugging Face/)
    const text = (await error.textContent())!
    expect(text).toMatch(/Open folder…/)
    expect(text).toMatch(/Open Model Folder…/)
    expect(text).toMatch(/drop the whole folder/)
    expect(text).not.toMatch(/carries no Attention Lens metadata/)
    expect(await page.getByTestId('model-name').textContent()).toBe('tiny-bahdanau')
    await page.getByTestId('error-dismiss').click()
  })

  it('the folder opens; the banner says in one line what is off and why, and pushes no view down', async () => {
    const before = await page.locator('main').boundingBox()
    await page.getByTestId('folder-input').setInputFiles(FOLDER)
    await expect.poll(() => page.getByTestId('model-name').textContent(), { timeout: 60_000 }).toBe('marian')
    await page.getByTestId('source').fill(SENTENCE)
    await waitForTranslationOf(page, SENTENCE)
    const banner = page.getByTestId('model-findings')
    await banner.waitFor()
    const text = (await banner.innerText()).trim()
    // Plain words: what is off (what-if) and why (the folder's graph has no input for chosen weights), no input names.
    expect(text).toMatch(/what-if/i)
    expect(text).toMatch(/Hugging Face/)
    expect(text).not.toMatch(/attn_override|override_on|will not work or look wrong/)
    // One line, and the views start where they did without it.
    const box = (await banner.boundingBox())!
    expect(box.height).toBeLessThanOrEqual(32)
    const after = (await page.locator('main').boundingBox())!
    expect(after.y - before!.y).toBeLessThanOrEqual(0)
    await screenshot(page, 'hf-restart-banner', { fullPage: false })
    expect(await seriousOn(page)).toEqual([])
    // Opened, the findings lie over the view: the view does not move.
    await banner.locator('summary').click()
    await banner.locator('li[data-feature="what-if"]').waitFor()
    // The whole list on screen.
    const list = (await banner.locator('ul').boundingBox())!
    expect(list.x).toBeGreaterThanOrEqual(0)
    expect(list.x + list.width).toBeLessThanOrEqual(1280)
    expect((await page.locator('main').boundingBox())!.y).toBe(after.y)
    await screenshot(page, 'hf-restart-banner-open', { fullPage: false })
    expect(await seriousOn(page)).toEqual([])
    await banner.locator('summary').click()
  })

  it("a figure's caption names the folder, not its internal id", async () => {
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('export-open').first().click()
    await expect.poll(() => page.getByTestId('export-caption').inputValue()).toBe('marian')
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('export-caption').count()).toBe(0)
  })

  it('after a restart on the same port the upload is named as gone, and no other model is shown in its place', async () => {
    await app.stop()
    app = await startBrowserMode(env)
    await page.goto(app.url)
    const error = page.getByTestId('error')
    await expect.poll(() => error.textContent(), { timeout: 30_000 }).toMatch(/marian was an upload and is gone: open it again/)
    // The sentence and tab were restored, but nothing translates them with another model.
    await page.waitForTimeout(1500)
    expect(await page.getByTestId('model-name').count()).toBe(0)
    expect(await page.getByTestId('translation').count()).toBe(0)
    await screenshot(page, 'hf-restart-gone', { fullPage: false })
    expect(await seriousOn(page)).toEqual([])
    // Opening the folder again carries on.
    await page.getByTestId('folder-input').setInputFiles(FOLDER)
    await expect.poll(() => page.getByTestId('model-name').textContent(), { timeout: 60_000 }).toBe('marian')
    await waitForTranslationOf(page, SENTENCE)
    expect(await error.count()).toBe(0)
  })

  it('AL_PORT=0 reuses the last port while it is free, so the saved session survives', async () => {
    const config = mkdtempSync(join(tmpdir(), 'al-cfg-'))
    const first = await startBrowserMode({ ...env, AL_PORT: '0', AL_CONFIG_DIR: config })
    const port = new URL(first.url).port
    await first.stop()
    const second = await startBrowserMode({ ...env, AL_PORT: '0', AL_CONFIG_DIR: config })
    try {
      expect(new URL(second.url).port).toBe(port)
    } finally {
      await second.stop()
    }
  })
})
