/**
 * Issue 40 #1, the pₜ plot, alignment lines and occlusion of a long sentence on a 16:9 slide at lecture text (20 pt):
 * the pₜ plot laid across (source positions along the top, an output step a row) in parts of its
 * steps, each against the sentence's source axis where its words are a line apart and else the
 * positions its steps look at, every source word on some part; Bahdanau's alignment lines in a few
 * parts, each with its stretch of the source and every word its lines reach; occlusion with each step's attention
 * and importance in one row, in halves, at most MOST_PARTS slides. Multi30K test2016's sentences of
 * 25 and 31 words decoded by the bundled models; every page read back by poppler (words, sizes,
 * places) and the occlusion's cells by their pixels in pdftoppm's image of the page.
 */
import { execFileSync } from '../../spawn-sync'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Translation } from '../../../src/shared/api'
import type { OcclusionResult } from '../../../src/shared/alignment'
import { figureInUnits } from '../../../src/shared/attention/word-figure'
import { colorAt } from '../../../src/shared/charts/colormaps'
import { MOST_PARTS } from '../../../src/shared/charts/fit'
import { partExtent, positionExtent } from '../../../src/shared/charts/local'
import { buildFigureParts } from '../../../src/shared/charts/views'
import { partSource, sourceCuts, withGaps } from '../../../src/shared/charts/views/lines'
import { DEFAULT_FIGURE, FONT_PRESETS, fontForSize, SIZE_PRESETS, type FigureData, type FigureSpec } from '../../../src/shared/figure'
import { defaultCaption } from '../../../src/shared/figure-context'
import { fitted, renderFitted } from '../../../src/host/export/figure'
import { measureText } from '../../../src/host/export/fonts'
import { INKS } from '../../../src/shared/charts/frame'
import { InferenceService } from '../../../src/engine/service'
import { BUNDLED_MODELS, ROOT } from '../../helpers'
import { labelsOf, pageProblems, parseBboxLayout, type ReadPage, type ReadWord } from './pdf-readback'

const model = (name: string) => join(BUNDLED_MODELS, `${name}.onnx`)
const SLIDE = SIZE_PRESETS['slide-16x9']
const LECTURE = FONT_PRESETS[fontForSize('slide-16x9')]
const LENGTHS = [25, 30] as const

const specFor = (data: FigureData, size: keyof typeof SIZE_PRESETS = 'slide-16x9'): FigureSpec => ({
  ...DEFAULT_FIGURE,
  ...SIZE_PRESETS[size],
  fontSize: FONT_PRESETS[fontForSize(size)],
  format: 'pdf',
  caption: defaultCaption(data, 'en') || undefined,
})

let dir = ''
const sentences: { words: number; local: Translation; bahdanau: Translation; occlusion: OcclusionResult }[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'al-long-'))
  const lines = readFileSync(join(ROOT, 'resources', 'testsets', 'en-fr.en'), 'utf8')
    .trim()
    .split('\n')
  const svc = new InferenceService()
  try {
    for (const n of LENGTHS) {
      const text = lines.find((l) => l.split(' ').length === n) ?? lines.find((l) => l.split(' ').length >= n)!
      sentences.push({
        words: text.split(' ').length,
        local: await svc.translate(model('en-fr-local-p'), text),
        bahdanau: await svc.translate(model('en-fr-bahdanau'), text),
        occlusion: await svc.occlusion(model('en-fr-bahdanau'), text),
      })
    }
  } finally {
    await svc.closeAll()
  }
}, 300_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The figure fitted with these settings and written as a PDF, read back: its note, the data of each page, each page's words. */
async function drawn(data: FigureData, spec: FigureSpec, name: string) {
  const fit = fitted(data, spec, { alternatives: false })
  const file = join(dir, `${name}.pdf`)
  writeFileSync(file, await renderFitted(data, fit))
  const pages = parseBboxLayout(execFileSync('pdftotext', ['-bbox-layout', file, '-'], { maxBuffer: 1 << 28 }).toString('utf8'))
  const parts = fit.parts?.map((p) => p.data) ?? [data]
  return { fit, file, pages, parts }
}

const centre = (w: ReadWord) => [(w.x0 + w.x1) / 2, (w.y0 + w.y1) / 2] as const

/** The row labels of a page, top to bottom: the upright words left of `x` set flush right on one edge (the most of them). */
function rowLabels(p: ReadPage, x: number): ReadWord[] {
  const byEdge = new Map<number, ReadWord[]>()
  for (const w of p.words.filter((v) => !v.vertical && v.x1 < x)) byEdge.set(Math.round(w.x1), [...(byEdge.get(Math.round(w.x1)) ?? []), w])
  return [...byEdge.values()].sort((a, b) => b.length - a.length)[0].sort((a, b) => a.y0 - b.y0)
}

