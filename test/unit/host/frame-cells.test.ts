/**
 * Animation frames whose repeated heatmap cells are drawn once (frame-cells.ts, issue 40 #8): each
 * frame is the SVG ECharts draws for it, cell for cell, and the same pixels; the cells are reused
 * only where they are the same cells, and ECharts then draws one of them instead of all.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { optionSvg, rasterise } from '../../../src/host/export/figure'
import { frameRenderer } from '../../../src/host/export/frame-cells'
import { measureText } from '../../../src/host/export/fonts'
import { textsAsPaths } from '../../../src/host/export/text-paths'
import type { Translation } from '../../../src/shared/api'
import type { ChartOption } from '../../../src/shared/charts/echarts-parts'
import { composeFigure } from '../../../src/shared/charts/figure'
import type { RenderSvg } from '../../../src/shared/charts/fit'
import { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS, type FigureSpec } from '../../../src/shared/figure'
import { localPTranslation } from './figure-data'

const SENTENCE = 'A young man in a red jacket is standing on the corner of a busy street .'
const SPEC: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], dpi: 96, fontSize: FONT_PRESETS.screen }

/** ECharts numbers its clip paths by chart instance ("zr12-c0"): two drawings of one option differ there alone. */
const sameIds = (svg: string) => svg.replace(/zr\d+-/g, 'zr-')
const plain: RenderSvg = (option, width, height) => optionSvg(option, width, height, false)

/** A renderer that records how many cells each heatmap series had in every option ECharts drew. */
function counting(): { draw: RenderSvg; drawn: number[][] } {
  const drawn: number[][] = []
  const draw: RenderSvg = (option, width, height) => {
    drawn.push((option.series as { type?: string; data?: unknown[] }[]).filter((s) => s.type === 'heatmap').map((s) => s.data?.length ?? 0))
    return plain(option, width, height)
  }
  return { draw, drawn }
}

let t: Translation

beforeAll(async () => {
  t = await localPTranslation(SENTENCE)
}, 120_000)

describe("the step-through's frames, the encoder states drawn once", () => {
  const frame = (step: number) =>
    composeFigure({ view: 'step', translation: t, step, attention: 'local-p' }, { ...SPEC, caption: `step ${step + 1}` }, measureText).option

  it('are the SVG ECharts draws for each frame, and ECharts draws one state cell from the third frame on', () => {
    const { draw, drawn } = counting()
    const fast = frameRenderer(draw)
    const cells = t.srcTokens.length * 48
    for (let step = 0; step < t.tgtTokens.length; step++) {
      const option = frame(step)
      expect(sameIds(fast(option, SPEC.width, SPEC.height))).toBe(sameIds(plain(option, SPEC.width, SPEC.height)))
    }
    // The states, then the context vector (its values change every step: always drawn whole).
    expect(drawn.map((d) => d[0])).toEqual(Array.from({ length: t.tgtTokens.length }, (_, i) => (i < 2 ? cells : 1)))
    expect(drawn.every((d) => d[1] === 48)).toBe(true)
  }, 120_000)

  it('rasterise to the same pixels as the frame drawn alone', () => {
    const fast = frameRenderer()
    const last = t.tgtTokens.length - 1
    let svg = ''
    for (let step = 0; step <= last; step++) svg = fast(frame(step), SPEC.width, SPEC.height)
    const alone = plain(frame(last), SPEC.width, SPEC.height)
    expect(svg).not.toBe(alone)
    const a = rasterise(textsAsPaths(svg), SPEC, [], false).pixels
    const b = rasterise(textsAsPaths(alone), SPEC, [], false).pixels
    expect(a.length).toBe(1280 * 720 * 4)
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(0)
  }, 60_000)
})

describe('a heatmap whose cells are reused', () => {
  const N = 20
  /** An N × N heatmap on a fixed grid; `item` makes each cell's datum. */
  const heatmap = (item: (x: number, y: number, v: number) => unknown): ChartOption =>
    ({
      animation: false,
      grid: [{ left: 40, top: 20, width: 400, height: 300, containLabel: false }],
      xAxis: [{ type: 'category', data: Array.from({ length: N }, (_, i) => String(i)) }],
      yAxis: [{ type: 'category', data: Array.from({ length: N }, (_, i) => String(i)) }],
      visualMap: [{ show: false, min: 0, max: 1, inRange: { color: ['#2166ac', '#f7f7f7', '#b2182b'] } }],
      series: [
        {
          type: 'heatmap',
          data: Array.from({ length: N * N }, (_, k) => item(k % N, Math.floor(k / N), ((k * 37) % 101) / 100)),
          progressive: 0,
          itemStyle: { borderWidth: 0 },
        },
      ],
    }) as ChartOption

  it('takes each frame its own opacities: some cells whole (no fill-opacity), some arrays, some faded', () => {
    const { draw, drawn } = counting()
    const fast = frameRenderer(draw)
    for (let f = 0; f < 5; f++) {
      const option = heatmap((x, y, v) =>
        y === f ? [x, y, v] : { value: [x, y, v], itemStyle: { opacity: y === f + 1 ? 1 : 0.2 + (0.05 * ((x + f) % 7)) / 3 } },
      )
      expect(sameIds(fast(option, 480, 360))).toBe(sameIds(plain(option, 480, 360)))
    }
    expect(drawn.map((d) => d[0])).toEqual([N * N, N * N, 1, 1, 1])
  })

  it('is drawn whole every frame where its values change, or a cell carries more than an opacity', () => {
    for (const item of [
      (f: number) => (x: number, y: number, v: number) => ({ value: [x, y, (v + f / 10) % 1], itemStyle: { opacity: 0.5 } }),
      () => (x: number, y: number, v: number) => ({ value: [x, y, v], itemStyle: { opacity: 0.5, borderColor: '#000', borderWidth: 1 } }),
    ]) {
      const { draw, drawn } = counting()
      const fast = frameRenderer(draw)
      for (let f = 0; f < 4; f++) {
        const option = heatmap(item(f))
        expect(sameIds(fast(option, 480, 360))).toBe(sameIds(plain(option, 480, 360)))
      }
      expect(drawn.map((d) => d[0])).toEqual([N * N, N * N, N * N, N * N])
    }
  })
})
