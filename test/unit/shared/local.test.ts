import { afterAll, describe, expect, it } from 'vitest'
import {
  buildPositionPlotOption,
  buildSpotlightOption,
  inWindow,
  POSITION_SERIES,
  positionExtent,
  SPOTLIGHT_SERIES,
  windowArea,
  type SpotlightInput,
} from '../../../src/shared/charts/local'
import { buildPositionsAcross } from '../../../src/shared/charts/positions-across'
import { estimateWidth, INKS, type Frame } from '../../../src/shared/charts/frame'
import { diagonalAt, meanDistanceFromDiagonal } from '../../../src/shared/attention/diagonal'
import { InferenceService } from '../../../src/engine/service'
import { tiny } from '../../helpers'

type Series = {
  id: string
  name: string
  type: string
  xAxisIndex?: number
  data: unknown[]
  stack?: string
  markArea?: { data: [{ xAxis: number }, { xAxis: number }][] }
  markLine?: { data: { xAxis: number }[]; label: { formatter: string } }
  symbolSize?: number
}
type Axis = { type: string; data?: string[]; min?: number; max?: number; show?: boolean; axisLabel?: { formatter: (v: never) => string } }
type Option = { series: Series[]; xAxis: Axis[] | Axis; yAxis: Axis; legend: { data: string[] } }

const seriesOf = (o: Record<string, unknown>, id: string) => (o as Option).series.find((s) => s.id === id)!

/** A local-p step computed the way the model does: softmax inside the window times a Gaussian. */
function localStep(p: number, D: number, scores: number[]): Omit<SpotlightInput, 'srcTokens' | 'windowD'> {
  const win: [number, number] = [p - D, p + D]
  const inside = scores.map((_, s) => inWindow(s, win))
  const z = scores.reduce((a, e, s) => a + (inside[s] ? Math.exp(e) : 0), 0)
  const align = scores.map((e, s) => (inside[s] ? Math.exp(e) / z : 0))
  const sigma = D / 2
  const gaussian = scores.map((_, s) => Math.exp(-((s - p) ** 2) / (2 * sigma * sigma)))
  return { align, gaussian, attention: align.map((a, s) => a * gaussian[s]), position: p, window: win, kind: 'predictive' }
}

const SRC = ['a', 'dog', 'runs', 'on', 'the', 'grass', '.', 'the', '</s>']
const S = SRC.length