/** The column labels of a page, left to right: the words of `texts` under its title (`title`, the axis' name) and over the rows. */
function columnWords(p: ReadPage, title: string, rows: ReadWord[], texts: readonly string[]): ReadWord[] {
  const head = p.words.find((w) => w.text === title)!
  return p.words.filter((w) => w.y0 > head.y1 && w.y1 < rows[0].y0 && w.x0 > rows[0].x1 && texts.includes(w.text)).sort((a, b) => centre(a)[0] - centre(b)[0])
}

describe('the pₜ plot of a long sentence on a 16:9 slide', () => {
  it('25 and 31 words: laid across in parts of steps at 20 pt, every part against the whole sentence’s source axis, in order', async () => {
    for (const s of sentences) {
      const data = figureInUnits({ view: 'positions', translation: s.local }, 'words')
      const spec = specFor(data)
      const { fit, pages, parts } = await drawn(data, spec, `positions-${s.words}`)
      expect(fit.note, `${s.words} words`).toMatch(/^split into (\d) slides to fit at 20 pt: steps 1–\d+, .*; transposed$/)
      expect(pages.length).toBe(parts.length)
      expect(pages.length).toBeLessThanOrEqual(MOST_PARTS)
      const t = (data as Extract<FigureData, { view: 'positions' }>).translation
      pages.forEach((page, k) => {
        const part = parts[k] as Extract<FigureData, { view: 'positions' }>
        expect(pageProblems(`${s.words} p${k + 1}`, page, spec, false, labelsOf(part))).toEqual([])
        expect(Math.min(...page.words.map((w) => w.size)), `${s.words} p${k + 1}`).toBeGreaterThanOrEqual(LECTURE * 0.7 - 0.05)
        // Its output steps down the left, top to bottom; the sentence's source words along the top, in its order.
        const [a, b] = part.rows!
        const rows = rowLabels(page, SLIDE.width / 3).slice(-(b - a))
        expect(
          rows.map((w) => w.text),
          `${s.words} p${k + 1}`,
        ).toEqual(t.tgtTokens.slice(a, b))
        expect(
          columnWords(page, 'position', rows, t.srcTokens).map((w) => w.text),
          `${s.words} p${k + 1}`,
        ).toEqual(t.srcTokens)
      })
      // The parts are consecutive and cover every step.
      expect(parts.map((p) => (p as { rows: [number, number] }).rows)).toEqual(
        parts.map((_, i) => [(parts[i - 1] as { rows?: [number, number] })?.rows?.[1] ?? 0, (parts[i] as { rows: [number, number] }).rows[1]]),
      )
      expect((parts.at(-1) as { rows: [number, number] }).rows[1]).toBe(t.tgtTokens.length)
    }
  }, 300_000)

  it('on a 4:3 slide a 31-word sentence’s source words are not a line apart: each part takes those its steps look at, and every word is on some part', async () => {
    const s = sentences.find((x) => x.words >= 30)!
    const data = figureInUnits({ view: 'positions', translation: s.local }, 'words')
    const spec = specFor(data, 'slide-4x3')
    const { fit, pages, parts } = await drawn(data, spec, 'positions-4x3')
    expect(fit.note).toMatch(/^split into \d slides to fit at \d+ pt: .*; transposed$/)
    const t = (data as Extract<FigureData, { view: 'positions' }>).translation
    const S = t.srcTokens.length
    const have = pages.map((p) => new Set(p.words.map((w) => w.text)))
    pages.forEach((page, k) => expect(pageProblems(`4:3 p${k + 1}`, page, spec, false, labelsOf(parts[k]))).toEqual([]))
    // No page has the whole source axis, yet together they have every word.
    expect(have.filter((h) => t.srcTokens.every((w) => h.has(w)))).toEqual([])
    expect(t.srcTokens.filter((w) => !have.some((h) => h.has(w)))).toEqual([])
    expect(S).toBeGreaterThan(30)
  }, 120_000)

  it('the positions a part looks at: its windows and pₜ, and the source words whose nearest pₜ is one of its steps', () => {
    // pₜ sits at 0 and then jumps to the end: the words in between go with the nearest step (5 with the first three, 6 on with the last).
    const positions = [0, 0.2, 0.1, 9.8]
    const windows = positions.map((p) => [p - 1, p + 1] as [number, number])
    const S = 10
    const whole = positionExtent(positions, S)
    const covered = (parts: [number, number][]) =>
      new Set(
        parts.flatMap((r) =>
          Array.from({ length: S }, (_, s) => s).filter(
            (s) => s >= partExtent(positions, windows, r, S, whole)[0] && s <= partExtent(positions, windows, r, S, whole)[1],
          ),
        ),
      )
    expect(partExtent(positions, windows, [0, 3], S, whole)).toEqual([-1, 6])
    expect(partExtent(positions, windows, [3, 4], S, whole)).toEqual([5, 11])
    for (const parts of [
      [
        [0, 3],
        [3, 4],
      ],
      [
        [0, 1],
        [1, 2],
        [2, 4],
      ],
      [
        [0, 2],
        [2, 3],
        [3, 4],
      ],
    ] as [number, number][][])
      expect(covered(parts).size).toBe(S)
  })

  it('a presentation slide’s part (near) keeps the positions its steps look at the usual way round; an export’s part has the sentence’s axis', () => {
    const s = sentences.find((x) => x.words >= 30)!
    const t = s.local
    const S = t.srcTokens.length
    const page = { ...DEFAULT_FIGURE, width: 960, height: 540, fontSize: 20, title: undefined, caption: undefined }
    const axis = (d: FigureData) => {
      const f = { x: 12, y: 12, width: 936, height: 516, fontSize: 20, measure: measureText, lang: 'en' as const, ink: INKS.light, highlightRow: null }
      const y = (buildFigureParts(d, page, f) as { yAxis: { min: number; max: number } }).yAxis
      return [y.min, y.max]
    }
    expect(axis({ view: 'positions', translation: t, rows: [10, 14] })).toEqual(positionExtent(t.positions!.slice(0, t.tgtTokens.length), S))
    const [lo, hi] = axis({ view: 'positions', translation: t, rows: [10, 14], near: true })
    expect(hi - lo).toBeLessThan(S / 2)
    expect([lo, hi]).toEqual(
      partExtent(t.positions!.slice(0, t.tgtTokens.length), t.windows!, [10, 14], S, positionExtent(t.positions!.slice(0, t.tgtTokens.length), S)),
    )
  })
})

