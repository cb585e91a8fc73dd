import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, openAndType, ROOT, screenshot, startBrowserMode, type Running } from './harness'
import { presenting, settled, svgTexts } from './slide-helpers'
import { overlap } from '../../src/shared/charts/text-boxes'

// The Contributions tab (issue 41) on the bundled en→fr Transformer, a 25-word sentence of the
// bundled test set: the numbers it draws (read from the options it handed ECharts) against
// `attention-lens attribute --json` for the same sentence, an independent path through the CLI.
const MODELS = join(ROOT, 'resources/models')
const MODEL = 'bundled:en-fr-transformer.onnx'
const SENTENCE = readFileSync(join(ROOT, 'resources/testsets/en-fr.en'), 'utf8')
  .split('\n')
  .find((l) => l.split(' ').length === 25)!
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Attribution {
  tgtTokens: string[]
  srcTokens: string[]
  matrix: number[][]
  sourceShare: number[]
}
function attribute(method: string): Attribution {
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'bin/attention-lens.mjs'), 'attribute', '--model', join(MODELS, 'en-fr-transformer.onnx'), '--src', SENTENCE, '--method', method, '--json'],
    { encoding: 'utf8', timeout: 120_000 },
  )
  return JSON.parse(out.trim().split('\n')[0]) as Attribution
}

let app: Running
let browser: Browser
let page: Page
const attr = async (id: string, name: string) => (await page.getByTestId(id).getAttribute(name))!
const json = async <T>(id: string, name: string) => JSON.parse(await attr(id, name)) as T
const close = (a: number[], b: number[], tol: number) => {
  expect(a).toHaveLength(b.length)
  a.forEach((x, i) => expect(Math.abs(x - b[i]), `at ${i}: ${x} vs ${b[i]}`).toBeLessThan(tol))
}

