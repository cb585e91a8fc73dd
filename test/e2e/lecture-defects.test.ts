import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, screenshot, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'
import { BUNDLED_MODELS, FIXTURE_MODELS } from '../helpers'

// Defects found in front of a class (issue 33), on the fixture models: the unknown-word count, a
// long input the model translates only in part, and What-if under a beam.
let app: Running
let browser: TestBrowser
let page: Page

const MODEL = 'bundled:tiny-transformer.onnx'
const WORDS = 'the man in a blue shirt is standing on a ladder and the woman with a red hat is sitting near the water while two children play'.split(' ')
const LONG = Array.from({ length: 150 }, (_, i) => WORDS[i % WORDS.length]).join(' ') + '.'

describe('issue 33: the listed defects', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
    await openAndType(page, MODEL, 'A man in a blue shirt is standing on a ladder.')
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('counts the unknown words it underlines: an emoji sentence', async () => {
    const sentence = 'I love 😀😀😀 pizza 🍕🍕 and 🎉🎉 parties with 🐶 dogs 👍'
    await page.getByTestId('source').fill(sentence)
    await waitForTranslationOf(page, sentence)
    const note = page.getByText(/not in the vocabulary/)
    await note.waitFor()
    const said = Number((await note.innerText()).match(/(\d+) (word|piece)s? not in the vocabulary/)![1])
    const underlined = await page.getByTestId('src-tokens').locator('[data-marked="1"]').count()
    expect(underlined).toBeGreaterThan(0)
    expect(said).toBe(underlined)
    await screenshot(page, 'defect-oov-count', { fullPage: false })
  })

  it('warns when a long input is translated only in part', async () => {
    await page.getByTestId('source').fill(LONG)
    await waitForTranslationOf(page, LONG)
    const warning = page.getByText(/Only part of the input is translated/)
    await warning.waitFor({ timeout: 5_000 })
    expect(await warning.isVisible()).toBe(true)
    await screenshot(page, 'defect-partial-warning', { fullPage: false })
  })

  it('an exported figure starts with its context as the caption: the model, and for one step the step and its word', async () => {
    const sentence = 'A man in a blue shirt is standing on a ladder.'
    await page.getByTestId('source').fill(sentence)
    await waitForTranslationOf(page, sentence)
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('export-open').first().click()
    await page.getByTestId('export-dialog').waitFor()
    expect(await page.locator('#ex-caption').inputValue()).toBe('tiny-transformer')
    await page.getByTestId('export-close').click()
    await page.getByTestId('tab-step').click()
    await page.getByTestId('step-view').waitFor()
    await page.getByTestId('step-next').click()
    await page.getByTestId('step-next').click()
    const word = (await page.getByTestId('step-label').innerText()).match(/« (.+) »|\((.+)\)|: (.+)$/)
    await page.getByTestId('export-open').first().click()
    await page.getByTestId('export-dialog').waitFor()
    const caption = await page.locator('#ex-caption').inputValue()
    expect(caption).toMatch(/^tiny-transformer · step 3: « .+ »$/)
    expect(word).not.toBeNull()
    // Editable: the user's caption replaces it.
    await page.locator('#ex-caption').fill('my caption')
    expect(await page.locator('#ex-caption').inputValue()).toBe('my caption')
    await screenshot(page, 'defect-caption-step')
    await page.getByTestId('export-close').click()
    await page.getByTestId('tab-heatmap').click()
  })

  it('What-if under beam 3: "Original" is the translation on show, not the greedy one', async () => {
    // On this sentence the tiny Transformer's greedy output ("… en train de un baet …") and its
    // beam-3 output ("… avec un t-shirt …") part.
    const sentence = 'A man in a blue shirt is standing on a ladder.'
    await page.getByTestId('source').fill(sentence)
    await waitForTranslationOf(page, sentence)
    await page.getByTestId('beam-select').selectOption('3')
    await expect.poll(() => page.getByTestId('translation').innerText(), { timeout: 20_000 }).toMatch(/avec/)
    const shown = await page.getByTestId('translation').innerText()
    await page.getByTestId('tab-whatif').click()
    await page.getByTestId('whatif-step').selectOption('0')
    await page.getByTestId('whatif-mode').selectOption('uniform')
    await page.getByTestId('whatif-run').click()
    await page.getByTestId('whatif-result').waitFor({ timeout: 20_000 })
    const original = (await page.getByTestId('whatif-original').locator('span').allInnerTexts()).filter((x) => x !== '</s>')
    expect(original.join(' ')).toMatch(/avec/)
    expect(original.join(' ')).not.toMatch(/baet/)
    for (const w of original) expect(shown).toContain(w.replace(/@@$/, ''))
    await screenshot(page, 'defect-whatif-beam')
    await page.getByTestId('beam-select').selectOption('1')
  })
})

const LONG_SENTENCE = 'A young woman in a red coat is standing at the bus stop in the rain while she is talking to her friend on the phone'

describe('issue 33: the alignment lines and the beam tree keep every word inside the panel', () => {
  beforeAll(async () => {
    // The bundled en→fr Bahdanau model: the tiny fixture's beam ends after a word or two.
    app = await startBrowserMode({ AL_MODELS_DIR: BUNDLED_MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
    await openAndType(page, 'bundled:en-fr-bahdanau.onnx', LONG_SENTENCE)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('a 27-word sentence: no token past the right edge of the panel, nothing to scroll', async () => {
    await page.getByTestId('tab-lines').click()
    await page.getByTestId('alignment').waitFor()
    const r = await page.getByTestId('alignment').evaluate((svg) => {
      const panel = svg.parentElement!.getBoundingClientRect()
      const out = Array.from(svg.querySelectorAll('text.tok, rect.box'))
        .map((e) => ({ text: e.textContent, box: e.getBoundingClientRect() }))
        .filter((e) => e.box.right > panel.right + 0.5 || e.box.left < panel.left - 0.5)
        .map((e) => e.text)
      return { out, scroll: svg.parentElement!.scrollWidth - svg.parentElement!.clientWidth }
    })
    expect(r.out).toEqual([])
    expect(r.scroll).toBeLessThanOrEqual(0)
    await screenshot(page, 'defect-lines-long')
  })

  it('the beam tree of the same sentence fits its panel: nothing to scroll, no curve below it, and a key for the rows it wraps into', async () => {
    await page.getByTestId('beam-select').selectOption('3')
    await page.getByTestId('tab-beam').click()
    const tree = page.getByTestId('beam-tree')
    await tree.waitFor({ timeout: 30_000 })
    await waitForTranslationOf(page, LONG_SENTENCE)
    const r = await tree.evaluate((svg) => {
      const panel = svg.parentElement!
      const box = panel.getBoundingClientRect()
      const out = Array.from(svg.querySelectorAll('path, g[data-testid="beam-node"]'))
        .map((e) => e.getBoundingClientRect())
        .filter((b) => b.right > box.right + 1 || b.bottom > box.bottom + 1 || b.left < box.left - 1)
      return {
        out: out.length,
        dx: panel.scrollWidth - panel.clientWidth,
        dy: panel.scrollHeight - panel.clientHeight,
        bands: Number(svg.getAttribute('data-bands')),
      }
    })
    expect(r.out).toBe(0)
    expect(r.dx).toBeLessThanOrEqual(0)
    expect(r.dy).toBeLessThanOrEqual(0)
    expect(r.bands).toBeGreaterThan(1)
    expect(await page.getByTestId('beam-key-continued').count()).toBe(1)
    await screenshot(page, 'defect-beam-tree')
    await page.getByTestId('beam-select').selectOption('1')
  })
})