describe('spotlight option', () => {
  const step = localStep(3.4, 2, [0.1, 0.5, 1.2, 2, 0.3, -0.4, 0.9, 0.2, -1])
  const o = buildSpotlightOption({ srcTokens: SRC, windowD: 2, ...step })

  it('draws three series of S points each: softmax, Gaussian and their product', () => {
    for (const id of [SPOTLIGHT_SERIES.align, SPOTLIGHT_SERIES.gaussian, SPOTLIGHT_SERIES.weights]) expect(seriesOf(o, id).data).toHaveLength(S)
    expect(seriesOf(o, SPOTLIGHT_SERIES.align).type).toBe('bar')
    expect(seriesOf(o, SPOTLIGHT_SERIES.gaussian).type).toBe('line')
    expect(seriesOf(o, SPOTLIGHT_SERIES.weights).type).toBe('bar')
    expect(seriesOf(o, SPOTLIGHT_SERIES.align).data).toEqual(step.align)
    expect(seriesOf(o, SPOTLIGHT_SERIES.gaussian).data).toEqual(step.gaussian)
  })

  it('each series draws its own input: the bars of the final weights are the attention row as given, not recomputed', () => {
    // Three rows that differ everywhere inside the window, so a swapped or recomputed series shows.
    const attention = step.attention.map((a, s) => (a > 0 ? a * 0.5 + 0.01 * s : 0))
    const drawn = buildSpotlightOption({ srcTokens: SRC, windowD: 2, ...step, attention })
    expect(seriesOf(drawn, SPOTLIGHT_SERIES.weights).data).toEqual(attention)
    expect(seriesOf(drawn, SPOTLIGHT_SERIES.align).data).toEqual(step.align)
    expect(seriesOf(drawn, SPOTLIGHT_SERIES.gaussian).data).toEqual(step.gaussian)
    // Source positions past the end of a row are drawn as 0, not left out.
    const short = buildSpotlightOption({ srcTokens: SRC, windowD: 2, ...step, attention: attention.slice(0, 3) })
    expect(seriesOf(short, SPOTLIGHT_SERIES.weights).data).toEqual([...attention.slice(0, 3), ...Array(S - 3).fill(0)])
  })

  it('the markArea covers exactly [p_t-D, p_t+D] and the markLine sits at p_t, on a value axis aligned with the tokens', () => {
    const marker = seriesOf(o, SPOTLIGHT_SERIES.window)
    expect(marker.data).toEqual([])
    const [[from, to]] = marker.markArea!.data
    expect([from.xAxis, to.xAxis]).toEqual([3.4 - 2, 3.4 + 2])
    expect(marker.markLine!.data).toEqual([{ xAxis: 3.4 }])
    expect(marker.markLine!.label.formatter).toBe('pₜ = 3.40')
    const axes = (o as Option).xAxis as Axis[]
    // Category centres sit at s on an axis running -0.5 … S-0.5.
    expect(axes[marker.xAxisIndex!]).toMatchObject({ type: 'value', min: -0.5, max: S - 0.5 })
    expect(axes[0].data).toEqual(SRC.map((_, i) => String(i)))
    expect(axes[seriesOf(o, SPOTLIGHT_SERIES.weights).xAxisIndex!].data).toEqual(axes[0].data)
  })

  it('token labels keep repeated tokens distinct and mark the tokens inside the window', () => {
    const axis = ((o as Option).xAxis as Axis[])[0]
    const label = axis.axisLabel!.formatter as unknown as (v: string) => string
    expect(label('4')).toBe('{in|the}')
    expect(label('7')).toBe('{out|the}')
    expect(label('0')).toBe('{out|a}')
  })

  it('clips a window reaching past the sentence to what the chart shows', () => {
    expect(windowArea([-2.5, 5.5], S)).toEqual([-0.5, 5.5])
    expect(windowArea([6, 14], S)).toEqual([6, S - 0.5])
    const edge = buildSpotlightOption({ srcTokens: SRC, windowD: 4, ...localStep(8.7, 4, Array(S).fill(0)) })
    const m = seriesOf(edge, SPOTLIGHT_SERIES.window)
    expect(m.markArea!.data[0].map((d) => d.xAxis)).toEqual([8.7 - 4, S - 0.5])
    expect(m.markLine!.data[0].xAxis).toBe(S - 0.5)
    expect(m.markLine!.label.formatter).toBe('pₜ = 8.70')
  })

  it('uses the given (translated) names in the legend', () => {
    const zh = buildSpotlightOption({ srcTokens: SRC, windowD: 2, ...step, labels: { align: '窗口内 softmax', gaussian: '高斯系数', weights: '最终权重' } })
    expect((zh as Option).legend.data).toEqual(['窗口内 softmax', '高斯系数', '最终权重'])
    expect(seriesOf(zh, SPOTLIGHT_SERIES.align).name).toBe('窗口内 softmax')
  })

  it('local-m draws its box factor as steps, local-p its Gaussian as a curve', () => {
    const box = buildSpotlightOption({ srcTokens: SRC, windowD: 2, ...step, kind: 'monotonic' })
    expect(seriesOf(box, SPOTLIGHT_SERIES.gaussian)).toMatchObject({ step: 'middle', smooth: false })
    expect(seriesOf(o, SPOTLIGHT_SERIES.gaussian)).toMatchObject({ step: false })
  })
})

