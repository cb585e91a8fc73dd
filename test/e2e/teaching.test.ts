import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchChromium, ROOT, screenshot, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'
import { axeViolations, serious, type Violation } from './axe'

// The bundled en→fr models: a reference and a beam mean something only with a trained model.
const MODELS = process.env.AL_E2E_MODELS ?? join(ROOT, 'resources', 'models')
const BAHDANAU = 'bundled:en-fr-bahdanau.onnx'

let app: Running
let browser: TestBrowser
let page: Page
const errors: string[] = []

const attr = (testid: string, name: string) => page.getByTestId(testid).first().getAttribute(name)
const json = async <T>(testid: string, name: string) => JSON.parse((await attr(testid, name)) ?? 'null') as T
const stripTokens = (id: string) => page.getByTestId(id).locator('button').allInnerTexts()

/** A token without its subword marks, lower-cased, as it appears in the plain text. */
const bare = (tok: string) =>
  tok
    .replace(/@@$/, '')
    .replace(/^▁|^##/, '')
    .toLowerCase()

async function pickModel(id: string) {
  await page.getByTestId('model-select').locator(`option[value="${id}"]`).waitFor({ state: 'attached', timeout: 30_000 })
  await page.getByTestId('model-select').selectOption(id)
  await page
    .getByTestId('model-name')
    .filter({ hasText: id.replace(/^bundled:/, '').replace(/\.onnx$/, '') })
    .waitFor()
}

describe('in front of a class: examples, a reference, two models side by side, the beam', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    // The app's CSP allows no inline script: axe-core goes in past it (the app's own scripts are unchanged).
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) errors.push(msg.text())
    })
    await page.goto(app.url)
    await pickModel(BAHDANAU)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('picks an example of a given length from the test set: it fills the source and the reference', async () => {
    await page.getByTestId('examples-open').click()
    await page.getByTestId('examples-search').fill('dog')
    await page.getByTestId('examples-min').fill('8')
    await page.getByTestId('examples-max').fill('10')
    const examples = page.getByTestId('example')
    await expect.poll(async () => Number(await attr('examples-count', 'data-total')), { timeout: 10_000 }).toBeGreaterThan(0)
    await expect
      .poll(async () => (await examples.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-length'))))).every((n) => n >= 8 && n <= 10))
      .toBe(true)
    const first = examples.first()
    const source = await first.locator('.src').innerText()
    const reference = await first.locator('.ref').innerText()
    expect(source.toLowerCase()).toContain('dog')
    await screenshot(page, 'examples-picker')
    await first.click()
    expect(await page.getByTestId('source').inputValue()).toBe(source)
    expect(await page.getByTestId('reference').inputValue()).toBe(reference)
    await waitForTranslationOf(page, source)
    // The picked sentence is in the history at once.
    await expect.poll(() => page.getByTestId('history-select').locator('option').allInnerTexts()).toContain(source)

    // A random sentence of exactly 6 words.
    await page.getByTestId('examples-open').click()
    await page.getByTestId('examples-search').fill('')
    await page.getByTestId('examples-min').fill('6')
    await page.getByTestId('examples-max').fill('6')
    await expect.poll(async () => (await examples.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-length'))))).every((n) => n === 6)).toBe(true)
    await page.getByTestId('examples-random').click()
    await expect.poll(() => page.getByTestId('source').inputValue()).not.toBe(source)
    const random = await page.getByTestId('source').inputValue()
    expect(random.trim().split(/\s+/)).toHaveLength(6)
    await waitForTranslationOf(page, random)
  })

  it('reference mode: the reference’s tokens, their probabilities, where the model would choose otherwise, BLEU and chrF; its heatmap has one row per reference token', async () => {
    const source = 'A black dog is running on the grass.'
    // Worded unlike the model's own output, so that it would choose otherwise somewhere.
    const reference = 'Sur la pelouse, un chien noir court.'
    await page.getByTestId('source').fill(source)
    await page.getByTestId('reference').fill(reference)
    await waitForTranslationOf(page, source)
    const panel = page.getByTestId('reference-panel')
    await panel.waitFor({ timeout: 20_000 })
    // The source is filled before the reference: the panel can show the previous reference forced through the new source first.
    await expect.poll(() => attr('reference-panel', 'data-stale'), { timeout: 20_000 }).toBe('false')
    await expect.poll(() => attr('reference-scores', 'data-bleu'), { timeout: 20_000 }).not.toBe('')
    const bleu = Number(await attr('reference-scores', 'data-bleu'))
    const chrf = Number(await attr('reference-scores', 'data-chrf'))
    for (const s of [bleu, chrf]) {
      expect(s).toBeGreaterThanOrEqual(0)
      expect(s).toBeLessThanOrEqual(100)
    }
    // Each reference token with its probability; the marked ones name the model's own choice.
    const steps = Number(await panel.getAttribute('data-steps'))
    expect(await page.getByTestId('reference-token').count()).toBe(steps)
    const marked = Number(await panel.getAttribute('data-otherwise'))
    expect(marked).toBeGreaterThan(0)
    expect(await page.getByTestId('reference-alt').count()).toBe(marked)

    const output = await stripTokens('tgt-tokens')
    await page.getByTestId('shown-reference').click()
    await expect.poll(() => attr('view-heatmap', 'data-shown')).toBe('reference')
    await expect.poll(() => json<string[]>('heatmap', 'data-row-tokens')).not.toEqual(output)
    const rows = await json<string[]>('heatmap', 'data-row-tokens')
    expect(rows).toHaveLength(steps)
    expect(Number(await attr('heatmap', 'data-rows'))).toBe(steps)
    expect(await stripTokens('tgt-tokens')).toEqual(rows)
    expect(rows.at(-1)).toBe('</s>')
    // The rows are the reference, token by token, in order.
    let rest = reference.toLowerCase().replace(/\s+/g, '')
    for (const tok of rows.slice(0, -1)) {
      const at = rest.indexOf(bare(tok))
      expect(at, `${tok} in ${rest}`).toBeGreaterThanOrEqual(0)
      rest = rest.slice(at + bare(tok).length)
    }
    await screenshot(page, 'reference-heatmap')
    await page.getByTestId('shown-model').click()
    await expect.poll(() => json<string[]>('heatmap', 'data-row-tokens')).toEqual(output)
  })

  it('the reference panel, scored and while an edited reference is forced through: axe-core finds nothing critical or serious', async () => {
    const panel = page.getByTestId('reference-panel')
    await expect.poll(() => attr('reference-scores', 'data-bleu')).not.toBe('')
    const found: Record<string, Violation[]> = {}
    const scored = serious(await axeViolations(page))
    if (scored.length) found.scored = scored
    // The edited reference's forced decoding is held: the panel shows the last one's tokens, unscored.
    let release = () => {}
    const held = new Promise<void>((r) => (release = r))
    // Each held request is let through before the route goes: unrouting first handles them itself,
    // and the handler's own continue() then fails as an unhandled rejection.
    const continued: Promise<void>[] = []
    await page.route('**/api/forced:run', (route) => {
      const next = held.then(() => route.continue())
      continued.push(next)
      return next
    })
    await page.getByTestId('reference').fill('Sur la pelouse verte, un chien noir court vite.')
    await expect.poll(() => panel.getAttribute('data-stale')).toBe('true')
    expect(await page.getByTestId('reference-scores').textContent()).toBe('scoring…')
    const stale = serious(await axeViolations(page))
    if (stale.length) found.stale = stale
    await screenshot(page, 'reference-stale', { fullPage: false })
    release()
    await Promise.all(continued)
    await page.unroute('**/api/forced:run')
    await expect.poll(() => panel.getAttribute('data-stale')).toBe('false')
    expect(found).toEqual({})
  })

  it('side by side: two models on one colour scale, and their difference', async () => {
    // Even with the heatmap tab set to scale each row to its own maximum, the two maps share one 0–1 scale.
    await page.getByTestId('opt-norm').selectOption('row')
    await expect.poll(() => attr('heatmap', 'data-range')).toBe('0,1 row max/0')
    await page.getByTestId('tab-sidebyside').click()
    const sides = page.getByTestId('sbs-side')
    await expect.poll(() => sides.locator('[data-testid="heatmap"]').count(), { timeout: 30_000 }).toBe(2)
    const maps = sides.locator('[data-testid="heatmap"]')
    const [a, b] = [maps.nth(0), maps.nth(1)]
    expect(await a.getAttribute('data-range')).toBe('0,1 1/0')
    expect(await b.getAttribute('data-range')).toBe('0,1 1/0')
    expect(await a.getAttribute('data-colors')).toBe(await b.getAttribute('data-colors'))
    // The other side is another kind of attention than the open model's.
    expect(await page.getByTestId('side-b').inputValue()).not.toBe(await page.getByTestId('side-a').inputValue())
    const diff = page.getByTestId('sbs-difference')
    await diff.waitFor()
    const rowsA = Number(await a.getAttribute('data-rows'))
    const rowsB = Number(await b.getAttribute('data-rows'))
    expect(Number(await diff.getAttribute('data-rows'))).toBe(Math.min(rowsA, rowsB))
    await screenshot(page, 'side-by-side')

    // The same model, greedy against the reference.
    const options = await page
      .getByTestId('side-b')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
    await page.getByTestId('side-b').selectOption(options.find((v) => v === `r:${BAHDANAU}`)!)
    await expect.poll(async () => JSON.parse((await maps.nth(1).getAttribute('data-row-tokens')) ?? '[]').at(-1), { timeout: 20_000 }).toBe('</s>')
    const refSteps = Number(await page.getByTestId('reference-panel').getAttribute('data-steps'))
    await expect.poll(async () => JSON.parse((await maps.nth(1).getAttribute('data-row-tokens')) ?? '[]').length).toBe(refSteps)
    expect(await maps.nth(1).getAttribute('data-range')).toBe('0,1 1/0')
    await page.getByTestId('tab-heatmap').click()
    await page.getByTestId('opt-norm').selectOption('fixed')
  })

  it('the beam as a tree: the chosen path is the output; a click shows another hypothesis’ attention', async () => {
    await page.getByTestId('reference').fill('')
    await page.getByTestId('beam-select').selectOption('3')
    await page.getByTestId('tab-heatmap').click()
    const source = await page.getByTestId('source').inputValue()
    // Wait for the beam decoding's output.
    await expect.poll(() => page.getByTestId('decode-ms').count(), { timeout: 20_000 }).toBe(1)
    await page.getByTestId('tab-beam').click()
    const tree = page.getByTestId('beam-tree')
    await tree.waitFor({ timeout: 20_000 })
    await page.getByTestId('tab-heatmap').click()
    await waitForTranslationOf(page, source)
    // The beam writes one piece a step: its path is compared with the output in pieces.
    await page.getByTestId('units-pieces').click()
    const output = await stripTokens('tgt-tokens')
    await page.getByTestId('units-words').click()
    await page.getByTestId('tab-beam').click()
    await tree.waitFor()
    expect(await json<string[]>('beam-tree', 'data-chosen')).toEqual(output)
    const chosen = page.locator('[data-testid="beam-node"][data-status="chosen"]')
    expect(await chosen.evaluateAll((els) => els.map((e) => e.getAttribute('data-token')))).toEqual(output)
    expect(await page.locator('[data-testid="beam-node"][data-status="pruned"]').count()).toBeGreaterThan(0)
    // Hovering names the score.
    expect(await chosen.first().locator('title').textContent()).toMatch(/score .*= -?\d+\.\d\d/)
    expect(await json<string[]>('beam-hypothesis', 'data-tokens')).toEqual(output)
    await screenshot(page, 'beam-tree')
    // Another hypothesis: its path and its attention, one heatmap row per token.
    const other = page.locator('[data-testid="beam-node"][data-status="kept"]').last()
    const step = Number(await other.getAttribute('data-step'))
    await other.click()
    await expect.poll(async () => (await json<string[]>('beam-hypothesis', 'data-tokens')).length).toBe(step + 1)
    expect(Number(await page.getByTestId('beam-view').getByTestId('heatmap').getAttribute('data-rows'))).toBe(step + 1)
    await page.getByTestId('beam-select').selectOption('1')
    await page.getByTestId('tab-heatmap').click()
  })

  it('errors: a failed translation clears the stale one, and the red banner can be dismissed', async () => {
    const isTranslate = (url: URL) => url.pathname === '/api/translate:run'
    await page.route(isTranslate, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ error: { name: 'Error', message: 'The engine is busy.' } }) }),
    )
    await page.getByTestId('source').fill('A man is sleeping.')
    await page.getByTestId('error').waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('error').innerText()).toContain('The engine is busy.')
    expect(await page.getByTestId('translation').count()).toBe(0)
    await page.getByTestId('error-dismiss').click()
    expect(await page.getByTestId('error').count()).toBe(0)
    await page.unroute(isTranslate)
    await page.getByTestId('source').fill('A man is sleeping on a bench.')
    await waitForTranslationOf(page, 'A man is sleeping on a bench.')
  })

  it('what-if: a refused run leaves no earlier result under its error; changes are counted by the LCS rule', async () => {
    await page.getByTestId('tab-whatif').click()
    await page.getByTestId('whatif-step').selectOption('all')
    await page.getByTestId('whatif-mode').selectOption('uniform')
    await page.getByTestId('whatif-run').click()
    const result = page.getByTestId('whatif-result')
    await result.waitFor({ timeout: 20_000 })
    // LCS: a token counts as changed only if it is outside the longest common subsequence.
    const original = await page.getByTestId('whatif-original').locator('span').allInnerTexts()
    const modified = await page.getByTestId('whatif-modified').locator('span').allInnerTexts()
    const lcs = (a: string[], b: string[]): number => {
      const L = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
      for (let i = a.length - 1; i >= 0; i--)
        for (let j = b.length - 1; j >= 0; j--) L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1])
      return L[0][0]
    }
    expect(Number(await result.getAttribute('data-changed'))).toBe(modified.length - lcs(original, modified))
    // Hand-edited weights: what the decoder will get, renormalised, is on show; all zeros are refused.
    await page.getByTestId('whatif-mode').selectOption('custom')
    const inputs = page.getByTestId('whatif-weight')
    const n = await inputs.count()
    for (let i = 0; i < n; i++) await inputs.nth(i).fill('0')
    await inputs.nth(n - 1).dispatchEvent('change')
    await expect.poll(() => attr('whatif-normalised', 'data-sum')).toBe('0.0000')
    await page.getByTestId('whatif-run').click()
    await expect.poll(() => page.locator('.whatif .error').count(), { timeout: 20_000 }).toBe(1)
    expect(await result.count()).toBe(0)
    await page.getByTestId('tab-heatmap').click()
    expect(errors).toEqual([])
  })
})
