/**
 * A figure split across its source (issue 40 #1): where a sentence's source is too wide for a slide
 * at the preset's text size even in parts of its output steps, the fitter cuts the source into
 * consecutive parts too, each of them in parts of the steps as needed (a grid, at most MOST_GRID_PARTS).
 * A made-up sentence of 40 source and 30 output tokens (not a model's: its weights are known), on a
 * 16:9 slide at 20 pt: each part draws only its own columns and names them, every cell and every
 * source word is on exactly one part, and the colour scale is the whole sentence's on every part.
 */
import { describe, expect, it } from 'vitest'
import type { Translation } from '../../../src/shared/api'
import { asList, type ChartOption } from '../../../src/shared/charts/echarts-parts'
import { MOST_GRID_PARTS, type FittedFigure } from '../../../src/shared/charts/fit'
import { textBoxes } from '../../../src/shared/charts/text-boxes'
import { DEFAULT_FIGURE, parseFigure, SIZE_PRESETS, type FigureData, type FigureSpec } from '../../../src/shared/figure'
import { fitted } from '../../../src/host/export/figure'
import { measureText } from '../../../src/host/export/fonts'

const S = 40
const T = 30
const SRC = Array.from({ length: S }, (_, s) => `source${s + 1}`)
const TGT = Array.from({ length: T }, (_, t) => `output${t + 1}`)
/** Where step t looks: the diagonal, 0.3 past a word's centre (never on the edge between two parts). */
const centre = (t: number) => (t * (S - 1)) / (T - 1) + 0.3
/** Each row a bump on the diagonal over a floor, normalised: its largest weight in one part, small ones in the others. */
const ATTENTION = Array.from({ length: T }, (_, t) => {
  const row = Array.from({ length: S }, (_, s) => Math.exp(-((s - centre(t)) ** 2) / 2) + 0.02 * (1 + ((s * 7 + t * 3) % 5)))
  const z = row.reduce((a, b) => a + b, 0)
  return row.map((w) => w / z)
})

function sentence(): Translation {
  return {
    modelId: 'm',
    source: SRC.join(' '),
    srcTokens: SRC,
    srcUnknown: SRC.map(() => false),
    tgtTokens: TGT,
    text: TGT.join(' '),
    attention: ATTENTION,
    scores: ATTENTION,
    encoderStates: [],
    align: null,
    positions: TGT.map((_, t) => centre(t)),
    windows: TGT.map((_, t) => [centre(t) - 2, centre(t) + 2] as [number, number]),
    gaussian: null,
    tokenLogProbs: TGT.map(() => -0.1),
    alternatives: TGT.map(() => []),
    tgtUnknown: null,
    mode: 'greedy',
    beam: 1,
    logProb: -3,
    truncated: false,
    decodeMs: 1,
    provider: 'cpu',
  }
}

const SPEC: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], fontSize: 20, format: 'pdf' }

/** The series of a type in a part's option. */
const seriesOf = (option: ChartOption, type: string) => asList(option.series).filter((s) => (s as { type?: string }).type === type) as { data: unknown[] }[]
const texts = (fit: FittedFigure) => textBoxes(fit.svg, measureText).map((b) => b.text)

/** The figure fitted at the slide defaults: split into a grid of steps × source, at most MOST_GRID_PARTS, each part 20 pt. */
function grid(data: FigureData) {
  const fit = fitted(data, SPEC, { alternatives: false })
  expect(fit.note).toMatch(/^split into \d slides to fit at 20 pt: (steps [\d–, ]+ × )?source 1–\d+, \d+–40/)
  const parts = fit.parts!
  expect(parts.length).toBeLessThanOrEqual(MOST_GRID_PARTS)
  for (const p of parts) expect([p.fit.fontSize, p.cols !== undefined]).toEqual([20, true])
  return parts.map((p) => ({ ...p, rows: p.rows ?? ([0, T] as [number, number]), cols: p.cols! }))
}

/** The heatmap cells of a part as [whole step, whole source position, colour value, weight]. */
const cellsOf = (p: ReturnType<typeof grid>[number]) =>
  (seriesOf(p.fit.option, 'heatmap')[0].data as { value: [number, number, number, number] }[]).map(({ value: [s, t, v, w] }) => [
    p.rows[0] + t,
    p.cols[0] + s,
    v,
    w,
  ])