describe('position plot option', () => {
  const TGT = ['un', 'chien', 'court', 'sur', "l'", 'herbe', '.', '</s>']
  const T = TGT.length
  const positions = [0.2, 1.4, 2.1, 3.3, 4.6, 5.2, 6.9, 8.6]
  const windows = positions.map((p): [number, number] => [p - 2, p + 2])
  const o = buildPositionPlotOption({ srcTokens: SRC, tgtTokens: TGT, positions, windows, selected: 2 })

  it('has one p_t point per output step and the diagonal from (0,0) to (T-1, S-1)', () => {
    const p = seriesOf(o, POSITION_SERIES.positions)
    expect(p.data).toHaveLength(T)
    expect(p.data.map((d) => (typeof d === 'number' ? d : (d as { value: number }).value))).toEqual(positions)
    expect(seriesOf(o, POSITION_SERIES.diagonal).data).toEqual([
      [0, 0],
      [T - 1, S - 1],
    ])
    expect(((o as Option).xAxis as Axis).data).toEqual(TGT.map((_, i) => String(i)))
  })

  it('shades the window band [p_t-D, p_t+D] as a stack of lower edge plus width, clipped to the axis', () => {
    const low = seriesOf(o, POSITION_SERIES.low).data as number[]
    const width = seriesOf(o, POSITION_SERIES.band).data as number[]
    const [y0, y1] = positionExtent(positions, S)
    expect(seriesOf(o, POSITION_SERIES.low).stack).toBe(seriesOf(o, POSITION_SERIES.band).stack)
    expect((o as Option).yAxis).toMatchObject({ min: y0, max: y1 })
    windows.forEach(([lo, hi], t) => {
      expect(low[t]).toBeCloseTo(Math.max(lo, y0), 10)
      expect(low[t] + width[t]).toBeCloseTo(Math.min(hi, y1), 10)
    })
    // A middle window is not clipped at all.
    expect(low[3]).toBeCloseTo(1.3, 10)
    expect(low[3] + width[3]).toBeCloseTo(5.3, 10)
  })

  it('the y range holds every source position and every p_t, even one past the last token', () => {
    expect(positionExtent(positions, S)).toEqual([-1, S])
    expect(positionExtent([1, 2, 9.2], S)).toEqual([-1, 10])
    expect(positionExtent([1, 2], S)).toEqual([-1, S])
  })

  it('marks the selected step and labels source positions with their tokens', () => {
    const p = seriesOf(o, POSITION_SERIES.positions)
    expect(p.data[2]).toMatchObject({ value: 2.1, symbolSize: 15 })
    expect(p.data.filter((d) => typeof d === 'object')).toHaveLength(1)
    const y = (o as Option).yAxis.axisLabel!.formatter as unknown as (v: number) => string
    expect([y(0), y(4), y(7), y(-1), y(9)]).toEqual(['a', 'the', 'the', '', ''])
  })

  it('measures the distance from the diagonal', () => {
    expect(diagonalAt(0, 5, 9)).toBe(0)
    expect(diagonalAt(4, 5, 9)).toBe(8)
    expect(meanDistanceFromDiagonal([0, 2, 4, 6, 8], 9)).toBe(0)
    expect(meanDistanceFromDiagonal([1, 2, 4, 6, 7], 9)).toBeCloseTo(0.4, 12)
  })
})

