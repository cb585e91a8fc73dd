/**
 * Issue 40 #1: with the export dialog's defaults (a 16:9 slide, lecture-hall text), a long
 * held-out sentence exports as one figure or as consecutive slides at the preset's text size,
 * never smaller text chosen for it. Sentences of Multi30K test2016 (the bundled en→fr test set) of
 * about 14, 20 and 25 words, decoded by the bundled models; each figure written as the app and the
 * CLI write it (a PDF page per slide), read back by poppler: every page 13.33 × 7.5 in, every word
 * on its page, none over another, none under 14 pt, every token label on some page.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { figureInUnits } from '../../../src/shared/attention/word-figure'
import { DEFAULT_FIGURE, FONT_PRESETS, fontForSize, SIZE_PRESETS, type FigureData, type FigureSpec } from '../../../src/shared/figure'
import { defaultCaption } from '../../../src/shared/figure-context'
import { fitted, renderFitted, renderFittedFiles } from '../../../src/host/export/figure'
import { InferenceService } from '../../../src/engine/service'
import { BUNDLED_MODELS, ROOT } from '../../helpers'
import { labelsOf, pageProblems, parseBboxLayout, type ReadPage } from './pdf-readback'

const model = (name: string) => join(BUNDLED_MODELS, `${name}.onnx`)
const SLIDE = SIZE_PRESETS['slide-16x9']
const LECTURE = FONT_PRESETS[fontForSize('slide-16x9')]

/** The dialog's defaults: a 16:9 slide, lecture-hall text, the model's name as the caption. */
const specFor = (data: FigureData): FigureSpec => ({
  ...DEFAULT_FIGURE,
  ...SLIDE,
  fontSize: LECTURE,
  format: 'pdf',
  caption: defaultCaption(data, 'en') || undefined,
})

interface Case {
  name: string
  words: number
  data: FigureData
  spec: FigureSpec
  note: string | null
  /** Each page as read back, with the data it draws. */
  pages: { page: ReadPage; data: FigureData }[]
  refused?: string
}
const cases: Case[] = []
let dir = ''
const picked: number[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'al-defaults-'))
  const lines = readFileSync(join(ROOT, 'resources', 'testsets', 'en-fr.en'), 'utf8')
    .trim()
    .split('\n')
  const svc = new InferenceService()
  const all: { words: number; data: FigureData }[] = []
  try {
    for (const n of [14, 20, 25]) {
      const text = lines.find((l) => l.split(' ').length === n)!
      picked.push(text.split(' ').length)
      const local = await svc.translate(model('en-fr-local-p'), text)
      const general = await svc.translate(model('en-fr-luong-general'), text)
      const whatif = await svc.whatIf(model('en-fr-bahdanau'), { modelId: 'm', text, steps: [2], mode: 'uniform' })
      all.push(
        { words: n, data: { view: 'heatmap', translation: local } },
        { words: n, data: { view: 'lines', translation: general, threshold: 0.1 } },
        { words: n, data: { view: 'whatif', result: whatif, mode: 'uniform', at: 2 } },
      )
      if (n === 25) all.push({ words: n, data: { view: 'beam', translation: await svc.translate(model('en-fr-local-p'), text, { beam: 3 }) } })
    }
  } finally {
    await svc.closeAll()
  }
  for (const [i, { words, data: raw }] of all.entries()) {
    const data = figureInUnits(raw, 'words')
    const spec = specFor(data)
    const name = `${data.view} ${words} words`
    try {
      const fit = fitted(data, spec)
      const file = join(dir, `${i}.pdf`)
      writeFileSync(file, await renderFitted(data, fit))
      const pages = parseBboxLayout(execFileSync('pdftotext', ['-bbox-layout', file, '-'], { maxBuffer: 1 << 28 }).toString('utf8'))
      const parts = fit.parts?.map((p) => p.data) ?? [data]
      cases.push({ name, words, data, spec, note: fit.note, pages: pages.map((page, k) => ({ page, data: parts[k] ?? data })) })
    } catch (e) {
      if ((e as Error).name !== 'RefusedError') throw e
      cases.push({ name, words, data, spec, note: null, pages: [], refused: (e as Error).message })
    }
  }
  console.log(cases.map((c) => `${c.name}: ${c.refused ?? `${c.pages.length} page(s)${c.note ? ` (${c.note})` : ''}`}`).join('\n'))
}, 900_000)

afterAll(() => {
  if (dir && !process.env.AL_KEEP_FIGURES) rmSync(dir, { recursive: true, force: true })
})

describe('the dialog defaults (16:9, lecture hall): one figure or a split at 20 pt, read back by poppler', () => {
  it('uses sentences of 14, 20 and 25 words', () => expect(picked).toEqual([14, 20, 25]))

  it('every figure is drawn, none refused', () => {
    expect(cases.filter((c) => c.refused).map((c) => `${c.name}: ${c.refused}`)).toEqual([])
  })

  it('a PDF page per part, each a 16:9 slide, the part as many pages as the note says', () => {
    for (const c of cases.filter((x) => !x.refused)) {
      const parts = /split into (\d+) slides/.exec(c.note ?? '')
      expect(c.pages.length, c.name).toBe(parts ? Number(parts[1]) : 1)
      for (const { page } of c.pages) expect([page.width, page.height], c.name).toEqual([SLIDE.width, SLIDE.height])
    }
  })

  it('every page: no word off it, over another or under 14 pt; every token label on its page', () => {
    const problems = cases.flatMap((c) => c.pages.flatMap(({ page, data }, k) => pageProblems(`${c.name} p${k + 1}`, page, c.spec, false, labelsOf(data))))
    expect(problems.slice(0, 30), `${problems.length} problems`).toEqual([])
    // The floor on a slide is 14 pt: no smaller word anywhere (numbers in cells at ¾ of it).
    for (const c of cases) for (const { page } of c.pages) for (const w of page.words) expect(w.size, `${c.name} "${w.text}"`).toBeGreaterThan(14 * 0.75 - 0.05)
  })

  it('smaller text is never chosen for a figure that splits: the chart is at 20 pt, and a long one is in slides', () => {
    for (const c of cases.filter((x) => !x.refused && x.data.view !== 'beam')) expect(c.note ?? '', c.name).not.toMatch(/set at [\d.]+ pt/)
    expect(cases.find((c) => c.name === 'heatmap 25 words')?.note).toMatch(/^split into \d slides to fit at 20 pt: steps 1–\d+, /)
    // Every source word of the lines is on some slide.
    const lines = cases.find((c) => c.name === 'lines 25 words')!
    const have = new Set(lines.pages.flatMap(({ page }) => page.words.map((w) => w.text)))
    for (const tok of lines.data.view === 'lines' ? lines.data.translation.srcTokens : []) for (const w of tok.split(/\s+/)) expect(have.has(w), w).toBe(true)
  })

  it('as PNG, a split figure is one file per part, suffixed -1, -2, …', async () => {
    const c = cases.find((x) => x.name === 'heatmap 25 words')!
    const spec = { ...c.spec, format: 'png' as const }
    const files = await renderFittedFiles(c.data, fitted(c.data, spec))
    expect(files.length).toBeGreaterThan(1)
    expect(files.map((f) => f.suffix)).toEqual(files.map((_, i) => `-${i + 1}`))
    for (const f of files) expect(f.bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
  })
})
