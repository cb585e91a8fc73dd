/**
 * A Transformer's figures (the layer × head grid, one head large, a step's heads, what-if on one
 * head) exported as SVG with the real fonts: nothing overlaps and nothing leaves the page, on a
 * slide and in a paper column, in both languages. The heads are made by hand (heads-fixture.ts):
 * the layout is under test here, not a model.
 */
import { describe, expect, it } from 'vitest'
import { headStats } from '../../../src/shared/attention/heads'
import { DEFAULT_FIGURE, FONT_PRESETS, parseFigure, SIZE_PRESETS, type FigureData, type FigureSpec } from '../../../src/shared/figure'
import { figureOption, fitted, renderSvg } from '../../../src/host/export/figure'
import { transformerTranslation } from '../shared/heads-fixture'
import { outside, overlap, pageSize, svgOrRefusal, textBoxes, type TextBox } from './figure-geometry'

const describeBox = (b: TextBox) => `"${b.text}" (${b.size}pt at ${b.corners.map((p) => p.map((v) => v.toFixed(1)).join(',')).join(' ')})`

const t34 = transformerTranslation(3, 4)
const t68 = transformerTranslation(6, 8)
const reference = { name: 'en-fr-bahdanau', attention: t34.crossAttention!.map((s) => s[1][2]) }
const modified = { ...t34, attention: t34.attention.map((r) => [...r].reverse()), mode: 'what-if' as const }

const FIGURES: [string, FigureData][] = [
  ['grid 3 × 4', { view: 'heads', translation: t34, head: null }],
  ['grid 3 × 4 with a reference', { view: 'heads', translation: t34, head: null, reference }],
  ['grid 6 × 8', { view: 'heads', translation: t68, head: null }],
  ['one head', { view: 'heads', translation: t34, head: { layer: 1, head: 2 }, reference }],
  ['a step', { view: 'step', translation: t34, step: 3, attention: 'transformer' }],
  ['what-if, one head silenced', { view: 'whatif', result: { original: t34, modified, changed: [] }, mode: 'silence', at: 'all', head: { layer: 0, head: 1 } }],
]

const PRESETS = [
  ['slide-16x9', 'lecture'],
  ['paper-single', 'paper'],
  ['paper-double', 'paper'],
] as const

const specFor = (size: (typeof PRESETS)[number][0], font: (typeof PRESETS)[number][1], lang: 'en' | 'zh'): FigureSpec => ({
  ...DEFAULT_FIGURE,
  ...SIZE_PRESETS[size],
  fontSize: FONT_PRESETS[font],
  lang,
  format: 'svg',
  title: lang === 'zh' ? '交叉注意力的各个头' : 'Cross-attention, head by head',
  caption: 'Figure made by Attention Lens',
})

