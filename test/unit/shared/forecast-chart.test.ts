import { describe, expect, it } from 'vitest'
import type { ForecastResult } from '../../../src/shared/api'
import { buildForecastOption, columnAtLag, lagOf, timeLabel } from '../../../src/shared/charts/forecast'

const H = 384
const T = 48
const iso = (i: number) => new Date(Date.UTC(2000, 7, 6) + i * 1_800_000).toISOString().slice(0, 19) + 'Z'

function result(local = false): ForecastResult {
  // Each step looks at the same time last week: a one-hot row at lag 336.
  const attention = Array.from({ length: T }, (_, t) => Array.from({ length: H }, (_, j) => (j === columnAtLag(H, t, 336) ? 1 : 0)))
  return {
    modelId: 'm',
    historyTimes: Array.from({ length: H }, (_, j) => iso(j)),
    history: Array.from({ length: H }, (_, j) => 30000 + j),
    times: Array.from({ length: T }, (_, t) => iso(H + t)),
    forecast: Array.from({ length: T }, (_, t) => 31000 + t),
    actual: Array.from({ length: T }, (_, t) => 31010 + t),
    seasonalNaive: Array.from({ length: T }, (_, t) => 30000 + t + 48),
    attention,
    scores: attention,
    positions: local ? Array.from({ length: T }, (_, t) => 48 + t) : null,
    windows: local ? Array.from({ length: T }, (_, t) => [24 + t, 72 + t] as [number, number]) : null,
    gaussian: null,
    align: null,
    mae: 10,
    mape: 0.03,
    naiveMae: 900,
    naiveMape: 3,
    unit: 'MW',
    periodMinutes: 30,
    seasonalLags: [48, 336],
    decodeMs: 1,
    provider: 'cpu',
  }
}

type Opt = {
  grid: { left: number; right: number }[]
  xAxis: { data: string[] }[]
  yAxis: { data?: string[] }[]
  series: { type: string; data: unknown[]; markLine?: { data: unknown[] }; markArea?: { data: unknown[] } }[]
}

describe('forecast figure', () => {
  it('heatmap of 48 forecast steps × 384 history steps under the series, sharing its horizontal scale', () => {
    const o = buildForecastOption({ result: result(), width: 1000 }) as unknown as Opt
    expect(o.yAxis[2].data).toHaveLength(48)
    expect(o.xAxis[1].data).toHaveLength(384)
    expect(o.xAxis[0].data).toHaveLength(432)
    const heat = o.series.find((s) => s.type === 'heatmap')!
    expect(heat.data).toHaveLength(48 * 384)
    // The heatmap's right edge sits under the origin: 48 of 432 columns to the right of it.
    const plot = 1000 - o.grid[0].left - o.grid[0].right
    expect(o.grid[1].left).toBe(o.grid[0].left)
    expect(o.grid[1].right - o.grid[0].right).toBeCloseTo((plot * 48) / 432, 6)
  })

  it('guides: vertical lines at lags 48 and 336 from the origin, and the exact lag of every step', () => {
    const o = buildForecastOption({ result: result(), width: 1000 }) as unknown as Opt
    const marks = o.series.find((s) => s.type === 'heatmap')!.markLine!.data as ({ xAxis?: string; name?: string } | { coord: string[] }[])[]
    const vertical = marks.filter((m) => !Array.isArray(m)) as { xAxis: string; name: string }[]
    expect(vertical.map((m) => [m.xAxis, m.name])).toEqual([
      ['336', 'lag 48 · 1 day'],
      ['48', 'lag 336 · 1 week'],
    ])
    const slanted = marks.filter(Array.isArray) as { coord: string[] }[][]
    // Lag 48 from step 0 (column 336) to step 47 (column 383); lag 336 from column 48 to 95.
    expect(slanted.map((l) => [l[0].coord, l[1].coord])).toEqual([
      [
        ['336', '0'],
        ['383', '47'],
      ],
      [
        ['48', '0'],
        ['95', '47'],
      ],
    ])
    expect(lagOf(H, 47, 95)).toBe(336)
  })

  it('a selected step draws its attention over the history and marks its lags; other rows dim', () => {
    const o = buildForecastOption({ result: result(true), width: 1000, selectedStep: 5 }) as unknown as Opt
    const bars = o.series.find((s) => s.type === 'bar')!.data
    expect(bars.filter((v) => v !== null)).toHaveLength(384)
    expect(bars[columnAtLag(H, 5, 336)!]).toBe(1)
    const heat = o.series.find((s) => s.type === 'heatmap')!.data as (number[] | { value: number[] })[]
    expect(heat.filter((c) => !Array.isArray(c))).toHaveLength(47 * 384)
    const line = o.series.find((s) => s.type === 'line')!
    const xs = (line.markLine!.data as { xAxis: string }[]).map((m) => m.xAxis)
    expect(xs).toEqual(['384', String(5 + 336), String(5 + 48), String(384 + 5)])
    // local-p: the window of the selected step is shaded on the series.
    expect(line.markArea!.data).toEqual([[{ xAxis: '29', itemStyle: { color: 'rgba(14,165,233,0.12)' } }, { xAxis: '77' }]])
  })

  it('guide and baseline names follow the series period', () => {
    const hourly = { ...result(), periodMinutes: 60, seasonalLags: [24, 168] }
    const o = buildForecastOption({ result: hourly, width: 1000 }) as unknown as Opt & { legend: { data: string[] } }
    const names = (o.series.find((s) => s.type === 'heatmap')!.markLine!.data as { name?: string }[]).filter((m) => m.name).map((m) => m.name)
    expect(names).toEqual(['lag 24 · 1 day', 'lag 168 · 1 week'])
    expect(o.legend.data).toContain('same time last week')
    const odd = buildForecastOption({ result: { ...result(), unit: '<b>MW</b>' }, width: 1000 }) as unknown as Opt
    const tip = (odd.series[1] as unknown as { tooltip: { formatter: (p: { dataIndex: number; value: number }) => string } }).tooltip.formatter({
      dataIndex: 390,
      value: 1,
    })
    expect(tip).toContain('&lt;b&gt;MW&lt;/b&gt;')
  })

  it('labels days and times as written', () => {
    expect(timeLabel('2000-08-14T00:00:00Z', true)).toBe('Mon 14 Aug')
    expect(timeLabel('2000-08-14T13:30:00Z', true)).toBe('Mon 14 Aug 13:30')
    expect(timeLabel('2000-08-14T13:30:00Z', false)).toBe('13:30')
  })
})
