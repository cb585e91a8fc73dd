import { COLORMAPS, colorAt, textColorOn, type ColormapName } from './colormaps'
import { pieceGroups } from './tokens'
import { escapeHtml } from './html'

export type HeatmapScale = 'linear' | 'log'
export type HeatmapNorm = 'fixed' | 'row'

export interface HeatmapStyle {
  colormap?: ColormapName
  /** Linear weights, or log10 (from 10⁻⁴ to 1) to see the small ones. */
  scale?: HeatmapScale
  /** A fixed 0–1 scale, or each row scaled to its own maximum. */
  norm?: HeatmapNorm
  /** Value labels on cells: 'auto' shows them when cells are big enough. */
  labels?: 'auto' | 'on' | 'off'
  fontSize?: number
}

export interface HeatmapInput extends HeatmapStyle {
  srcTokens: string[]
  tgtTokens: string[]
  /** attention[t][s] */
  attention: number[][]
  selectedRow?: number | null
  selectedCol?: number | null
  title?: string
  /** Local attention: p_t and the window [p_t-D, p_t+D] of every output step. */
  positions?: number[] | null
  windows?: [number, number][] | null
}

const DIM = 0.3
export const LOG_FLOOR = -4

/** The cells a local window covers: whole source positions inside [p_t-D, p_t+D]. */
export function windowCells(win: [number, number], S: number): [number, number] {
  return [Math.max(0, Math.ceil(win[0] - 1e-6)), Math.min(S - 1, Math.floor(win[1] + 1e-6))]
}

/** The value a cell is coloured by, in [0, 1], given the scale and normalisation. */
export function displayValue(w: number, rowMax: number, style: HeatmapStyle): number {
  const v = style.norm === 'row' && rowMax > 0 ? w / rowMax : w
  if (style.scale === 'log') return (Math.max(LOG_FLOOR, Math.log10(Math.max(v, 1e-12))) - LOG_FLOOR) / -LOG_FLOOR
  return v
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

/**
 * The alignment heatmap as a plain ECharts option: target tokens are rows (top to bottom),
 * source tokens are columns (read left to right, labelled on top). Used by the renderer and
 * by the command-line exporter, so both draw the same figure.
 */
export function buildHeatmapOption(input: HeatmapInput): Record<string, unknown> {
  const { srcTokens, tgtTokens, attention } = input
  const S = srcTokens.length
  const T = tgtTokens.length
  const row = input.selectedRow ?? null
  const col = input.selectedCol ?? null
  const cmap = input.colormap ?? 'viridis'
  const fontSize = input.fontSize ?? 13
  const showLabels = input.labels === 'on' || (input.labels !== 'off' && S <= 18 && T <= 24)
  const data: unknown[] = []
  for (let t = 0; t < T; t++) {
    const r = attention[t] ?? []
    const rowMax = Math.max(0, ...r)
    for (let s = 0; s < S; s++) {
      const w = r[s] ?? 0
      const v = displayValue(w, rowMax, input)
      const lit = (row === null && col === null) || t === row || s === col
      const item: Record<string, unknown> = { value: [s, t, v, w] }
      if (!lit) item.itemStyle = { opacity: DIM }
      if (showLabels) item.label = { color: textColorOn(colorAt(cmap, v)) }
      data.push(item)
    }
  }
  // Categories are indices, so repeated tokens stay distinct and a click names its position.
  const label = (tokens: string[], selected: number | null) => (value: string) => {
    const i = Number(value)
    return i === selected ? `{sel|${tokens[i]}}` : tokens[i]
  }
  const indices = (n: number) => Array.from({ length: n }, (_, i) => String(i))
  const rich = { sel: { fontWeight: 'bold', color: '#c2410c', fontSize } }
  const many = (n: number) => (n > 60 ? 'auto' : 0)
  const pointer = (tokens: string[]) => ({
    show: true,
    type: 'shadow',
    triggerTooltip: false,
    label: { show: true, formatter: (p: { value: string }) => tokens[Number(p.value)] ?? '' },
  })
  const log = input.scale === 'log'
  const rowNorm = input.norm === 'row'
  const legend = log ? (rowNorm ? ['max', '10⁻⁴·max'] : ['1', '10⁻⁴']) : rowNorm ? ['row max', '0'] : ['1', '0']
  const groups = pieceGroups(srcTokens)
  return {
    animation: false,
    title: input.title ? { text: input.title, left: 'center', textStyle: { fontSize: fontSize + 3 } } : undefined,
    grid: { left: 8, right: 80, top: input.title ? 90 : 64, bottom: 8, containLabel: true },
    tooltip: {
      position: 'top',
      formatter: (p: { value: [number, number, number, number] }) => {
        const [s, t, , w] = p.value
        return `${escapeHtml(tgtTokens[t])} ← ${escapeHtml(srcTokens[s])}<br/><b>${w.toFixed(4)}</b>`
      },
    },
    xAxis: {
      type: 'category',
      position: 'top',
      data: indices(S),
      triggerEvent: true,
      splitArea: { show: false },
      axisTick: { show: false },
      axisPointer: pointer(srcTokens),
      axisLabel: { rotate: S > 12 ? 45 : 0, interval: many(S), formatter: label(srcTokens, col), rich, fontSize },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: indices(T),
      triggerEvent: true,
      axisTick: { show: false },
      axisPointer: pointer(tgtTokens),
      axisLabel: { interval: many(T), formatter: label(tgtTokens, row), rich, fontSize },
    },
    visualMap: {
      min: 0,
      max: 1,
      dimension: 2,
      calculable: false,
      orient: 'vertical',
      right: 8,
      top: 'middle',
      itemHeight: Math.min(200, Math.max(80, T * 20)),
      precision: 2,
      text: legend,
      textStyle: { fontSize: fontSize - 1 },
      inRange: { color: [...COLORMAPS[cmap]] },
    },
    series: [
      {
        type: 'heatmap',
        data,
        progressive: 4000,
        progressiveThreshold: 20000,
        label: { show: showLabels, fontSize: Math.max(9, fontSize - 3), formatter: (p: { value: number[] }) => p.value[3].toFixed(2).replace(/^0\./, '.') },
        emphasis: { itemStyle: { borderColor: '#f97316', borderWidth: 2 } },
        itemStyle: { borderColor: 'rgba(255,255,255,0.6)', borderWidth: S * T > 4000 ? 0 : 0.5 },
        markArea: groups.length
          ? { silent: true, itemStyle: { color: 'rgba(0,0,0,0)', borderColor: '#64748b', borderWidth: 1, borderType: 'dashed' }, data: groups.map(([a, b]) => [{ xAxis: String(a) }, { xAxis: String(b) }]) }
          : undefined,
      },
      ...(input.positions && input.windows ? [localOverlay(input.positions, input.windows, S)] : []),
    ],
  }
}
