/**
 * One HTML page whichever dialog writes it (issue 40 #4). The heatmap's dialog holds the sentence
 * in words and hands the page its decoder steps (pieces) and the model; the step-through's dialog
 * holds the pieces. Both pages, opened in Chromium from file://, must show the same thing: the
 * units switch working (enabled, its checked radio the units on show), the step slider counting
 * decoder steps, the context strip, the model card, and a local-p model's window and p_t on the
 * heatmap's rows. Made here by the calls the two dialogs make (ExportDialog's html()).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../src/engine/service'
import { htmlExport, modelCard, type HtmlOptions } from '../../src/shared/charts/html-export/page'
import type { Translation } from '../../src/shared/api'
import { inWords } from '../../src/shared/attention/word-translation'
import { BUNDLED_MODELS, tempDir } from '../helpers'
import { launchChromium, type TestBrowser } from './harness'

const SENTENCE = 'A firefighter sprays water on a burning building .'

let browser: TestBrowser
let pieces: Translation
let words: Translation
let info: Parameters<typeof modelCard>[0] & { name: string }
const files: Record<'heatmap' | 'step', string> = { heatmap: '', step: '' }

beforeAll(async () => {
  const svc = new InferenceService()
  const model = join(BUNDLED_MODELS, 'en-fr-local-p.onnx')
  info = await svc.open(model)
  pieces = await svc.translate(model, SENTENCE)
  await svc.closeAll()
  words = inWords(pieces)
  const dir = tempDir()
  const base: HtmlOptions = { lang: 'en', colormap: 'viridis', model: { name: info.name, card: modelCard(info) } }
  // The heatmap's dialog (HeatmapView → ExportDialog): words, with the pieces and the units on show.
  files.heatmap = join(dir, 'heatmap.html')
  writeFileSync(files.heatmap, htmlExport({ view: 'heatmap', translation: words }, { ...base, pieces, units: 'words' }))
  // The step-through's dialog (StepView → ExportDialog): pieces.
  files.step = join(dir, 'step.html')
  writeFileSync(files.step, htmlExport({ view: 'step', translation: pieces, step: 0, attention: 'local-p' }, base))
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
})

async function open(file: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`file://${file}`)
  return { page, errors }
}

describe('one HTML page, whichever dialog wrote it', () => {
  it('shows the same page from the heatmap dialog and the step dialog', async () => {
    const seen: Record<string, unknown> = {}
    for (const name of ['heatmap', 'step'] as const) {
      const { page, errors } = await open(files[name])
      const got = await page.evaluate(() => {
        const radios = Array.from(document.querySelectorAll<HTMLInputElement>('#units input'))
        return {
          radios: radios.map((r) => ({ value: r.value, checked: r.checked, disabled: r.disabled })),
          rows: document.querySelectorAll('#hm tbody tr').length,
          sliderMax: (document.getElementById('step') as HTMLInputElement).max,
          stepOut: document.getElementById('step-out')!.textContent,
          strip: document.querySelectorAll('#stages .strip span').length,
          card: document.querySelector('pre.card')?.textContent ?? null,
          windowRows: new Set(Array.from(document.querySelectorAll('#hm td.win'), (td) => (td as HTMLElement).dataset.t)).size,
          ptCells: document.querySelectorAll('#hm td.pt').length,
          note: document.getElementById('note')!.textContent,
          body: document.querySelector('main')!.textContent,
        }
      })
      expect(errors, name).toEqual([])
      // The switch works: both radios enabled, "words" checked, the rows are words.
      expect(got.radios, name).toEqual([
        { value: 'words', checked: true, disabled: false },
        { value: 'pieces', checked: false, disabled: false },
      ])
      expect(got.rows, name).toBe(words.tgtTokens.length)
      // Decoder steps: one a piece.
      expect(got.sliderMax, name).toBe(String(pieces.tgtTokens.length))
      expect(got.stepOut, name).toContain(`of ${pieces.tgtTokens.length}`)
      expect(got.strip, name).toBeGreaterThan(0)
      expect(got.card, name).toContain(`${info.name}: local-p attention`)
      // local-p's window on every row that has a source cell inside it, p_t marked once a row.
      const S = words.srcTokens.length
      const inside = words.windows!.filter(([lo, hi]) => Math.min(S - 1, Math.floor(hi + 1e-6)) >= Math.max(0, Math.ceil(lo - 1e-6))).length
      expect(inside).toBeGreaterThan(words.tgtTokens.length / 2)
      expect(got.windowRows, name).toBe(inside)
      expect(got.ptCells, name).toBe(words.positions!.filter((x) => Math.round(x) >= 0 && Math.round(x) < S).length)
      expect(got.note, name).toMatch(/local window/)
      // Pieces: the rows become the decoder steps.
      await page.check('#units input[value=pieces]')
      expect(await page.locator('#hm tbody tr').count(), name).toBe(pieces.tgtTokens.length)
      expect(await page.isChecked('#units input[value=pieces]'), name).toBe(true)
      seen[name] = got.body
      await page.close()
    }
    expect(seen.heatmap).toBe(seen.step)
  }, 120_000)
})