describe('alignment lines of a long sentence on a 16:9 slide', () => {
  /** The lines of `t` at the defaults, read back: split into 2–`most` slides, every source word on some part, and on each part every word its lines reach. */
  async function splitLines(t0: Translation, name: string, most: number): Promise<void> {
    const data = figureInUnits({ view: 'lines', translation: t0, threshold: 0.1 }, 'words')
    const t = (data as Extract<FigureData, { view: 'lines' }>).translation
    const spec = specFor(data)
    const { fit, pages, parts } = await drawn(data, spec, `lines-${name}`)
    expect(fit.note, name).toMatch(new RegExp(`^split into [2-${most}] slides to fit at 20 pt: steps 1–\\d+, `))
    expect(pages.length).toBe(parts.length)
    const onSome = new Set<string>()
    pages.forEach((page, k) => {
      const part = parts[k] as Extract<FigureData, { view: 'lines' }>
      expect(pageProblems(`${name} p${k + 1}`, page, spec, false, labelsOf(part))).toEqual([])
      const words = new Set(page.words.map((w) => w.text))
      for (const w of words) onSome.add(w)
      const [a, b] = part.rows!
      for (let j = a; j < b; j++)
        t.attention[j].forEach((v, i) => {
          if (v >= 0.1) expect(words.has(t.srcTokens[i]), `${name} p${k + 1}: ${t.tgtTokens[j]} → ${t.srcTokens[i]} (${v.toFixed(2)})`).toBe(true)
        })
    })
    expect(t.srcTokens.filter((w) => !onSome.has(w))).toEqual([])
  }

  // Bahdanau's first output word reads the final "." most: the parts were each cut from there to
  // the end of the source, and no split fitted (refused at the defaults).
  it('25 and 31 words of Bahdanau: in at most 4 slides at 20 pt; every source word on some part, and on each part every word its lines reach', async () => {
    for (const s of sentences) await splitLines(s.bahdanau, `${s.words} words`, 4)
  }, 300_000)

  // zh→en Bahdanau reads the final "。" at most steps of a long sentence: the cuts go in proportion.
  it('a 25-word Chinese sentence whose steps read the final "。" most: in at most 4 slides, as above', async () => {
    const svc = new InferenceService()
    try {
      const t = await svc.translate(model('zh-en-bahdanau'), '如果一个人在成人前没有机会习得目标语言，他对该语言的认识达到母语者程度的机会是相当小的。')
      await splitLines(t, 'zh', 4)
    } finally {
      await svc.closeAll()
    }
  }, 300_000)

  it('the parts’ stretches of the source tile it in order, whatever one step reads', () => {
    // A diagonal reading whose first step looks at the last word.
    const S = 12
    const att = Array.from({ length: 10 }, (_, t) => Array.from({ length: S }, (_, s) => (s === (t === 0 ? S - 1 : t + 1) ? 0.8 : 0.2 / (S - 1))))
    const cuts = sourceCuts(att, S)
    expect(cuts[0]).toBe(0)
    expect(cuts.at(-1)).toBe(S)
    for (let x = 1; x < cuts.length; x++) expect(cuts[x]).toBeGreaterThanOrEqual(cuts[x - 1])
    // Steps 1–4 read words 2–5 and step 0 the last; steps 5–9 read 6–10: the cut falls at 6, not at the end.
    expect(cuts[5]).toBe(6)
    expect(partSource(att, S, [0, 5], 0.1)).toEqual([0, 1, 2, 3, 4, 5, S - 1])
    expect(partSource(att, S, [5, 10], 0.1)).toEqual([6, 7, 8, 9, 10, 11])
    expect(withGaps([0, 1, 5, 6, 11])).toEqual([0, 1, null, 5, 6, null, 11])
    // Every step reads the last word: no cut is crossed by few, so they go in proportion.
    const sink = Array.from({ length: 10 }, () => Array.from({ length: S }, (_, s) => (s === S - 1 ? 0.8 : 0.2 / (S - 1))))
    expect(sourceCuts(sink, S)).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 10, 11, 12])
  })
})

