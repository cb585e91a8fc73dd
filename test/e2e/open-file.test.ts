import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, startBrowserMode, type Running, type TestBrowser } from './harness'
import { FIXTURE_MODELS, ROOT, tiny } from '../helpers'
import { join } from 'node:path'

const unusual = (name: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'unusual', `${name}.onnx`))

let app: Running
let browser: TestBrowser
let page: Page

describe('opening model files: picker, file input (drop/Open… path), errors, recent files', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(app.url)
    await page.getByTestId('model-name').filter({ hasText: 'tiny-bahdanau' }).waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('a file that is not a model is refused in one sentence and the current model stays', async () => {
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'holiday.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from('not a model '.repeat(50)) })
    await expect.poll(() => page.getByTestId('error').textContent()).toMatch(/^The file is not an ONNX model/)
    expect(await page.getByTestId('model-name').textContent()).toBe('tiny-bahdanau')
    await screenshot(page, 'open-file-refused')
  })

  it('a model whose state grows with the source is refused at open with the cause, no onnxruntime node names', async () => {
    await page.getByTestId('file-input').setInputFiles({ name: 'coverage.onnx', mimeType: 'application/octet-stream', buffer: unusual('coverage-state') })
    await expect
      .poll(() => page.getByTestId('error').textContent())
      .toMatch(/^The model opens but cannot be used: The decoder state's width depends on the source length: 26 floats for a 10-token source, 20 for 4\./)
    expect(await page.getByTestId('error').textContent()).not.toMatch(/Name:'|node|Loop/)
    expect(await page.getByTestId('model-name').textContent()).toBe('tiny-bahdanau')
    await screenshot(page, 'open-file-coverage-refused')
  })

  it('a bidirectional encoder that reads padding opens with a note: where, why, the fix, the cost', async () => {
    await page.getByTestId('file-input').setInputFiles({ name: 'bidi.onnx', mimeType: 'application/octet-stream', buffer: unusual('bidi-padding') })
    await expect.poll(() => page.getByTestId('model-name').textContent()).toBe('bidi-padding')
    const note = page.getByTestId('model-findings').locator('li[data-feature="batch"]')
    await expect.poll(() => note.textContent()).toMatch(/backward direction reads the padding.*pack_padded_sequence.*one sentence at a time/s)
    // A note only: the list stays folded until opened.
    await page.getByTestId('model-findings').locator('summary').click()
    await screenshot(page, 'open-file-bidi-note')
  })

  it('opens a model file, translates with it and lists it under recent files', async () => {
    await page.getByTestId('file-input').setInputFiles({ name: 'my-local-p.onnx', mimeType: 'application/octet-stream', buffer: readFileSync(tiny('local-p')) })
    await expect.poll(() => page.getByTestId('model-name').textContent()).toBe('tiny-local-p')
    expect(await page.getByTestId('error').count()).toBe(0)
    const recent = page.locator('optgroup[label="Recent files"] option')
    await expect.poll(() => recent.allInnerTexts()).toEqual(['en→fr · local-p · my-local-p.onnx'])
    await page.getByTestId('source').fill('A dog runs on the grass.')
    await expect.poll(async () => Number(await page.getByTestId('heatmap').getAttribute('data-cols'))).toBe(8)
  })

  it('10,000 characters and unknown words: translated, with a visible note', async () => {
    await page.getByTestId('source').fill('A zyzzyva dog runs on the grass. '.repeat(310))
    await expect
      .poll(() => page.locator('.note').textContent(), { timeout: 30_000 })
      .toMatch(/The input was cut to the first 200 tokens: only they are translated\..*not in the vocabulary/)
    await page.getByTestId('source').fill('A dog runs on the grass.')
    await expect.poll(() => page.locator('.note').count()).toBe(0)
  })

  it('the last model and sentence survive a reload', async () => {
    await page.reload()
    await expect.poll(() => page.getByTestId('model-name').textContent()).toBe('tiny-local-p')
    expect(await page.getByTestId('source').inputValue()).toBe('A dog runs on the grass.')
  })

  it('choosing WebGPU where it has no adapter falls back to CPU, says so in one line, and is remembered', async () => {
    await page.getByTestId('provider-select').selectOption('webgpu')
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 20_000 }).toMatch(/webgpu could not start \(.+\); running on CPU\./)
    await expect.poll(() => page.getByTestId('provider-in-use').textContent()).toBe('running on cpu')
    await expect.poll(() => page.getByTestId('decode-ms').textContent()).toMatch(/^decode \d+\.\d ms$/)
    await screenshot(page, 'provider-fallback')
    await page.reload()
    await expect.poll(() => page.getByTestId('provider-select').inputValue()).toBe('webgpu')
  })
})
