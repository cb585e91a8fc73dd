import { describe, expect, it } from 'vitest'
import {
  buildContextOption,
  buildGaussianOption,
  buildScoresOption,
  buildWeightsOption,
  contextLayout,
  contextVector,
  gaussianCurve,
  softmax,
  usedRange,
} from '../../../src/shared/charts/step'

const SRC = ['a', 'dog', 'and', 'a', 'cat', '.', '</s>']
const S = SRC.length

type Series = { id?: string; type: string; data: unknown[]; markArea?: { data: unknown[][] }; xAxisIndex?: number }
type Opt = {
  series: Series[]
  xAxis: { type: string; data?: string[]; axisLabel?: { formatter?: (v: string) => string } }[]
  yAxis: unknown
  animation: boolean
  grid: unknown
}
const series = (o: Record<string, unknown>, id: string) => (o as unknown as Opt).series.find((s) => s.id === id)!
const value = (x: unknown) => (typeof x === 'number' ? x : (x as { value: number }).value)

function states(rows: number, dims: number): number[][] {
  return Array.from({ length: rows }, (_, j) => Array.from({ length: dims }, (_, d) => Math.sin(1 + j * 7 + d * 3)))
}

describe('softmax and the context vector', () => {
  it('softmax is positive, sums to 1 and survives large scores', () => {
    const w = softmax([1000, 999, -1000, 0])
    expect(w.every((x) => x >= 0)).toBe(true)
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    expect(w[0] / w[1]).toBeCloseTo(Math.E, 9)
    expect(softmax([])).toEqual([])
  })

  it('contextVector is Σ_j α_j h_j over the first dims dimensions', () => {
    const H = states(S, 10)
    const a = softmax(SRC.map((_, j) => j * 0.3 - 1))
    const c = contextVector(a, H, 6)
    expect(c).toHaveLength(6)
    for (let d = 0; d < 6; d++) {
      let sum = 0
      for (let j = 0; j < S; j++) sum += a[j] * H[j][d]
      expect(c[d]).toBeCloseTo(sum, 12)
    }
  })

  it('a one-hot weight picks out that encoder state; zero weights give a zero vector', () => {
    const H = states(S, 8)
    const onehot = SRC.map((_, j) => (j === 4 ? 1 : 0))
    expect(contextVector(onehot, H, 8)).toEqual(H[4])
    expect(
      contextVector(
        SRC.map(() => 0),
        H,
        8,
      ),
    ).toEqual(new Array(8).fill(0))
  })

  it('dims is capped at the state width, and missing rows count as zeros', () => {
    expect(contextVector([0.5, 0.5], [[2, 4]], 48)).toEqual([1, 2])
    expect(contextVector([1], [], 48)).toEqual([])
  })

  it('the used range is the window for local models and everything otherwise', () => {
    expect(usedRange(S, null)).toEqual([0, S - 1])
    expect(usedRange(S, [-1.5, 2.5])).toEqual([0, 2])
    expect(usedRange(S, [3.2, 11.2])).toEqual([4, S - 1])
  })

  it('the Gaussian curve peaks at p with σ = D/2 read from the window', () => {
    const p = 2.3
    const D = 4
    const curve = gaussianCurve(p, [p - D, p + D], S)
    expect(curve[0][0]).toBeCloseTo(-0.5)
    expect(curve.at(-1)![0]).toBeCloseTo(S - 0.5)
    const peak = curve.reduce((best, pt) => (pt[1] > best[1] ? pt : best))
    expect(Math.abs(peak[0] - p)).toBeLessThan(S / curve.length + 1e-9)
    const sigma = D / 2
    for (const [x, g] of curve) expect(g).toBeCloseTo(Math.exp(-((x - p) ** 2) / (2 * sigma * sigma)), 12)
  })
})