describe('a figure split across its source: parts of its source words, each split by steps as needed', () => {
  it('the heatmap: each part draws its columns only and names them; every cell and word on exactly one part; p_t on the part that holds it', () => {
    const parts = grid({ view: 'heatmap', translation: sentence() })
    const seen = new Map<string, number>()
    for (const p of parts) {
      for (const [t, s, v, w] of cellsOf(p)) {
        expect(s).toBeGreaterThanOrEqual(p.cols[0])
        expect(s).toBeLessThan(p.cols[1])
        // One fixed 0–1 scale: the colour is the weight, whichever part draws it.
        expect([v, w]).toEqual([ATTENTION[t][s], ATTENTION[t][s]])
        seen.set(`${t} ${s}`, (seen.get(`${t} ${s}`) ?? 0) + 1)
      }
      const drawn = texts(p.fit)
      for (const [s, word] of SRC.entries()) expect(drawn.includes(word), `${word} on ${p.label}`).toBe(s >= p.cols[0] && s < p.cols[1])
      expect(drawn).toContain(`source, ${p.cols[0] + 1}–${p.cols[1]} of ${S}`)
      expect(p.label).toMatch(new RegExp(`source ${p.cols[0] + 1}–${p.cols[1]}$`))
    }
    expect(seen.size).toBe(S * T)
    expect([...seen.values()].every((k) => k === 1)).toBe(true)
    // p_t of every step: drawn on the one part of its steps whose source holds it, where it is there.
    for (let t = 0; t < T; t++) {
      const marks = parts
        .filter((p) => t >= p.rows[0] && t < p.rows[1])
        .flatMap((p) =>
          (seriesOf(p.fit.option, 'custom')[0].data as number[][]).filter((d) => d[0] === t - p.rows[0] && d[4] === 1).map((d) => d[1] + p.cols[0]),
        )
      expect(marks.length, `step ${t + 1}`).toBe(1)
      expect(marks[0]).toBeCloseTo(centre(t), 9)
    }
  })

  it('contributions: each row scaled to its largest contribution over the whole source, not the part’s', () => {
    const translation = sentence()
    const parts = grid({ view: 'contributions', translation, method: 'alti+', sourceShare: TGT.map(() => 1) })
    let below = 0
    for (const p of parts)
      for (const [t, s, v] of cellsOf(p)) {
        expect(v).toBeCloseTo(ATTENTION[t][s] / Math.max(...ATTENTION[t]), 12)
        if (v < 1 && ATTENTION[t][s] === Math.max(...ATTENTION[t].slice(p.cols[0], p.cols[1]))) below++
      }
    // Rows whose largest weight is in another part: scaled per part, their largest cell here would read 1.
    expect(below).toBeGreaterThan(0)
  })

  it('the Alignment score figure: every link on the part of its source word and target word, moved with it', () => {
    const extracted = ATTENTION.map((row, j) => ({ i: row.indexOf(Math.max(...row)), j, sure: true }))
    const parts = grid({ view: 'goldlinks', title: 'made up', srcWords: SRC, tgtWords: TGT, matrix: ATTENTION, gold: [], extracted, statistical: null })
    const found = parts.flatMap((p) =>
      (seriesOf(p.fit.option, 'scatter').find((x) => (x as { name?: string }).name === 'attention argmax')!.data as number[][]).map(([i, j]) => [
        p.cols[0] + i,
        p.rows[0] + j,
      ]),
    )
    expect(found.sort((a, b) => a[1] - b[1])).toEqual(extracted.map((l) => [l.i, l.j]))
  })

  it('side by side: a part of the source has the whole sentence’s difference scale', () => {
    const a = sentence()
    // B differs from A in its first five steps only: a part of later steps has no difference of its own.
    const b = { ...sentence(), attention: ATTENTION.map((r, t) => (t < 5 ? [...r].reverse() : r)) }
    const range = Math.ceil(Math.max(...ATTENTION.flatMap((r, t) => r.map((w, s) => Math.abs(w - b.attention[t][s])))) * 10 - 1e-9) / 10
    expect(range).toBeGreaterThan(0.1)
    const part = fitted({ view: 'sidebyside', a, b, names: ['A', 'B'], rows: [20, 24], cols: [0, 12] }, SPEC, { alternatives: false })
    expect(texts(part)).toContain(`+${range.toFixed(1)} A`)
  })

  it('the data: cols must be [first, end) inside the source, for every view that has them', () => {
    const t = sentence()
    const views: FigureData[] = [
      { view: 'heatmap', translation: t },
      { view: 'contributions', translation: t, method: 'alti+', sourceShare: TGT.map(() => 1) },
      { view: 'goldlinks', title: 'x', srcWords: SRC, tgtWords: TGT, matrix: ATTENTION, gold: [], extracted: [], statistical: null },
      { view: 'whatif', result: { original: t, modified: t, changed: TGT.map(() => false) }, mode: 'uniform', at: 'all' },
      { view: 'sidebyside', a: t, b: t, names: ['A', 'B'] },
    ]
    for (const d of views) {
      expect(parseFigure({ ...d, cols: [20, 40] }, SPEC).data).toMatchObject({ cols: [20, 40] })
      for (const cols of [
        [20, 41],
        [20, 20],
      ])
        expect(() => parseFigure({ ...d, cols }, SPEC), `${d.view} ${cols}`).toThrow(/cols: must be source (positions|words) of/)
    }
  })
})
