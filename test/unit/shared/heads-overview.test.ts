import { describe, expect, it } from 'vitest'
import { buildHeadsOverviewOption, headOfOverviewCell, overviewValues } from '../../../src/shared/charts/heads-overview'
import { estimateWidth, INKS, type Frame } from '../../../src/shared/charts/frame'

// The heads overview (issue 39 #6): one number per head for models with many heads.
const frame = (width: number, height: number): Frame => ({
  x: 0,
  y: 0,
  width,
  height,
  fontSize: 12,
  measure: estimateWidth,
  lang: 'en',
  ink: INKS.light,
  highlightRow: null,
})

/** A [T][L][H][S] cross-attention: head (l, h) one-hot on source position (l + h) % S at every step, except head (0, 0), uniform. */
function cross(T: number, L: number, H: number, S: number): number[][][][] {
  return Array.from({ length: T }, () =>
    Array.from({ length: L }, (_, l) =>
      Array.from({ length: H }, (_, h) => Array.from({ length: S }, (_, s) => (l === 0 && h === 0 ? 1 / S : s === (l + h) % S ? 1 : 0))),
    ),
  )
}

describe('heads overview', () => {
  it('entropy: log2 S bits for a uniform head, 0 for a one-hot one; diagonality of a head that always reads position 0', () => {
    const c = cross(4, 12, 16, 8)
    const e = overviewValues(c, 'entropy')
    expect(e).toHaveLength(12)
    expect(e[0]).toHaveLength(16)
    expect(e[0][0]).toBeCloseTo(3, 12)
    expect(e[5][7]).toBe(0)
    // Head (0, 1) reads source position 1 at each of 4 steps; the diagonal t·7/3 is 0, 2.33, 4.67, 7: within ±1 only at t = 0.
    const d = overviewValues(c, 'diagonality')
    expect(d[0][1]).toBeCloseTo(1 / 4, 12)
  })

  it('draws one cell per head and names the clicked one', () => {
    const values = overviewValues(cross(3, 12, 16, 6), 'entropy')
    const o = buildHeadsOverviewOption({
      values,
      metric: 'entropy',
      metricName: 'entropy (bits)',
      names: { layer: 'layer', head: 'head', cell: (l, h) => `layer ${l}, head ${h}` },
      selected: { layer: 2, head: 3 },
      colormap: 'viridis',
      frame: frame(900, 400),
    })
    const series = (Array.isArray(o.series) ? o.series : [o.series])[0] as { data: { value: number[] }[] }
    expect(series.data).toHaveLength(192)
    expect(series.data[2 * 16 + 3].value).toEqual([3, 2, values[2][3]])
    expect(o.cramped).toBe(false)
    expect(headOfOverviewCell({ seriesId: 'heads-overview', value: [15, 11, 0.2] })).toEqual({ layer: 11, head: 15 })
    expect(headOfOverviewCell({ seriesId: 'other', value: [1, 1, 0] })).toBeNull()
    // Too small a box for 12 rows: cramped, so the fitter takes a taller one.
    const small = buildHeadsOverviewOption({
      values,
      metric: 'entropy',
      metricName: 'entropy (bits)',
      names: { layer: 'layer', head: 'head', cell: (l, h) => `${l}:${h}` },
      selected: null,
      colormap: 'viridis',
      frame: frame(900, 100),
    })
    expect(small.cramped).toBe(true)
  })

  it('heads that differ below the printed digits share one colour: the key spans ten printed steps at least', () => {
    // Near-uniform heads (random weights): every cell prints 3.42.
    const values = Array.from({ length: 12 }, (_, l) => Array.from({ length: 16 }, (_, h) => 3.42 + ((l * 16 + h) % 7) * 1e-4))
    const draw = (v: number[][]) =>
      buildHeadsOverviewOption({
        values: v,
        metric: 'entropy',
        metricName: 'entropy (bits)',
        names: { layer: 'layer', head: 'head', cell: (l, h) => `${l}:${h}` },
        selected: null,
        colormap: 'viridis',
        frame: frame(900, 400),
      }) as unknown as { visualMap: { min: number; max: number; text: string[] } }
    const flat = draw(values).visualMap
    expect(flat.max - flat.min).toBeCloseTo(0.1, 9)
    expect(flat.text).toEqual(['3.47', '3.37'])
    // A real spread keeps its own ends.
    const spread = draw(values.map((r, l) => r.map((v) => v + l * 0.1))).visualMap
    expect([spread.min, spread.max]).toEqual([Math.min(...values.flat()), Math.max(...values.map((r, l) => r.map((v) => v + l * 0.1)).flat())])
  })
})