describe('the step-through chart builders', () => {
  const scores = [2.5, -31.2, 0.4, 7, -0.3, 120, -5]
  const weights = softmax(scores)

  it('scores: one bar per source token with the raw values, token categories as indices, no animation', () => {
    const o = buildScoresOption({ srcTokens: SRC, scores }) as unknown as Opt & Record<string, unknown>
    const bars = series(o, 'scores')
    expect(bars.type).toBe('bar')
    expect(bars.data.map(value)).toEqual(scores)
    expect(o.xAxis[0].data).toEqual(SRC.map((_, i) => String(i)))
    // Repeated tokens ('a' twice) stay distinct categories, each labelled with its token.
    expect(o.xAxis[0].axisLabel!.formatter!('3')).toBe('a')
    expect(o.animation).toBe(false)
    expect(bars.markArea).toBeUndefined()
  })

  it('scores for a local model shade the window, grey the bars outside it and mark p_t', () => {
    const o = buildScoresOption({ srcTokens: SRC, scores, window: [0.6, 4.6], position: 2.6 })
    const bars = series(o, 'scores')
    expect(bars.data).toHaveLength(S)
    expect(bars.markArea!.data).toEqual([[{ xAxis: '1' }, { xAxis: '4' }]])
    const colours = bars.data.map((x) => (x as { itemStyle: { color: string } }).itemStyle.color)
    expect(new Set(colours.slice(1, 5)).size).toBe(1)
    expect(colours[0]).not.toBe(colours[1])
    expect(colours[6]).toBe(colours[0])
    expect(series(o, 'position')).toBeDefined()
  })

  it('weights: one bar per source token, values as given, axis from 0', () => {
    const o = buildWeightsOption({ srcTokens: SRC, weights, selectedCol: 2 })
    const bars = series(o, 'weights')
    expect(bars.data).toHaveLength(S)
    expect(bars.data.map(value).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9)
    expect((o as unknown as { yAxis: { min: number } }).yAxis.min).toBe(0)
    // The selected source token is outlined and its label emphasised.
    expect((bars.data[2] as { itemStyle: { borderWidth?: number } }).itemStyle.borderWidth).toBeGreaterThan(0)
    expect((o as unknown as Opt).xAxis[0].axisLabel!.formatter!('2')).toBe('{sel|and}')
  })

  it('Gaussian stage: softmax bars, final bars, the Gaussian at every token and a curve on a value axis', () => {
    const align = [0, 0.2, 0.3, 0.4, 0.1, 0, 0]
    const gaussian = [0.3, 0.7, 1, 0.7, 0.3, 0.1, 0]
    const final = align.map((a, j) => a * gaussian[j])
    const o = buildGaussianOption({ srcTokens: SRC, align, gaussian, final, window: [-1.9, 6.1], position: 2.1 })
    expect(series(o, 'align').data).toEqual(align)
    expect(series(o, 'final').data.map(value)).toEqual(final)
    expect(series(o, 'gaussian').data).toEqual(gaussian.map((g, j) => [j, g]))
    const curve = series(o, 'gaussian-curve')
    expect(curve.type).toBe('line')
    expect(curve.xAxisIndex).toBe(1)
    expect((o as unknown as Opt).xAxis[1].type).toBe('value')
  })

  it('context: one weight bar and one heatmap row per source token, and c_t over the same dims', () => {
    const H = states(S, 64)
    const o = buildContextOption({ srcTokens: SRC, weights, states: H, dims: 48 })
    expect(series(o, 'alpha').data.map(value)).toEqual(weights)
    const cells = series(o, 'states').data as { value: [number, number, number]; itemStyle: { opacity: number } }[]
    expect(cells).toHaveLength(S * 48)
    expect(cells.find((c) => c.value[0] === 5 && c.value[1] === 3)!.value[2]).toBe(H[3][5])
    // Rows fade with their weight: the heaviest row is fully opaque, lighter ones less so.
    const top = weights.indexOf(Math.max(...weights))
    const opacity = (j: number) => cells.find((c) => c.value[1] === j)!.itemStyle.opacity
    expect(opacity(top)).toBeCloseTo(1)
    expect(opacity(1)).toBeLessThan(0.5)
    const ctx = series(o, 'context').data as [number, number, number][]
    expect(ctx).toHaveLength(48)
    const c = contextVector(weights, H, 48)
    ctx.forEach(([d, row, v]) => {
      expect(row).toBe(0)
      expect(v).toBeCloseTo(c[d], 12)
    })
  })

  it('context with narrow states draws only the dimensions there are', () => {
    const o = buildContextOption({ srcTokens: SRC, weights, states: states(S, 32), dims: 48 })
    expect(series(o, 'states').data).toHaveLength(S * 32)
    expect(series(o, 'context').data).toHaveLength(32)
  })

  it('the context layout grows with the sentence and keeps rows readable', () => {
    const short = contextLayout(8)
    const long = contextLayout(60)
    expect(long.height).toBeGreaterThan(short.height)
    expect(short.row).toBeGreaterThanOrEqual(16)
    expect(short.contextTop).toBe(short.top + short.statesHeight + short.gap)
  })
})
