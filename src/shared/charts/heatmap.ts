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
  /** Local attention: p_t and the window [p_t-D, p_t+D] of every output step. */
  positions?: number[] | null
  windows?: [number, number][] | null
}

/** The cells a local window covers: whole source positions inside [p_t-D, p_t+D]. */
export function windowCells(win: [number, number], S: number): [number, number] {
  return [Math.max(0, Math.ceil(win[0] - 1e-6)), Math.min(S - 1, Math.floor(win[1] + 1e-6))]
}

interface RenderApi {
  value(i: number): number
  coord(v: [number, number]): [number, number]
  size(v: [number, number]): [number, number]
}

/** A custom series drawing, per output row, the window outline and a marker at p_t. */
function localOverlay(positions: number[], windows: [number, number][], S: number): Record<string, unknown> {
  return {
    type: 'custom',
    name: 'local window',
    silent: true,
    z: 10,
    data: positions.map((p, t) => {
      const [lo, hi] = windowCells(windows[t], S)
      return [t, p, lo, hi]
    }),
    renderItem: (_params: unknown, api: RenderApi) => {
      // A category axis snaps values to cell centres, so place fractional positions by hand.
      const t = api.value(0)
      const [c0, yc] = api.coord([0, t])
      const [w, h] = api.size([1, 1])
      const x = (v: number) => c0 + v * w
      const x0 = x(api.value(2) - 0.5)
      const x1 = x(api.value(3) + 0.5)
      const xp = x(api.value(1))
      return {
        type: 'group',
        children: [
          { type: 'rect', shape: { x: x0 + 1, y: yc - h / 2 + 1, width: x1 - x0 - 2, height: h - 2 }, style: { fill: 'none', stroke: '#f97316', lineWidth: 2 } },
          { type: 'circle', shape: { cx: xp, cy: yc, r: Math.max(2.5, Math.min(6, h / 5)) }, style: { fill: '#ffffff', stroke: '#111827', lineWidth: 1.5 } },
        ],
      }
    },
  }
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
      ...(input.positions && input.windows ? [localOverlay(input.positions, input.windows, srcTokens.length)] : []),
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
