import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { COLORMAPS } from '../../../src/shared/charts/colormaps'
import { PT_MARKER } from '../../../src/shared/charts/heatmap'
import { DEFAULT_FIGURE, FONT_PRESETS, parseFigure, SIZE_PRESETS, type FigureData, type FigureSpec } from '../../../src/shared/figure'
import { figureOption, fitted, optionSvg, renderSvg } from '../../../src/host/export/figure'
import { InferenceService } from '../../../src/engine/service'
import { BUNDLED_MODELS } from '../../helpers'
import { bundledCorpus, bundledForecast } from './figure-data'
import { floorsFor, NUMBER, withoutCells } from '../../../src/shared/charts/fit'
import { composeFigure } from '../../../src/shared/charts/figure'
import type { ChartOption } from '../../../src/shared/charts/echarts-parts'
import { measureText } from '../../../src/host/export/fonts'
import { outside, overlap, pageSize, pathBoxes, svgOrRefusal, textBoxes, type TextBox } from './figure-geometry'
import * as echarts from 'echarts/core'
import { textsSvg } from '../../../src/shared/charts/texts-svg'

const model = (name: string) => join(BUNDLED_MODELS, `${name}.onnx`)
const SENTENCES = { en: 'A little girl in a pink dress is running on the beach.', zh: '我们明天去公园散步。' }
const PAIRS = { en: 'en-fr', zh: 'zh-en' } as const
type Lang = keyof typeof SENTENCES

/** Every view's figure data, for a sentence of each language, from the bundled models. */
const views: Record<Lang, FigureData[]> = { en: [], zh: [] }

beforeAll(async () => {
  const svc = new InferenceService()
  try {
    const forecast = await bundledForecast(svc)
    const corpus = await bundledCorpus(svc)
    for (const lang of ['en', 'zh'] as const) {
      const text = SENTENCES[lang]
      const local = await svc.translate(model(`${PAIRS[lang]}-local-p`), text)
      const names = lang === 'en' ? ['en-fr-none', 'en-fr-bahdanau', 'en-fr-local-p'] : ['zh-en-bahdanau', 'zh-en-local-p']
      const translations = await svc.compare(names.map(model), text)
      const bahdanau = await svc.translate(model(`${PAIRS[lang]}-bahdanau`), text)
      const beam = await svc.translate(model(`${PAIRS[lang]}-local-p`), text, { beam: 3 })
      const whatif = await svc.whatIf(model(`${PAIRS[lang]}-bahdanau`), { modelId: 'm', text, steps: [2], mode: 'uniform' })
      views[lang] = [
        { view: 'heatmap', translation: local },
        { view: 'local', translation: local, windowD: 5, step: 3 },
        { view: 'positions', translation: local },
        { view: 'step', translation: local, step: 3, attention: 'local-p' },
        { view: 'lines', translation: local, threshold: 0.1 },
        { view: 'comparison', translations, names },
        { view: 'whatif', result: whatif, mode: 'uniform', at: 2 },
        { view: 'corpus', corpus },
        { view: 'forecast', forecast, step: 7 },
        { view: 'sidebyside', a: bahdanau, b: local, names: [`${PAIRS[lang]}-bahdanau · greedy`, `${PAIRS[lang]}-local-p · greedy`] },
        { view: 'beam', translation: beam },
      ]
    }
  } finally {
    await svc.closeAll()
  }
}, 120_000)

const PRESETS = [
  ['slide-16x9', 'lecture'],
  ['paper-single', 'paper'],
] as const

const describeBox = (b: TextBox) => `"${b.text}" (${b.size}pt at ${b.corners.map((p) => p.map((v) => v.toFixed(1)).join(',')).join(' ')})`

