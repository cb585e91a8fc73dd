/**
 * What the Contributions tab's end-to-end tests share (issue 41): `attribute --json` for a sentence
 * (the independent path through the CLI the tab is read against), the tab's data-* readers, and
 * the slide read back in presentation mode, for a Transformer's tab and an RNN's alike.
 */
import { execFileSync } from '../spawn-sync'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { Page } from 'playwright-core'
import { overlap } from '../../src/shared/charts/text-boxes'
import { ROOT, screenshot, waitForPreview } from './harness'
import { settled, svgTexts } from './slide-helpers'

export const MODELS = join(ROOT, 'resources/models')

export interface Attribution {
  method: string
  tgtTokens: string[]
  srcTokens: string[]
  matrix: number[][]
  sourceShare: number[]
}

/** `attention-lens attribute --json` for one sentence on a bundled model (`method` absent: the model's default). */
export function attribute(model: string, sentence: string, method?: string): Attribution {
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'bin/attention-lens.mjs'), 'attribute', '--model', join(MODELS, model), '--src', sentence, ...(method ? ['--method', method] : []), '--json'],
    { encoding: 'utf8', timeout: 120_000 },
  )
  return JSON.parse(out.trim().split('\n')[0]) as Attribution
}

/** The page's data-* attributes, raw and as JSON. */
export function readers(page: () => Page) {
  const attr = async (id: string, name: string) => (await page().getByTestId(id).getAttribute(name))!
  const json = async <T>(id: string, name: string) => JSON.parse(await attr(id, name)) as T
  return { attr, json }
}

/** Two lists of numbers equal within `tol`, each place named where it is not. */
export function close(a: number[], b: number[], tol: number): void {
  expect(a).toHaveLength(b.length)
  a.forEach((x, i) => expect(Math.abs(x - b[i]), `at ${i}: ${x} vs ${b[i]}`).toBeLessThan(tol))
}

/** The slide's text floor: 14 pt on a 7.5 in high page, 18.7 px at 720 px of window height, scaled with it. */
export const floorAt = (height: number) => (18.7 * height) / 720

/**
 * The tab's slide (presentation on) at 1280 × 720 and 1024 × 768, each chart of `shows` in turn and
 * each of its parts (→ between them): fitted, nothing scrolling, every chart text inside the window,
 * at the floor or more and over no other, every word of the part drawn (and every source word on a
 * map), the bar's own text at the floor; the parts together the sentence's words in order. A
 * screenshot of each chart's first part is kept as `${shot}-${chart}-${w}x${h}`. Returns a line per part.
 */
export async function checkSlides(page: Page, o: { shows: readonly string[]; words: string[]; src: string[]; shot: string }): Promise<string[]> {
  const report: string[] = []
  for (const [w, h] of [
    [1280, 720],
    [1024, 768],
  ] as const) {
    await page.setViewportSize({ width: w, height: h })
    const floor = floorAt(h)
    for (const shown of o.shows) {
      await page.getByTestId(`slide-contrib-show-${shown}`).click()
      const chart = page.getByTestId('slide-contrib-chart')
      await expect.poll(() => chart.getAttribute('data-shown')).toBe(shown)
      await settled(page)
      const parts = Number(await page.getByTestId('slide-contrib-part').getAttribute('data-parts'))
      const seen: string[] = []
      for (let k = 1; k <= parts; k++) {
        if (k > 1) {
          await page.keyboard.press('ArrowRight')
          await expect.poll(() => page.getByTestId('slide-contrib-part').getAttribute('data-part')).toBe(String(k))
          await settled(page)
        }
        const name = `${w}x${h} ${shown} part ${k}/${parts}`
        expect(await chart.getAttribute('data-fits'), name).toBe('true')
        const font = Number(await chart.getAttribute('data-font'))
        expect(font, name).toBeGreaterThanOrEqual(floor - 0.05)
        const tgt = JSON.parse((await chart.getAttribute('data-tgt'))!) as string[]
        seen.push(...tgt)
        // Nothing scrolls: the page is the window, the view has no overflow.
        const scroll = await page.evaluate(() => {
          const d = document.documentElement
          const v = document.querySelector('main .view') as HTMLElement
          return [d.scrollWidth, d.scrollHeight, v.scrollWidth - v.clientWidth, v.scrollHeight - v.clientHeight]
        })
        expect(scroll, name).toEqual([w, h, 0, 0])
        // Every chart text inside the window, at the floor or more, over no other; every word of the part drawn.
        const texts = (await svgTexts(page)).filter((t) => t.view === 'view-contributions')
        const problems: string[] = []
        for (const t of texts) {
          if (t.size < floor - 0.05) problems.push(`"${t.text}" ${t.size.toFixed(1)} px`)
          for (const [x, y] of t.corners) if (x < -1 || y < -1 || x > w + 1 || y > h + 1) problems.push(`"${t.text}" leaves the window`)
        }
        for (let i = 0; i < texts.length; i++)
          for (let j = i + 1; j < texts.length; j++)
            if (overlap(texts[i].corners, texts[j].corners, 1)) problems.push(`"${texts[i].text}" over "${texts[j].text}"`)
        const drawn = new Set(texts.map((t) => t.text))
        for (const word of [...tgt, ...(shown === 'share' ? [] : o.src)]) if (!drawn.has(word)) problems.push(`"${word}" not drawn`)
        // The bar's own text at the floor.
        for (const size of await page
          .locator('[data-testid="slide-contributions"] .slide-bar :is(label, button, span, select)')
          .evaluateAll((els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize))))
          if (size < floor - 0.05) problems.push(`bar text ${size} px`)
        expect(problems.slice(0, 12), name).toEqual([])
        report.push(`${name}: ${font} px, ${tgt.length} words`)
        if (k === 1) await screenshot(page, `${o.shot}-${shown}-${w}x${h}`, { fullPage: false })
      }
      // The parts together are the sentence's words, in order, each once.
      expect(seen, `${w}x${h} ${shown}`).toEqual(o.words)
      for (let k = parts; k > 1; k--) await page.keyboard.press('ArrowLeft')
    }
  }
  return report
}

/** The tab's Export button: the export dialog opens on its figure (kept as a screenshot) and closes. */
export async function exportDialog(page: Page, shot: string): Promise<void> {
  await page.getByTestId('contrib-export').click()
  await page.getByTestId('export-dialog').waitFor()
  // The preview is fitted and drawn after the dialog opens.
  await waitForPreview(page)
  await screenshot(page, shot, { fullPage: false })
  await page.getByTestId('export-close').click()
  await page.getByTestId('export-dialog').waitFor({ state: 'detached' })
}