describe('occlusion of a long sentence on a 16:9 slide', () => {
  it('25 and 31 words: each step’s attention and importance in one row, at most MOST_PARTS slides at 20 pt, every label on its page', async () => {
    for (const s of sentences) {
      const data: FigureData = { view: 'occlusion', title: 'en-fr-bahdanau', occlusion: s.occlusion }
      const spec = specFor(data)
      const { fit, pages, parts } = await drawn(data, spec, `occlusion-${s.words}`)
      expect(fit.note, `${s.words} words`).toMatch(/^split into (\d) slides to fit at 20 pt: steps 1–\d+, .*; each step's attention and importance in one row$/)
      expect(pages.length).toBeLessThanOrEqual(MOST_PARTS)
      pages.forEach((page, k) => {
        expect(pageProblems(`${s.words} p${k + 1}`, page, spec, false, labelsOf(parts[k]))).toEqual([])
        expect(Math.min(...page.words.map((w) => w.size))).toBeGreaterThanOrEqual(LECTURE * 0.7 - 0.05)
        // The key names both halves.
        for (const w of ['attention', 'importance']) expect(page.words.map((x) => x.text)).toContain(w)
      })
    }
  }, 300_000)

  it('a slide’s cells: the upper half of a step’s row is its attention, the lower half its importance scaled to the row’s largest (pixels of the page)', async () => {
    const s = sentences[0]
    const o = s.occlusion
    const data: FigureData = { view: 'occlusion', title: 'en-fr-bahdanau', occlusion: o }
    const spec = specFor(data)
    const { file, pages, parts } = await drawn(data, spec, 'occlusion-pixels')
    const dpi = 144
    execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-f', '2', '-l', '2', '-singlefile', file, join(dir, 'occ')])
    const img = PNG.sync.read(readFileSync(join(dir, 'occ.png')))
    const px = (x: number, y: number) => {
      const i = (Math.round((y * dpi) / 72) * img.width + Math.round((x * dpi) / 72)) * 4
      return [img.data[i], img.data[i + 1], img.data[i + 2]]
    }
    const page = pages[1]
    const [a, b] = (parts[1] as { rows: [number, number] }).rows
    // Rows by their labels (the part's output tokens down the left), columns by the source words along the top.
    const labels = rowLabels(page, SLIDE.width / 3).slice(-(b - a))
    expect(labels.map((w) => w.text)).toEqual(o.tgtTokens.slice(a, b))
    const rowH = (centre(labels.at(-1)!)[1] - centre(labels[0])[1]) / (labels.length - 1)
    const cols = columnWords(page, 'source', labels, o.srcWords)
    expect(cols.map((w) => w.text)).toEqual(o.srcWords)
    const colX = cols.map((w) => centre(w)[0])
    let checked = 0
    labels.forEach((label, r) => {
      const t = a + r
      const y = centre(label)[1]
      const top = Math.max(1e-9, ...o.importance[t])
      o.srcWords.forEach((_, s2) => {
        const want = [colorAt('viridis', o.attention[t][s2]), colorAt('viridis', Math.max(0, o.importance[t][s2]) / top)]
        const got = [px(colX[s2], y - rowH / 4), px(colX[s2], y + rowH / 4)]
        for (const k of [0, 1])
          got[k].forEach((c, i) => expect(Math.abs(c - want[k][i]), `${o.tgtTokens[t]} · ${o.srcWords[s2]} half ${k}`).toBeLessThanOrEqual(4))
        checked++
      })
    })
    expect(checked).toBe((b - a) * o.srcWords.length)
  }, 120_000)
})