describe('figure layout: nothing overlaps, nothing leaves the page', () => {
  for (const lang of ['en', 'zh'] as const) {
    for (const [size, font] of PRESETS) {
      it(`every view, ${size}, ${font} text, ${lang}`, () => {
        expect(views[lang]).toHaveLength(11)
        for (const data of views[lang]) {
          const spec: FigureSpec = {
            ...DEFAULT_FIGURE,
            ...SIZE_PRESETS[size],
            fontSize: FONT_PRESETS[font],
            lang,
            format: 'svg',
            title: lang === 'zh' ? '注意力 attention' : 'Where each word looks',
            caption: 'Figure made by Attention Lens',
          }
          // Sentences of 11–14 tokens: every view fits every size (issue 23), side by side on a slide too.
          const svg = svgOrRefusal(() => renderSvg(data, spec), false, `${data.view} ${size} ${lang}`)
          if (svg === null) continue
          const page = pageSize(svg)
          // A paper figure's height follows its content; a slide keeps its size.
          expect(page.width).toBe(spec.width)
          if (size.startsWith('paper')) expect(page.height).toBeGreaterThanOrEqual(spec.height)
          else expect(page.height).toBe(spec.height)
          const boxes = textBoxes(svg)
          expect(boxes.length, `${data.view}: texts`).toBeGreaterThan(4)
          const problems: string[] = []
          for (const b of boxes) if (outside(b.corners, page)) problems.push(`${describeBox(b)} leaves the page`)
          for (let i = 0; i < boxes.length; i++) {
            for (let j = i + 1; j < boxes.length; j++)
              if (overlap(boxes[i].corners, boxes[j].corners)) problems.push(`${describeBox(boxes[i])} overlaps ${describeBox(boxes[j])}`)
          }
          // p_t markers (white triangles edged dark) never cover a value label.
          const values = boxes.filter((b) => /^(\.\d\d|1\.00)$/.test(b.text))
          for (const m of pathBoxes(svg, PT_MARKER.fill, PT_MARKER.stroke)) {
            for (const v of values) if (overlap(m, v.corners, 0)) problems.push(`a p_t marker covers ${describeBox(v)}`)
          }
          expect(problems, `${data.view} ${size} ${lang}`).toEqual([])
          // Text at the preset's size or shrunk no further than the floor: 7 pt on paper (5.25 pt
          // for numbers), 14 pt on a slide.
          const floors = floorsFor(spec.fontSize)
          for (const b of boxes) expect(b.size, `${data.view}: "${b.text}"`).toBeGreaterThanOrEqual((NUMBER.test(b.text) ? floors.number : floors.label) - 0.01)
        }
      })
    }
  }

  it("with / without shows each model's output words, and marks those that differ from the no-attention output", () => {
    const data = views.en[5] as Extract<FigureData, { view: 'comparison' }>
    const texts = textBoxes(renderSvg(data, { ...DEFAULT_FIGURE, format: 'svg' })).map((b) => b.text)
    for (const t of data.translations) for (const tok of t.tgtTokens) expect(texts).toContain(tok)
    expect(texts).toEqual(expect.arrayContaining([...data.names, 'differs from en-fr-none']))
  })

  it('Chinese column labels stay upright past 18 tokens, and values show whenever the cells are big enough', () => {
    const chars = '我们昨天晚上在公园里看见了一只很大的白色的狗和两只猫'.split('')
    const out = Array.from({ length: 19 }, (_, i) => `w${i}`)
    const attention = out.map((_, t) => chars.map((_, s) => (s === t ? 0.9 : 0.1 / (chars.length - 1))))
    const translation = {
      ...(views.zh[0] as Extract<FigureData, { view: 'heatmap' }>).translation,
      srcTokens: chars,
      tgtTokens: out,
      attention,
      positions: null,
      windows: null,
    }
    const boxes = textBoxes(renderSvg({ view: 'heatmap', translation }, { ...DEFAULT_FIGURE, format: 'svg', lang: 'zh', fontSize: FONT_PRESETS.screen }))
    const labels = boxes.filter((b) => chars.includes(b.text))
    expect(labels).toHaveLength(chars.length)
    // Upright: the box's top edge runs left to right.
    for (const b of labels) expect(Math.abs(b.corners[1][1] - b.corners[0][1])).toBeLessThan(0.01)
    expect(boxes.filter((b) => /^(\.\d\d|1\.00)$/.test(b.text))).toHaveLength(chars.length * out.length)
  })

  it("the heatmap of a local model shows values and markers together at a slide's size, and its key names both", () => {
    const svg = renderSvg(views.en[0], { ...DEFAULT_FIGURE, format: 'svg' })
    const texts = textBoxes(svg).map((b) => b.text)
    expect(texts.filter((t) => /^(\.\d\d|1\.00)$/.test(t)).length).toBe(views.en[0].view === 'heatmap' ? views.en[0].translation.attention.flat().length : 0)
    // One marker per output row, and one more in the key.
    expect(pathBoxes(svg, PT_MARKER.fill, PT_MARKER.stroke)).toHaveLength(
      (views.en[0] as Extract<FigureData, { view: 'heatmap' }>).translation.tgtTokens.length + 1,
    )
    expect(texts).toEqual(expect.arrayContaining(['source', 'output', 'window [pₜ − D, pₜ + D]', 'pₜ']))
    const zh = textBoxes(renderSvg(views.zh[0], { ...DEFAULT_FIGURE, format: 'svg', lang: 'zh' })).map((b) => b.text)
    // A key of both scripts is one text per font.
    expect(zh).toEqual(expect.arrayContaining(['源语言', '输出', '窗口 ', '[pₜ − D, pₜ + D]']))
  })

  it('side by side draws both maps on one fixed 0–1 scale, and the difference A − B in red and blue (paper-double)', () => {
    const data = views.en[9] as Extract<FigureData, { view: 'sidebyside' }>
    const option = figureOption(data, { ...DEFAULT_FIGURE, ...SIZE_PRESETS['paper-double'], fontSize: FONT_PRESETS.paper, format: 'svg' }) as {
      grid: unknown[]
      visualMap: { min: number; max: number; inRange: { color: string[] } }[]
      series: { type: string; data: { value: number[] }[] }[]
    }
    expect(option.grid).toHaveLength(3)
    const [a, b, d] = option.series.filter((s) => s.type === 'heatmap')
    const scale = ({ min, max, inRange }: (typeof option.visualMap)[number]) => ({ min, max, inRange })
    expect(scale(option.visualMap[0])).toEqual({ min: 0, max: 1, inRange: { color: [...COLORMAPS.viridis] } })
    expect(scale(option.visualMap[1])).toEqual(scale(option.visualMap[0]))
    // Coloured by the weight itself: no row normalisation, no log scale.
    for (const s of [a, b]) for (const c of s.data) expect(c.value[2]).toBeCloseTo(c.value[3], 12)
    const T = Math.min(data.a.tgtTokens.length, data.b.tgtTokens.length)
    expect(d.data).toHaveLength(T * data.a.srcTokens.length)
    for (const c of d.data) expect(c.value[3]).toBeCloseTo(data.a.attention[c.value[1]][c.value[0]] - data.b.attention[c.value[1]][c.value[0]], 12)
    expect(option.visualMap[2].inRange.color[0]).toBe('#2166ac')
    const texts = textBoxes(renderSvg(data, { ...DEFAULT_FIGURE, ...SIZE_PRESETS['paper-double'], fontSize: FONT_PRESETS.paper, format: 'svg' })).map(
      (b) => b.text,
    )
    expect(texts).toEqual(expect.arrayContaining([`A · ${data.names[0]}`, `B · ${data.names[1]}`, 'A − B']))
  })

  it('side by side on a 4:3 slide: A and B carry every label; A − B goes beside or below them, and is left out (with a line saying so) only at the floor text size', () => {
    const data = views.en[9] as Extract<FigureData, { view: 'sidebyside' }>
    const spec: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-4x3'], fontSize: FONT_PRESETS.lecture, format: 'svg', title: 'Where each word looks' }
    // 14 source words and 20 output rows in A and B: their one-line rows leave no room for a third map.
    const src = ['several', 'people', 'wearing', 'winter', 'jackets', 'stand', 'outside', 'near', 'an', 'old', 'wooden', 'house', '.', '</s>']
    const tgt = Array.from({ length: 20 }, (_, t) => `mot${t + 1}`)
    const map = (shift: number) => tgt.map((_, t) => src.map((_, s) => (s === (t + shift) % src.length ? 1 : 0)))
    const tall = {
      ...data,
      a: { ...data.a, srcTokens: src, tgtTokens: tgt, attention: map(0) },
      b: { ...data.b, srcTokens: src, tgtTokens: tgt, attention: map(1) },
    }
    // 10 source words and 13 output rows: at 17 pt A and B alone would fit, at 15 pt (the largest above the floor that does) all three do.
    const src10 = ['people', 'are', 'fixing', 'the', 'roof', 'of', 'a', 'house', '.', '</s>']
    const tgt13 = ['des', 'gens', 'sont', 'en', 'train', 'de', 'regarder', 'le', 'toit', "d'une", 'maison', '.', '</s>']
    const map10 = (shift: number) => tgt13.map((_, t) => src10.map((_, s) => (s === (t + shift) % src10.length ? 1 : 0)))
    const mid = {
      ...data,
      a: { ...data.a, srcTokens: src10, tgtTokens: tgt13, attention: map10(0) },
      b: { ...data.b, srcTokens: src10, tgtTokens: tgt13, attention: map10(1) },
    }
    // One figure (as an animation asks for it): the largest text above the floor. By default a
    // figure that can split is split at the preset's size instead (issue 40), and says so.
    const whole = (d: FigureData) => fitted(d, spec, { split: false })
    const boxes = (d: FigureData) => textBoxes(whole(d).svg)
    const grids = (d: FigureData) => (whole(d).option.grid as unknown[]).length
    for (const d of [data, mid, tall]) {
      const texts = boxes(d).map((b) => b.text)
      for (const t of [...d.a.srcTokens, ...d.a.tgtTokens, ...d.b.tgtTokens]) expect(texts, t).toContain(t)
    }
    // The sample sentence (12 tokens): three maps; the 10-token one: three maps at 15 pt before two at 17.
    expect(grids(data)).toBe(3)
    expect(grids(mid)).toBe(3)
    expect(whole(mid).note).toBe('set at 15 pt to fit')
    const split = fitted(mid, spec)
    expect(split.fontSize).toBe(FONT_PRESETS.lecture)
    expect(split.note).toMatch(/^split into \d slides to fit at 20 pt: steps 1–\d+, /)
    expect(boxes(mid).find((b) => b.text === 'regarder')?.size).toBeCloseTo(15, 5)
    // The tall one: A and B at the floor (14 pt), and the line that says where A − B is.
    expect(grids(tall)).toBe(2)
    const note = boxes(tall).find((b) => b.text.startsWith('No room for A − B'))
    expect(note?.size).toBeCloseTo(floorsFor(FONT_PRESETS.lecture).label, 5)
    expect(boxes(tall).find((b) => b.text === 'mot20')?.size).toBeCloseTo(14, 5)
  })

  it('the beam figure shows the chosen hypothesis as one line of words, left to right, and a key', () => {
    for (const lang of ['en', 'zh'] as const) {
      const data = views[lang][10] as Extract<FigureData, { view: 'beam' }>
      const tree = data.translation.beamTree!
      const chosen = tree.nodes.filter((n) => n.status === 'chosen').sort((x, y) => x.step - y.step)
      expect(chosen.length).toBeGreaterThan(3)
      const boxes = textBoxes(renderSvg(data, { ...DEFAULT_FIGURE, format: 'svg', lang }))
      // The chosen path runs straight along the top: its words on one line, in order.
      const top = Math.min(...boxes.map((b) => b.corners[0][1]))
      const line = boxes.filter((b) => Math.abs(b.corners[0][1] - top) < 0.01)
      expect(line.map((b) => b.text)).toEqual(chosen.map((n) => n.token))
      for (let i = 1; i < line.length; i++) expect(line[i].corners[0][0]).toBeGreaterThan(line[i - 1].corners[1][0])
      // At a slide's size the tree keeps the preset's text size.
      expect(new Set(line.map((b) => b.size))).toEqual(new Set([DEFAULT_FIGURE.fontSize]))
      expect(boxes.map((b) => b.text)).toContain(lang === 'zh' ? '最终选中' : 'chosen')
    }
  })

  it('a forecast figure writes its dates in the language of the figure', () => {
    const data = views.zh[8]
    expect(data.view).toBe('forecast')
    // CJK and Latin runs are separate texts in the SVG (one font each): read them joined.
    const text = textBoxes(renderSvg(data, { ...DEFAULT_FIGURE, format: 'svg', lang: 'zh' }))
      .map((b) => b.text)
      .join(' ')
    expect(text).toMatch(/月/)
    expect(text).not.toMatch(/\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/)
  })

  it('side by side needs attention on both sides and two names; the beam needs its tree', () => {
    const sbs = views.en[9] as Extract<FigureData, { view: 'sidebyside' }>
    const beam = views.en[10] as Extract<FigureData, { view: 'beam' }>
    const spec = { ...DEFAULT_FIGURE, format: 'svg' }
    expect(parseFigure(sbs, spec).data.view).toBe('sidebyside')
    expect(() => parseFigure({ ...sbs, b: { ...sbs.b, attention: [] } }, spec)).toThrow(/b\.attention: must not be empty: both sides need attention/)
    expect(() => parseFigure({ ...sbs, names: ['A'] }, spec)).toThrow(/names: must be two names|names\.1/)
    expect(parseFigure(beam, spec).data.view).toBe('beam')
    expect(() => parseFigure({ view: 'beam', translation: { ...beam.translation, beamTree: undefined } }, spec)).toThrow(
      /translation\.beamTree: must be a beam-search translation with its tree of hypotheses/,
    )
  })
})