describe('the Contributions tab', () => {
  beforeAll(async () => {
    app = await startBrowserMode({ AL_MODELS_DIR: MODELS })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, bypassCSP: true })
    await page.goto(app.url)
    await openAndType(page, MODEL, SENTENCE)
    await page.getByTestId('units-pieces').click()
    await page.getByTestId('tab-contributions').click()
    await page.getByTestId('contrib-maps').waitFor({ timeout: 60_000 })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('ALTI+ (the default) and value-weighted norms draw what `attribute --json` writes for the sentence', async () => {
    for (const method of ['alti+', 'norm', 'alti', 'rollout']) {
      await page.getByTestId('contrib-method').selectOption(method)
      await expect.poll(() => attr('contrib-maps', 'data-method')).toBe(method)
      const cli = attribute(method)
      expect(await json<string[]>('contrib-maps', 'data-tgt')).toEqual(cli.tgtTokens)
      expect(cli.tgtTokens.length).toBeGreaterThan(20)
      close(await json<number[]>('contrib-share', 'data-bars'), cli.sourceShare, 2e-5)
      const matrix = await json<number[][]>('contrib-maps', 'data-matrix')
      expect(matrix).toHaveLength(cli.matrix.length)
      matrix.forEach((row, t) => close(row, cli.matrix[t], 2e-5))
    }
  }, 300_000)

  it('the shifted step reads output piece t at row t + 1; the threshold marks the words under it', async () => {
    await page.getByTestId('contrib-method').selectOption('alti+')
    const cli = attribute('alti+')
    await page.getByTestId('contrib-step').selectOption('shifted')
    await expect.poll(() => attr('contrib-maps', 'data-step')).toBe('shifted')
    expect(await json<string[]>('contrib-maps', 'data-tgt')).toEqual(cli.tgtTokens.slice(0, -1))
    close(await json<number[]>('contrib-share', 'data-bars'), cli.sourceShare.slice(1), 2e-5)
    await page.getByTestId('contrib-step').selectOption('usual')
    await page.getByTestId('contrib-threshold').fill('0.55')
    await expect.poll(() => attr('contrib-share', 'data-threshold')).toBe('0.55')
    const low = await json<boolean[]>('contrib-share', 'data-low')
    expect(low).toEqual(cli.sourceShare.map((s) => s < 0.55))
    expect(await page.getByTestId('contrib-prefix-words').locator('mark').count()).toBe(low.filter(Boolean).length)
    await screenshot(page, 'contributions-pieces', { fullPage: true })
  }, 300_000)

  it('in words: one bar per output word, and the layers chart shows the residual share', async () => {
    await page.getByTestId('units-words').click()
    await expect.poll(() => attr('contrib-maps', 'data-units')).toBe('words')
    const words = await json<string[]>('contrib-maps', 'data-tgt')
    expect(words.length).toBeLessThanOrEqual((await json<number[]>('contrib-share', 'data-bars')).length)
    expect(await json<number[]>('contrib-share', 'data-bars')).toHaveLength(words.length)
    const residual = await json<number[]>('contrib-layers', 'data-residual')
    expect(residual).toHaveLength(3)
    residual.forEach((r) => expect(r).toBeGreaterThan(0.5))
    await screenshot(page, 'contributions-words', { fullPage: true })
  }, 120_000)

  it('the Export button opens the export dialog on the figure of the map', async () => {
    await page.getByTestId('contrib-export').click()
    await page.getByTestId('export-dialog').waitFor()
    await page.waitForTimeout(1500)
    await screenshot(page, 'contributions-export-dialog', { fullPage: false })
    await page.getByTestId('export-close').click()
    await page.getByTestId('export-dialog').waitFor({ state: 'detached' })
  }, 120_000)

  it('axe-core: nothing critical or serious on the tab', async () => {
    await page.addScriptTag({ content: AXE })
    const v = await page.evaluate(async () => {
      type Axe = { run: (c?: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> }
      const r = await (window as unknown as { axe: Axe }).axe.run()
      return r.violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.slice(0, 3).map((n) => n.target.join(' ')) }))
    })
    expect(v.filter((x) => x.impact === 'critical' || x.impact === 'serious')).toEqual([])
  }, 120_000)

  it('presentation mode at 1280×720 and 1024×768: a fitted slide, a long sentence in parts at 18 px or more, nothing over another, nothing scrolling', async () => {
    // The page again (signed in), its charts drawn as SVG so their texts can be read back.
    const svg = page
    await svg.setViewportSize({ width: 1280, height: 720 })
    await svg.goto(`${app.origin}/?renderer=svg`)
    await openAndType(svg, MODEL, SENTENCE)
    await svg.getByTestId('units-words').click()
    await svg.getByTestId('tab-contributions').click()
    await svg.getByTestId('contrib-maps').waitFor({ timeout: 60_000 })
    const words = JSON.parse((await svg.getByTestId('contrib-maps').getAttribute('data-tgt'))!) as string[]
    const src = JSON.parse((await svg.getByTestId('contrib-maps').getAttribute('data-src'))!) as string[]
    await presenting(svg, true)
    const report: string[] = []
    for (const [w, h] of [
      [1280, 720],
      [1024, 768],
    ] as const) {
      await svg.setViewportSize({ width: w, height: h })
      // The raw weights are the method map's layout with other numbers: their slide is checked for being fitted at 18 px or more only.
      for (const shown of ['method', 'share']) {
        await svg.getByTestId(`slide-contrib-show-${shown}`).click()
        const chart = svg.getByTestId('slide-contrib-chart')
        await expect.poll(() => chart.getAttribute('data-shown')).toBe(shown)
        await settled(svg)
        const parts = Number(await svg.getByTestId('slide-contrib-part').getAttribute('data-parts'))
        const seen: string[] = []
        for (let k = 1; k <= parts; k++) {
          if (k > 1) {
            await svg.keyboard.press('ArrowRight')
            await expect.poll(() => svg.getByTestId('slide-contrib-part').getAttribute('data-part')).toBe(String(k))
            await settled(svg)
          }
          const name = `${w}x${h} ${shown} part ${k}/${parts}`
          expect(await chart.getAttribute('data-fits'), name).toBe('true')
          const font = Number(await chart.getAttribute('data-font'))
          expect(font, name).toBeGreaterThanOrEqual(18)
          const tgt = JSON.parse((await chart.getAttribute('data-tgt'))!) as string[]
          seen.push(...tgt)
          // Nothing scrolls: the page is the window, the view has no overflow.
          const scroll = await svg.evaluate(() => {
            const d = document.documentElement
            const v = document.querySelector('main .view') as HTMLElement
            return [d.scrollWidth, d.scrollHeight, v.scrollWidth - v.clientWidth, v.scrollHeight - v.clientHeight]
          })
          expect(scroll, name).toEqual([w, h, 0, 0])
          // Every chart text inside the window, at 18 px or more, over no other; every word of the part drawn.
          const texts = (await svgTexts(svg)).filter((t) => t.view === 'view-contributions')
          const problems: string[] = []
          for (const t of texts) {
            if (t.size < 18 - 0.01) problems.push(`"${t.text}" ${t.size.toFixed(1)} px`)
            for (const [x, y] of t.corners) if (x < -1 || y < -1 || x > w + 1 || y > h + 1) problems.push(`"${t.text}" leaves the window`)
          }
          for (let i = 0; i < texts.length; i++)
            for (let j = i + 1; j < texts.length; j++)
              if (overlap(texts[i].corners, texts[j].corners, 1)) problems.push(`"${texts[i].text}" over "${texts[j].text}"`)
          const drawn = new Set(texts.map((t) => t.text))
          for (const word of [...tgt, ...(shown === 'share' ? [] : src)]) if (!drawn.has(word)) problems.push(`"${word}" not drawn`)
          // The bar's own text at the page's 18 px floor.
          for (const size of await svg
            .locator('[data-testid="slide-contributions"] .slide-bar :is(label, button, span, select)')
            .evaluateAll((els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize))))
            if (size < 18) problems.push(`bar text ${size} px`)
          expect(problems.slice(0, 12), name).toEqual([])
          report.push(`${name}: ${font} px, ${tgt.length} words`)
          if (shown === 'method' && k === 1) await screenshot(svg, `contributions-slide-${w}x${h}`, { fullPage: false })
          if (shown === 'share' && k === 1 && w === 1280) await screenshot(svg, `contributions-slide-share-${w}x${h}`, { fullPage: false })
        }
        // The parts together are the sentence's words, in order, each once.
        expect(seen, `${w}x${h} ${shown}`).toEqual(words)
        for (let k = parts; k > 1; k--) await svg.keyboard.press('ArrowLeft')
      }
    }
    await svg.getByTestId('slide-contrib-show-raw').click()
    await expect.poll(() => svg.getByTestId('slide-contrib-chart').getAttribute('data-shown')).toBe('raw')
    expect(await svg.getByTestId('slide-contrib-chart').getAttribute('data-fits')).toBe('true')
    expect(Number(await svg.getByTestId('slide-contrib-chart').getAttribute('data-font'))).toBeGreaterThanOrEqual(18)
    console.log(`${words.length} output words, ${src.length} source words\n${report.join('\n')}`)
    await presenting(svg, false)
    await svg.setViewportSize({ width: 1400, height: 1000 })
  }, 120_000)
})