describe("a Transformer's figures: nothing overlaps, nothing leaves the page", () => {
  for (const lang of ['en', 'zh'] as const)
    for (const [size, font] of PRESETS)
      it(`${size}, ${font} text, ${lang}`, () => {
        for (const [name, data] of FIGURES) {
          const spec = specFor(size, font, lang)
          // The data passes the schema it will be sent through.
          expect(parseFigure(data, spec).data.view).toBe(data.view)
          // A grid of L × H maps with every row labelled at the floor or above may not fit a page:
          // it is refused with a reason (the 3 × 4 grid must fit paper-double, below).
          const svg = svgOrRefusal(() => renderSvg(data, spec), name.startsWith('grid'), `${name} ${size} ${lang}`)
          if (svg === null) continue
          const page = pageSize(svg)
          const boxes = textBoxes(svg)
          expect(boxes.length, `${name}: texts`).toBeGreaterThan(10)
          const problems: string[] = []
          for (const b of boxes) if (outside(b.corners, page)) problems.push(`${describeBox(b)} leaves the page`)
          for (let i = 0; i < boxes.length; i++)
            for (let j = i + 1; j < boxes.length; j++)
              if (overlap(boxes[i].corners, boxes[j].corners)) problems.push(`${describeBox(boxes[i])} overlaps ${describeBox(boxes[j])}`)
          expect(problems, `${name}, ${size}, ${lang}`).toEqual([])
        }
      })

  it("the grid: L × H maps, every head's numbers over its map, layers and heads named, in paper text on a slide's width; at the lecture size two slides, the labelled average and 12 small maps", () => {
    // 4 heads of 14 columns each need more than paper-double's 7 in at 7 pt: a slide's 13.3 in.
    const spec = specFor('slide-16x9', 'paper', 'en')
    for (const ref of [reference, null]) {
      const data: FigureData = { view: 'heads', translation: t34, head: null, reference: ref }
      const option = figureOption(data, spec) as { series: { type: string }[] }
      expect(option.series.filter((s) => s.type === 'heatmap')).toHaveLength(3 * 4)
      const boxes = textBoxes(renderSvg(data, spec))
      const texts = boxes.map((b) => b.text).join('\n')
      for (const s of headStats(t34.crossAttention!, ref?.attention)) {
        expect(texts).toContain(`${s.entropy.toFixed(2)} b`)
        expect(texts).toContain(`d ${s.diagonality.toFixed(2).replace(/^0\./, '.')}`)
        if (ref) expect(texts).toContain(`a ${s.agreement!.toFixed(2).replace(/^0\./, '.')}`)
      }
      for (const name of ['layer 1', 'layer 3', 'head 1', 'head 4']) expect(texts).toContain(name)
      // Every output token labels its row in each layer, at the floor or above.
      for (const tok of t34.tgtTokens) expect(boxes.filter((b) => b.text === tok).length, tok).toBeGreaterThanOrEqual(3)
      expect(Math.min(...boxes.filter((b) => !/\d/.test(b.text)).map((b) => b.size))).toBeGreaterThanOrEqual(7 - 0.01)
    }
    // 3 layers of 12 labelled rows need more than a slide's height at 20 pt: two slides at 20 pt
    // (issue 40: a split at the preset's text size before smaller text), the average of the heads
    // with every token label, then the 12 maps small with their numbers but no tokens.
    const lecture = specFor('slide-16x9', 'lecture', 'en')
    const data: FigureData = { view: 'heads', translation: t34, head: null }
    const fit = fitted(data, lecture)
    expect(fit.note).toBe('split into 2 slides to fit at 20 pt: average of all heads; every head')
    const [average, grid] = fit.parts!.map((p) => ({ option: p.fit.option as { series: { type: string }[] }, boxes: textBoxes(p.fit.svg) }))
    expect(average.option.series.filter((s) => s.type === 'heatmap')).toHaveLength(1)
    expect(grid.option.series.filter((s) => s.type === 'heatmap')).toHaveLength(3 * 4)
    expect(average.boxes.map((b) => b.text)).toContain('average of all heads')
    const texts = grid.boxes.map((b) => b.text).join('\n')
    for (const s of headStats(t34.crossAttention!, null)) expect(texts).toContain(`${s.entropy.toFixed(2)} b`)
    for (const tok of [...t34.tgtTokens, ...t34.srcTokens]) expect(average.boxes.filter((b) => b.text === tok).length, tok).toBeGreaterThanOrEqual(1)
    for (const { boxes } of [average, grid]) expect(Math.min(...boxes.filter((b) => !/\d/.test(b.text)).map((b) => b.size))).toBeGreaterThanOrEqual(20 - 0.01)
  })

  it('is refused without every head of every step, or for a head the model does not have', () => {
    const spec = specFor('slide-16x9', 'lecture', 'en')
    const ok: FigureData = { view: 'heads', translation: t34, head: { layer: 2, head: 3 } }
    expect(parseFigure(ok, spec).data.view).toBe('heads')
    expect(() => parseFigure({ ...ok, translation: { ...t34, crossAttention: undefined } }, spec)).toThrow(/translation: must be a Transformer's translation/)
    expect(() => parseFigure({ ...ok, translation: { ...t34, crossAttention: t34.crossAttention!.slice(1) } }, spec)).toThrow(/crossAttention/)
    const ragged = t34.crossAttention!.map((step, i) => (i === 2 ? step.map((l) => l.slice(1)) : step))
    expect(() => parseFigure({ ...ok, translation: { ...t34, crossAttention: ragged } }, spec)).toThrow(/crossAttention/)
    expect(() => parseFigure({ ...ok, head: { layer: 3, head: 0 } }, spec)).toThrow(/head: must be one of the model's heads/)
    expect(() => parseFigure({ ...ok, head: { layer: 0, head: 4 } }, spec)).toThrow(/head: must be one of the model's heads/)
  })

  it('what-if on one head names the head; a step of a Transformer shows a row per head and their mean', () => {
    const spec = specFor('slide-16x9', 'lecture', 'en')
    const whatif = textBoxes(renderSvg(FIGURES[5][1], spec))
      .map((b) => b.text)
      .join(' ')
    expect(whatif).toContain('head silenced (layer 1, head 2)')
    const step = textBoxes(renderSvg(FIGURES[4][1], spec)).map((b) => b.text)
    expect(step).toEqual(expect.arrayContaining(['L1 H1', 'mean', `step 4 (${t34.tgtTokens[3]})`]))
    const option = figureOption(FIGURES[4][1], spec) as { series: { type: string; data: { value: number[] }[] }[] }
    const cells = option.series.find((s) => s.type === 'heatmap')!.data
    // 12 heads and the mean, one cell per source token each.
    expect(cells).toHaveLength(13 * t34.srcTokens.length)
    for (const c of cells) {
      const [s, row, , w] = c.value
      expect(w).toBeCloseTo(row < 12 ? t34.crossAttention![3][Math.floor(row / 4)][row % 4][s] : t34.attention[3][s], 12)
    }
  })
})