/**
 * The fitter judges a candidate by drawing it without its maps' cells (withoutCells) and reading its
 * texts' boxes (layoutProblems), the cells being most of the drawing; only the figure kept is drawn
 * whole. Every text of each view's figure is where it is with the cells, so the same layout is
 * chosen; a map that writes its values in its cells keeps them; the figure kept has its cells.
 */
describe('a slide candidate without its maps cells', () => {
  const spec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], fontSize: 20 }
  const maps = (o: ChartOption) => (Array.isArray(o.series) ? o.series : [o.series]).filter((s) => s.type === 'heatmap')

  const shapes = (svg: string) => svg.match(/<path\b/g)?.length ?? 0

  it('has every text of the figure with the same box, and far fewer shapes to draw, in both languages', () => {
    const lighter: string[] = []
    for (const lang of ['en', 'zh'] as const)
      for (const data of views[lang]) {
        const { option } = composeFigure(data, { ...spec, lang }, measureText)
        const lite = withoutCells(option)
        if (lite === option) continue
        lighter.push(data.view)
        for (const s of maps(lite)) if (!s.label?.show) expect(s.data, data.view).toEqual([])
        const [whole, bare] = [optionSvg(option, spec.width, spec.height), optionSvg(lite, spec.width, spec.height)]
        const boxes = textBoxes(whole)
        expect(boxes.length, data.view).toBeGreaterThan(10)
        expect(textBoxes(bare), data.view).toEqual(boxes)
        expect(shapes(bare), data.view).toBeLessThan(shapes(whole) / 2)
      }
    // The maps that draw no values in their cells at this size (the heatmap and what-if of 12 words do).
    expect(lighter.sort()).toEqual(['forecast', 'forecast', 'sidebyside', 'sidebyside', 'step', 'step'])
  })

  it('a fitted figure, judged by its texts alone, is drawn whole: every part with its maps cells', () => {
    for (const data of views.en.filter((d) => ['step', 'forecast', 'sidebyside'].includes(d.view))) {
      const fit = fitted(data, spec)
      for (const f of fit.parts?.map((p) => p.fit) ?? [fit]) expect(shapes(f.svg), data.view).toBe(shapes(optionSvg(f.option, f.spec.width, f.spec.height)))
      expect(shapes(fit.svg), data.view).toBeGreaterThan(shapes(optionSvg(withoutCells(fit.option), fit.spec.width, fit.spec.height)) * 2)
    }
  })

  it('keeps the cells of a map that writes its values in them; an option with no map is itself', () => {
    const { option } = composeFigure(views.en[0], spec, measureText)
    const labelled = { ...option, series: maps(option).map((s) => ({ ...s, label: { show: true } })) } as ChartOption
    expect(withoutCells(labelled)).toBe(labelled)
    const lines = { ...option, series: [{ type: 'line', data: [1, 2, 3] }] } as ChartOption
    expect(withoutCells(lines)).toBe(lines)
  })
})

/**
 * Presentation mode judges a slide's candidate by its texts written alone (textsSvg), not by its
 * whole SVG: the same `<text>` elements as renderToSVGString writes, in the same order, so the same
 * boxes, for every view's figure in both languages, drawn as a candidate is (without its maps' cells).
 */
describe("a chart's texts written alone", () => {
  it('are the text elements of its SVG, for every view in both languages', () => {
    let written = 0
    const spec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], fontSize: 20 }
    for (const lang of ['en', 'zh'] as const)
      for (const data of views[lang]) {
        const candidate = withoutCells(composeFigure(data, { ...spec, lang }, measureText).option)
        const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width: spec.width, height: spec.height })
        try {
          chart.setOption(candidate)
          const alone = textsSvg(chart)
          const texts = chart.renderToSVGString().match(/<text\b[^>]*>[^<]*<\/text>/g) ?? []
          expect(alone ? alone.split('\n') : [], `${lang} ${data.view}`).toEqual(texts)
          written += texts.length
        } finally {
          chart.dispose()
        }
      }
    expect(written).toBeGreaterThan(1000)
  })
})
