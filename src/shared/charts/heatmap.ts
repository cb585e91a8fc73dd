import { COLORMAPS, type ColormapName } from './colormaps'

export interface HeatmapInput {
  srcTokens: string[]
  tgtTokens: string[]
  /** attention[t][s] */
  attention: number[][]
  selectedRow?: number | null
  selectedCol?: number | null
  colormap?: ColormapName
  title?: string
}

const DIM = 0.3

function escape(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
}

/**
 * The alignment heatmap as a plain ECharts option: target tokens are rows (top to bottom),
 * source tokens are columns (read left to right, labelled on top). Used by the renderer and
 * by the command-line exporter, so both draw the same figure.
 */
export function buildHeatmapOption(input: HeatmapInput): Record<string, unknown> {
  const { srcTokens, tgtTokens, attention } = input
  const row = input.selectedRow ?? null
  const col = input.selectedCol ?? null
  const data: unknown[] = []
  for (let t = 0; t < tgtTokens.length; t++) {
    for (let s = 0; s < srcTokens.length; s++) {
      const v = attention[t]?.[s] ?? 0
      const lit = (row === null && col === null) || t === row || s === col
      data.push(lit ? [s, t, v] : { value: [s, t, v], itemStyle: { opacity: DIM } })
    }
  }
  // Categories are indices, so repeated tokens stay distinct and a click names its position.
  const label = (tokens: string[], selected: number | null) => (value: string) => {
    const i = Number(value)
    return i === selected ? `{sel|${tokens[i]}}` : tokens[i]
  }
  const indices = (n: number) => Array.from({ length: n }, (_, i) => String(i))
  const rich = { sel: { fontWeight: 'bold', color: '#c2410c' } }
  return {
    animation: false,
    title: input.title ? { text: input.title, left: 'center' } : undefined,
    grid: { left: 8, right: 72, top: 64, bottom: 8, containLabel: true },
    tooltip: {
      position: 'top',
      formatter: (p: { value: [number, number, number] }) => {
        const [s, t, v] = p.value
        return `${escape(tgtTokens[t])} ← ${escape(srcTokens[s])}<br/><b>${v.toFixed(3)}</b>`
      },
    },
    xAxis: {
      type: 'category',
      position: 'top',
      data: indices(srcTokens.length),
      triggerEvent: true,
      splitArea: { show: false },
      axisTick: { show: false },
      axisLabel: { rotate: srcTokens.length > 12 ? 45 : 0, interval: 0, formatter: label(srcTokens, col), rich, fontSize: 13 },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: indices(tgtTokens.length),
      triggerEvent: true,
      axisTick: { show: false },
      axisLabel: { interval: 0, formatter: label(tgtTokens, row), rich, fontSize: 13 },
    },
    visualMap: {
      min: 0,
      max: 1,
      calculable: false,
      orient: 'vertical',
      right: 8,
      top: 'middle',
      itemHeight: 160,
      precision: 2,
      text: ['1', '0'],
      inRange: { color: [...COLORMAPS[input.colormap ?? 'viridis']] },
    },
    series: [
      {
        type: 'heatmap',
        data,
        progressive: 2000,
        emphasis: { itemStyle: { borderColor: '#f97316', borderWidth: 2 } },
        itemStyle: { borderColor: 'rgba(255,255,255,0.6)', borderWidth: 0.5 },
      },
    ],
  }
}
