/**
 * The forecaster's view in presentation mode, read back from the page as the export's test reads
 * the PDF back: its charts drawn with ECharts' SVG renderer (`?renderer=svg`), every `<text>` of the
 * main area taken at its box on screen (turned with it where it is rotated): nothing outside its
 * chart or the 1280 px page, no two texts over one another, none under the mode's 20 px. A
 * translation model's tabs are slides, read back at four window sizes by presentation-slide.test.ts
 * (this file's read-back of them, at one size and a 20 px floor, was opt-in and predated the slides).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { overlap } from '../../src/shared/charts/text-boxes'
import { ARTIFACTS, screenshot } from './harness'
import { closeSvgPage, listed, openSvgPage, presenting, settled, svgTexts, type SvgPage, type SvgText } from './slide-helpers'

const FLOOR = 20
/** Two boxes may touch by this much (the text's box holds the font's whole line height). */
const TOLERANCE = 1

type DrawnText = SvgText

/** Every text drawn in an SVG of the main area, with its size on screen and its turned box, placed by its view and chart. */
async function drawnTexts(page: Page): Promise<DrawnText[]> {
  return (await svgTexts(page)).map((t) => ({ ...t, where: `${t.view} ${t.where}` }))
}

/** What is wrong with the texts on show, in the PDF read-back's words. */
function problems(texts: DrawnText[], width: number): string[] {
  const out: string[] = []
  const say = (t: DrawnText) => `"${t.text}" (${t.size.toFixed(1)} px, ${t.where})`
  for (const t of texts) {
    if (t.size < FLOOR - 0.01) out.push(`${say(t)} is under ${FLOOR} px`)
    // A label cut short ("emplo...") is not the token's label.
    if (/\S(\.\.\.|…)$/.test(t.text)) out.push(`${say(t)} is cut short`)
    const xs = t.corners.map((p) => p[0])
    const ys = t.corners.map((p) => p[1])
    const e = TOLERANCE
    if (Math.min(...xs) < t.box.x0 - e || Math.max(...xs) > t.box.x1 + e || Math.min(...ys) < t.box.y0 - e || Math.max(...ys) > t.box.y1 + e)
      out.push(`${say(t)} leaves its chart`)
    else if (Math.min(...xs) < -e || Math.max(...xs) > width + e) out.push(`${say(t)} leaves the ${width} px page`)
  }
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++)
      if (overlap(texts[i].corners, texts[j].corners, TOLERANCE)) out.push(`${say(texts[i])} overlaps ${say(texts[j])}`)
  return out
}

let session: SvgPage
let page: Page
let errors: string[] = []

// The forecaster's one view: the series, the step heatmap over the history, the key.
describe('presentation mode at 1280 × 720, read back from the SVG on screen: the forecaster, taylor-local-p', () => {
  beforeAll(async () => {
    session = await openSvgPage()
    page = session.page
    errors = session.errors
    await page.getByTestId('model-select').selectOption('bundled:taylor-local-p.onnx')
    await page.getByTestId('model-name').filter({ hasText: 'taylor-local-p' }).waitFor()
    await page.locator('[data-testid="forecast-chart"][data-rows="48"]').waitFor({ timeout: 30_000 })
    await presenting(page, true)
  }, 120_000)
  afterAll(() => closeSvgPage(session))

  it(`forecast: every text ≥ ${FLOOR} px, inside its chart, none over another`, async () => {
    await settled(page)
    const texts = await drawnTexts(page)
    const found = problems(texts, await page.evaluate(() => window.innerWidth))
    await page.evaluate(() => window.scrollTo(0, 0))
    await screenshot(page, 'present-fit-forecast')
    writeFileSync(join(ARTIFACTS, 'present-fit-forecast.txt'), found.join('\n') + '\n')
    expect(texts.length).toBeGreaterThan(10)
    expect(listed(found)).toBe('')
    expect(errors).toEqual([])
  }, 120_000)
})