describe('with a real local-p translation', () => {
  const service = new InferenceService()
  afterAll(() => service.closeAll())

  it("the model's weights are the in-window softmax of its scores times exp(-(s-p_t)²/(2σ²)), σ = D/2, and both charts draw them", async () => {
    const path = tiny('local-p')
    const D = (await service.open(path)).windowD
    expect(D).toBe(4)
    const sigma = D / 2
    const t = await service.translate(path, 'A dog runs on the grass.')
    const T = t.tgtTokens.length
    const S = t.srcTokens.length
    for (let step = 0; step < T; step++) {
      const p = t.positions![step]
      expect(t.windows![step][0]).toBeCloseTo(p - D, 5)
      expect(t.windows![step][1]).toBeCloseTo(p + D, 5)
      // Worked out here from p_t, D and the raw scores alone, not from the model's align/gaussian.
      const gaussian = t.srcTokens.map((_, s) => Math.exp(-((s - p) ** 2) / (2 * sigma * sigma)))
      const inside = t.srcTokens.map((_, s) => Math.abs(s - p) <= D)
      const z = t.scores[step].reduce((a, e, s) => a + (inside[s] ? Math.exp(e) : 0), 0)
      const align = t.scores[step].map((e, s) => (inside[s] ? Math.exp(e) / z : 0))
      t.gaussian![step].forEach((g, s) => expect(g).toBeCloseTo(gaussian[s], 5))
      t.align![step].forEach((a, s) => expect(a).toBeCloseTo(align[s], 5))
      t.attention[step].forEach((a, s) => expect(a).toBeCloseTo(align[s] * gaussian[s], 5))

      const o = buildSpotlightOption({
        srcTokens: t.srcTokens,
        align: t.align![step],
        gaussian: t.gaussian![step],
        attention: t.attention[step],
        position: p,
        window: t.windows![step],
        windowD: D,
        kind: 'predictive',
      })
      const w = seriesOf(o, SPOTLIGHT_SERIES.weights).data as number[]
      expect(w).toHaveLength(S)
      w.forEach((v, s) => expect(v).toBeCloseTo(align[s] * gaussian[s], 5))
      const area = seriesOf(o, SPOTLIGHT_SERIES.window).markArea!.data[0].map((d) => d.xAxis)
      expect(area).toEqual(windowArea(t.windows![step], S))
    }
    const plot = buildPositionPlotOption({ srcTokens: t.srcTokens, tgtTokens: t.tgtTokens, positions: t.positions!, windows: t.windows! })
    const drawn = seriesOf(plot, POSITION_SERIES.positions).data.map((d) => (typeof d === 'number' ? d : (d as { value: number }).value))
    expect(drawn).toEqual(t.positions)
  })
})

describe('the p_t plot on a slide (issue 40 #2: markers seen from the back)', () => {
  const TGT = ['un', 'chien', 'court', 'sur', "l'", 'herbe', '.', '</s>']
  const positions = [0.2, 1.4, 2.1, 3.3, 4.6, 5.2, 6.9, 8.6]
  const windows = positions.map((p): [number, number] => [p - 2, p + 2])
  const frame = (least?: number): Frame => ({
    x: 0,
    y: 0,
    width: 1280,
    height: 720,
    fontSize: 12,
    measure: estimateWidth,
    lang: 'en',
    ink: INKS.light,
    highlightRow: null,
    ...(least === undefined ? {} : { least }),
  })
  const dots = (least: number | undefined, across: boolean) => {
    const input = { srcTokens: SRC, tgtTokens: TGT, positions, windows, selected: 2 }
    const o = (across ? buildPositionsAcross(input, frame(least)) : buildPositionPlotOption({ ...input, frame: frame(least) })) as Option
    const s = seriesOf(o, POSITION_SERIES.positions)
    const sizes = s.data.map((d) => (typeof d === 'object' && d && 'symbolSize' in d ? (d as { symbolSize: number }).symbolSize : s.symbolSize!))
    return { plain: s.symbolSize!, least: Math.min(...sizes) }
  }

  it.each([false, true])('each p_t dot is 0.65 of the slide floor or more (12 px at 720 px of height), either layout (across: %s)', (across) => {
    // 18.7 px at 720 px of height, 28.05 at 1080: the dots at 12.2 and 18.2 px.
    for (const floor of [18.7, 28.05]) expect(dots(floor, across).least).toBeGreaterThanOrEqual(floor * 0.65 - 1e-9)
    // Off a slide (no floor) the page's figure keeps its own size: 0.45 of its 12 pt text.
    expect(dots(undefined, across).plain).toBeCloseTo(5.4, 6)
  })
})
