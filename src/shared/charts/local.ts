/**
 * Luong's local attention as plain ECharts options (no DOM), shared by the renderer and the
 * command-line exporter.
 *
 * - The spotlight: one output step over the source positions. The in-window softmax (bars), the
 *   Gaussian factor (line) and their product, the final weights (narrow bars in front), with p_t
 *   marked by a vertical line and the window [p_t-D, p_t+D] shaded.
 * - The position plot: p_t against the output step, the diagonal for reference, and the window
 *   band around p_t.
 */
import { FIGURE_TEXT } from './figure-text'
import { cartesianAxes, cartesianLayout, textHeight, type Frame, type KeyItem } from './frame'
import { escapeHtml } from './html'
import { diagonalAt } from '../attention/diagonal'
import type { MarkLineComponentOption } from 'echarts/components'
import type { ChartSeries, FigureOption } from './echarts-parts'

/** How a local model places its window (attention-kinds.ts): local-m's fixed pace, local-p's prediction with a Gaussian. */
export type LocalKind = 'monotonic' | 'predictive'

export interface SpotlightLabels {
  align: string
  gaussian: string
  weights: string
  window: string
  /** Name of the x axis. */
  source: string
  /** Name of the y axis. */
  weight: string
}

export const SPOTLIGHT_LABELS: SpotlightLabels = {
  align: 'in-window softmax',
  gaussian: 'Gaussian factor',
  weights: 'final weight = softmax × Gaussian',
  window: 'window',
  source: 'source position',
  weight: 'weight',
}

export interface SpotlightInput {
  srcTokens: string[]
  /** align[s]: the softmax over the window, before the Gaussian. */
  align: number[]
  /** gaussian[s]: exp(-(s-p_t)²/(2σ²)) for local-p; 1 inside the window, 0 outside for local-m. */
  gaussian: number[]
  /** attention[s]: the final weights, align × gaussian. */
  attention: number[]
  /** p_t, a fractional source position. */
  position: number
  /** [p_t-D, p_t+D] */
  window: [number, number]
  windowD: number
  /** local-m's factor is a box (drawn as steps), local-p's a smooth curve. */
  kind?: LocalKind
  labels?: Partial<SpotlightLabels>
  title?: string
  /** A page to lay the figure out on (export). */
  frame?: Frame
  /** Source positions [first, end) drawn (a slide in parts at its text floor); the page's figure only. */
  cols?: [number, number]
}

export interface PositionLabels {
  position: string
  diagonal: string
  window: string
  /** Name of the x axis. */
  step: string
  /** Name of the y axis. */
  source: string
}

export const POSITION_LABELS: PositionLabels = {
  position: 'pₜ',
  diagonal: 'diagonal',
  window: 'window [pₜ−D, pₜ+D]',
  step: 'output step',
  source: 'source position',
}

export interface PositionPlotInput {
  srcTokens: string[]
  tgtTokens: string[]
  positions: number[]
  windows: [number, number][]
  selected?: number | null
  labels?: Partial<PositionLabels>
  title?: string
  /** A page to lay the figure out on (export). */
  frame?: Frame
  /**
   * Output steps [first, end) drawn (a slide in parts at its text floor), with the source positions
   * their windows cover; the page's figure only, the frame's highlighted row counted from `first`.
   */
  rows?: [number, number]
  /** With `rows`: where the sentence's source positions are not a line apart, those the steps look at (partExtent). */
  near?: boolean
}

/** Series ids, so the renderer and tests can find a series whatever language its name is in. */
export const SPOTLIGHT_SERIES = { align: 'align', gaussian: 'gaussian', weights: 'weights', window: 'window' } as const
export const POSITION_SERIES = { low: 'window-low', band: 'window', diagonal: 'diagonal', positions: 'positions' } as const

/** The plots' colours (the p_t plot laid across, positions-across.ts, draws in the same). */
export const C = {
  align: '#bfdbfe',
  alignBorder: '#3b82f6',
  gaussian: '#0f766e',
  weights: '#ea580c',
  position: '#dc2626',
  window: 'rgba(250, 204, 21, 0.22)',
  band: 'rgba(250, 204, 21, 0.35)',
  diagonal: '#64748b',
  muted: '#94a3b8',
  selected: '#c2410c',
}

const indices = (n: number) => Array.from({ length: n }, (_, i) => String(i))
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v))
const fmt = (v: number) => v.toFixed(2)

/**
 * The x range the spotlight draws: source positions -0.5 … S-0.5, so that integer s sits at the
 * centre of the s-th category.
 */
export function spotlightExtent(S: number): [number, number] {
  return [-0.5, S - 0.5]
}

/** The shaded window: [p_t-D, p_t+D], clipped to what the chart shows. */
export function windowArea(win: [number, number], S: number): [number, number] {
  const [lo, hi] = spotlightExtent(S)
  return [clamp(win[0], lo, hi), clamp(win[1], lo, hi)]
}

/** Whether source position s lies inside [p_t-D, p_t+D]. */
export function inWindow(s: number, win: [number, number]): boolean {
  return s >= win[0] - 1e-6 && s <= win[1] + 1e-6
}

/** The spotlight for one output step. */
export function buildSpotlightOption(input: SpotlightInput): FigureOption {
  const L = { ...SPOTLIGHT_LABELS, ...input.labels }
  const { srcTokens, align, gaussian, attention, position, window: win } = input
  const S = srcTokens.length
  const [x0, x1] = spotlightExtent(S)
  const at = (a: number[], s: number) => a[s] ?? 0
  const rich = { in: { fontWeight: 'bold' as const, color: '#0f172a', fontSize: 13 }, out: { color: C.muted, fontSize: 13 } }
  const category = (show: boolean) => ({
    type: 'category' as const,
    data: indices(S),
    show,
    gridIndex: 0,
  })
  const tooltip = (params: { dataIndex: number }[] | { dataIndex: number }) => {
    const s = (Array.isArray(params) ? params[0] : params)?.dataIndex ?? 0
    return [
      `<b>${escapeHtml(srcTokens[s] ?? '')}</b> (s = ${s}, |s − pₜ| = ${fmt(Math.abs(s - position))})`,
      `${escapeHtml(L.align)}: ${at(align, s).toFixed(3)}`,
      `${escapeHtml(L.gaussian)}: ${at(gaussian, s).toFixed(3)}`,
      `${escapeHtml(L.weights)}: <b>${at(attention, s).toFixed(3)}</b>`,
    ].join('<br/>')
  }
  if (input.frame) return spotlightFigure(input, input.frame)
  return {
    animation: false,
    title: input.title ? { text: input.title, left: 'center', textStyle: { fontSize: 14 } } : undefined,
    legend: { top: 0, data: [L.align, L.gaussian, L.weights], itemGap: 18 },
    grid: { left: 8, right: 16, top: 62, bottom: 24, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: tooltip },
    xAxis: [
      {
        ...category(true),
        name: L.source,
        nameLocation: 'middle',
        nameGap: S > 12 ? 56 : 30,
        nameTextStyle: { color: C.muted },
        axisTick: { show: false },
        triggerEvent: true,
        axisLabel: {
          interval: 0,
          rotate: S > 12 ? 45 : 0,
          rich,
          formatter: (v: string) => {
            const s = Number(v)
            return `{${inWindow(s, win) ? 'in' : 'out'}|${srcTokens[s]}}`
          },
        },
      },
      // The final weights get their own (hidden) axis so their narrow bars sit centred in front.
      { ...category(false), axisPointer: { show: false } },
      // A value axis over the same range places the fractional p_t and window edges exactly.
      { type: 'value', show: false, gridIndex: 0, min: x0, max: x1, axisPointer: { show: false } },
    ],
    yAxis: {
      type: 'value',
      min: 0,
      max: 1,
      interval: 0.25,
      name: L.weight,
      nameTextStyle: { color: C.muted, align: 'left' },
      // Several x axes share the grid; keep the y axis at the left edge, not at a value axis' zero.
      axisLine: { show: true, onZero: false },
      axisLabel: { formatter: (v: number) => String(v) },
    },
    series: spotlightSeries(input, {
      names: L,
      symbolSize: 6,
      lineWidth: 2,
      positionLabel: { position: 'end', color: C.position, fontWeight: 'bold', formatter: `pₜ = ${fmt(position)}` },
    }),
  }
}

/**
 * The spotlight's four series (in-window softmax, Gaussian or box, final weights, and the carrier
 * of the window band and the p_t line), for the app's chart and the exported figure alike; they
 * differ only in names (legend, tooltip) and in line widths scaled to the figure's text.
 */
function spotlightSeries(
  input: SpotlightInput,
  look: {
    names?: SpotlightLabels
    symbolSize: number
    lineWidth: number
    positionLabel: MarkLineComponentOption['label']
    /** p_t off the positions drawn is not drawn (a part of the sentence), rather than at the edge. */
    clip?: boolean
  },
): ChartSeries[] {
  const { srcTokens, align, gaussian, attention, position, window: win } = input
  const S = srcTokens.length
  const [x0, x1] = spotlightExtent(S)
  const [lo, hi] = windowArea(win, S)
  const at = (a: number[], s: number) => a[s] ?? 0
  const boxed = input.kind === 'monotonic'
  const L = look.names
  return [
    {
      id: SPOTLIGHT_SERIES.align,
      name: L?.align,
      type: 'bar',
      xAxisIndex: 0,
      barWidth: '70%',
      itemStyle: { color: C.align, borderColor: C.alignBorder, borderWidth: 1 },
      data: srcTokens.map((_, s) => at(align, s)),
      z: 2,
    },
    {
      id: SPOTLIGHT_SERIES.weights,
      name: L?.weights,
      type: 'bar',
      xAxisIndex: 1,
      barWidth: '34%',
      itemStyle: { color: C.weights },
      data: srcTokens.map((_, s) => at(attention, s)),
      z: 3,
    },
    {
      id: SPOTLIGHT_SERIES.gaussian,
      name: L?.gaussian,
      type: 'line',
      xAxisIndex: 0,
      smooth: boxed ? false : 0.3,
      step: boxed ? 'middle' : false,
      symbol: 'circle',
      symbolSize: look.symbolSize,
      lineStyle: { color: C.gaussian, width: look.lineWidth },
      itemStyle: { color: C.gaussian },
      data: srcTokens.map((_, s) => at(gaussian, s)),
      z: 4,
    },
    {
      // Carries the window and p_t markers on the value axis; it has no points of its own.
      id: SPOTLIGHT_SERIES.window,
      name: L?.window,
      type: 'line',
      xAxisIndex: 2,
      data: [],
      silent: true,
      markArea: {
        silent: true,
        itemStyle: { color: C.window, borderColor: 'rgba(202, 138, 4, 0.6)', borderWidth: 1, borderType: 'dashed' },
        label: { show: false },
        data: [[{ xAxis: lo, ...(L ? { name: L.window } : {}) }, { xAxis: hi }]],
      },
      markLine: {
        silent: true,
        symbol: 'none',
        animation: false,
        lineStyle: { color: C.position, type: 'solid', width: look.lineWidth },
        label: look.positionLabel,
        data: look.clip && (position < x0 || position > x1) ? [] : [{ xAxis: clamp(position, x0, x1) }],
      },
      z: 1,
    },
  ]
}

/**
 * The y range of the position plot: every source position and every p_t, with a margin. Whole
 * numbers, so the axis ticks (and token labels) fall on whole source positions.
 */
export function positionExtent(positions: number[], S: number): [number, number] {
  const lo = Math.min(-1, ...positions.map((p) => Math.floor(p - 0.25)))
  const hi = Math.max(S, ...positions.map((p) => Math.ceil(p + 0.25)))
  return [lo, hi]
}

/** p_t against the output step, the diagonal, and the window band around p_t. */
export function buildPositionPlotOption(input: PositionPlotInput): FigureOption {
  const L = { ...POSITION_LABELS, ...input.labels }
  const { srcTokens, tgtTokens, positions, windows } = input
  const S = srcTokens.length
  const T = positions.length
  const sel = input.selected ?? null
  const [y0, y1] = positionExtent(positions, S)
  // The band is drawn as a transparent lower edge with the window's height stacked on top.
  const band = windows.map((w) => {
    const lo = clamp(w[0], y0, y1)
    return [lo, clamp(w[1], y0, y1) - lo]
  })
  const yInterval = S > 24 ? Math.ceil(S / 24) : 1
  const rich = { sel: { fontWeight: 'bold' as const, color: C.selected, fontSize: 13 } }
  const tooltip = (params: { dataIndex: number }[] | { dataIndex: number }) => {
    const t = (Array.isArray(params) ? params[0] : params)?.dataIndex ?? 0
    const w = windows[t] ?? [0, 0]
    return [
      `<b>${escapeHtml(tgtTokens[t] ?? '')}</b> (t = ${t})`,
      `${escapeHtml(L.position)} = ${fmt(positions[t] ?? 0)}`,
      `[${fmt(w[0])}, ${fmt(w[1])}]`,
      `${escapeHtml(L.diagonal)}: ${fmt(diagonalAt(t, T, S))}`,
    ].join('<br/>')
  }
  const line = { symbol: 'none', silent: true, lineStyle: { opacity: 0 }, tooltip: { show: false } }
  if (input.frame) return positionFigure(input, input.frame)
  return {
    animation: false,
    title: input.title ? { text: input.title, left: 'center', textStyle: { fontSize: 14 } } : undefined,
    legend: { top: 0, data: [L.position, L.diagonal, L.window], itemGap: 18 },
    grid: { left: 8, right: 20, top: 40, bottom: 24, containLabel: true },
    tooltip: { trigger: 'axis', formatter: tooltip },
    xAxis: {
      type: 'category',
      data: indices(T),
      name: L.step,
      nameLocation: 'middle',
      nameGap: T > 12 ? 56 : 30,
      nameTextStyle: { color: C.muted },
      triggerEvent: true,
      axisTick: { show: false },
      // Band edges can go below zero; keep the axis at the bottom of the grid.
      axisLine: { onZero: false },
      axisLabel: {
        interval: 0,
        rotate: T > 12 ? 45 : 0,
        rich,
        fontSize: 13,
        formatter: (v: string) => {
          const t = Number(v)
          return t === sel ? `{sel|${tgtTokens[t]}}` : tgtTokens[t]
        },
      },
    },
    yAxis: {
      type: 'value',
      min: y0,
      max: y1,
      interval: yInterval,
      name: L.source,
      nameTextStyle: { color: C.muted, align: 'left' },
      splitLine: { lineStyle: { color: '#eef2f7' } },
      axisLabel: {
        fontSize: 12,
        // Label whole positions with their source token; the half-position range edges stay blank.
        formatter: (v: number) => (Number.isInteger(v) && v >= 0 && v < S ? srcTokens[v] : ''),
      },
    },
    series: [
      {
        ...line,
        id: POSITION_SERIES.low,
        name: `${L.window} (low)`,
        type: 'line',
        stack: 'window',
        stackStrategy: 'all',
        data: band.map((b) => b[0]),
      },
      {
        ...line,
        id: POSITION_SERIES.band,
        name: L.window,
        type: 'line',
        stack: 'window',
        stackStrategy: 'all',
        itemStyle: { color: C.band },
        areaStyle: { color: C.band },
        data: band.map((b) => b[1]),
      },
      {
        id: POSITION_SERIES.diagonal,
        name: L.diagonal,
        type: 'line',
        silent: true,
        symbol: 'none',
        tooltip: { show: false },
        lineStyle: { color: C.diagonal, type: 'dashed', width: 1.5 },
        itemStyle: { color: C.diagonal },
        data:
          T > 1
            ? [
                [0, 0],
                [T - 1, S - 1],
              ]
            : [[0, 0]],
      },
      {
        id: POSITION_SERIES.positions,
        name: L.position,
        type: 'line',
        symbol: 'circle',
        symbolSize: 9,
        lineStyle: { color: C.position, width: 2 },
        itemStyle: { color: C.position },
        data: positions.map((p, t) => (t === sel ? { value: p, symbolSize: 15, itemStyle: { color: '#ffffff', borderColor: C.selected, borderWidth: 3 } } : p)),
        markLine:
          sel === null
            ? undefined
            : { silent: true, symbol: 'none', label: { show: false }, lineStyle: { color: C.selected, type: 'dotted', width: 1.5 }, data: [{ xAxis: sel }] },
        z: 5,
      },
    ],
  }
}

/** The spotlight on a page: the same bars and curve, a key in place of labels on the chart. */
function spotlightFigure(whole: SpotlightInput, f: Frame): FigureOption {
  const T = FIGURE_TEXT[f.lang]
  // A part: its positions' bars, the window and p_t counted from its first position (the key keeps p_t's value).
  const [a, b] = whole.cols ?? [0, whole.srcTokens.length]
  const input: SpotlightInput = whole.cols
    ? {
        ...whole,
        srcTokens: whole.srcTokens.slice(a, b),
        align: whole.align.slice(a, b),
        gaussian: whole.gaussian.slice(a, b),
        attention: whole.attention.slice(a, b),
        position: whole.position - a,
        window: [whole.window[0] - a, whole.window[1] - a],
      }
    : whole
  const local = input.kind === 'monotonic'
  const L: SpotlightLabels = {
    align: T.align,
    gaussian: local ? T.box : T.gaussian,
    weights: local ? T.weightsM : T.weights,
    window: T.window,
    source: T.source,
    weight: T.weight,
    ...input.labels,
  }
  const { srcTokens, window: win } = input
  const S = srcTokens.length
  const fs = f.fontSize
  const [x0, x1] = spotlightExtent(S)
  const key: KeyItem[] = [
    { label: L.align, symbol: 'bar', color: C.alignBorder, fill: C.align },
    { label: L.gaussian, symbol: 'dot', color: C.gaussian },
    { label: L.weights, symbol: 'bar', color: C.weights },
    { label: L.window, symbol: 'band', color: 'rgba(202, 138, 4, 0.8)', fill: C.window },
    { label: `${T.pt} = ${fmt(whole.position)}`, symbol: 'line', color: C.position },
  ]
  // Tokens inside the window in bold, the others muted.
  const xLabels = srcTokens.map((text, s) => (inWindow(s, win) ? { text, bold: true } : { text, color: f.ink.muted }))
  const lay = cartesianLayout(f, { xLabels, xTitle: L.source, y: { min: 0, max: 1 }, yTitle: L.weight, key })
  const axes = cartesianAxes(f, lay, { n: S })
  const hidden = { type: 'category' as const, data: srcTokens.map((_, i) => String(i)), show: false }
  return {
    animation: false,
    grid: { ...lay.grid, containLabel: false },
    cramped: lay.cramped,
    graphic: { elements: lay.elements },
    xAxis: [axes.xAxis, hidden, { type: 'value', show: false, min: x0, max: x1 }],
    yAxis: axes.yAxis,
    series: spotlightSeries(input, {
      symbolSize: Math.max(3, fs * 0.3),
      lineWidth: Math.max(1.5, fs / 10),
      positionLabel: { show: false },
      clip: !!whole.cols,
    }),
  }
}

/**
 * The source positions a part of the position plot (output steps `rows`) draws where the whole
 * sentence's do not fit: those its steps' windows and p_t cover, and the source words whose nearest
 * p_t is one of its steps, so that every source word is on some part; whole, inside the whole
 * plot's range `whole`; at least two. Not the diagonal's: where p_t strays far from it, taking it in
 * would leave rows too low for their labels at the floor, and the part is about where the steps look
 * (the diagonal is drawn where it crosses them).
 */
export function partExtent(
  positions: readonly number[],
  windows: readonly [number, number][],
  rows: readonly [number, number],
  S: number,
  whole: [number, number],
): [number, number] {
  const [a, b] = rows
  const nearest = (s: number) => positions.reduce((best, p, t) => (Math.abs(p - s) < Math.abs(positions[best] - s) ? t : best), 0)
  const own = Array.from({ length: S }, (_, s) => s).filter((s) => {
    const t = nearest(s)
    return t >= a && t < b
  })
  const lows = [...positions.slice(a, b), ...windows.slice(a, b).map((w) => w[0]), ...own]
  const highs = [...positions.slice(a, b), ...windows.slice(a, b).map((w) => w[1]), ...own]
  const lo = Math.max(whole[0], Math.floor(Math.min(...lows) - 0.25))
  const hi = Math.min(whole[1], Math.ceil(Math.max(...highs) + 0.25))
  return [lo, Math.max(hi, lo + 1)]
}

/** The p_t plot's key: p_t, the diagonal, the window band. */
export function positionKey(L: Pick<PositionLabels, 'position' | 'diagonal' | 'window'>): KeyItem[] {
  return [
    { label: L.position, symbol: 'dot', color: C.position },
    { label: L.diagonal, symbol: 'dashed', color: C.diagonal },
    { label: L.window, symbol: 'band', color: 'rgba(202, 138, 4, 0.8)', fill: C.band },
  ]
}

/** What a page's p_t plot draws of its input: the labels in the frame's language, and its output steps [a, b) (a part, or all). */
export function positionPart(input: PositionPlotInput, f: Frame) {
  const T = FIGURE_TEXT[f.lang]
  const L: PositionLabels = { position: T.pt, diagonal: T.diagonal, window: T.window, step: T.outputStep, source: T.sourcePosition, ...input.labels }
  const all = input.positions.length
  const [a, b] = input.rows ?? [0, all]
  const positions = input.positions.slice(a, b)
  const N = positions.length
  return {
    L,
    S: input.srcTokens.length,
    a,
    b,
    positions,
    windows: input.windows.slice(a, b),
    tgtTokens: input.tgtTokens.slice(a, b),
    N,
    sel: f.highlightRow !== null && f.highlightRow < N ? f.highlightRow : null,
    /** The whole sentence's diagonal at step t. */
    diagonal: (t: number) => diagonalAt(t, all, input.srcTokens.length),
  }
}

/**
 * A page's p_t plot series: the window band (a transparent edge with the window's width stacked on
 * it), the whole sentence's diagonal at the part's steps, and p_t; `at` places a source position
 * at a step ([step, position] up the side, [position, step] across).
 */
export function positionSeries(
  part: ReturnType<typeof positionPart>,
  band: [number, number][],
  fs: number,
  at: (position: number, step: number) => number | [number, number],
  least?: number,
): ChartSeries[] {
  const { N, a, b, sel, diagonal, positions } = part
  // On a slide (a frame with a text floor) p_t's dots are seen from the back of the room, as the
  // heatmap's p_t triangles are: 0.65 of the floor, 12 px at 720 px of height (issue 40 #2).
  const dot = Math.max(4, fs * 0.45, (least ?? 0) * 0.65)
  const line = { symbol: 'none', silent: true, lineStyle: { opacity: 0 } }
  return [
    { ...line, id: POSITION_SERIES.low, type: 'line', stack: 'window', stackStrategy: 'all', data: band.map(([lo], t) => at(lo, t)) },
    {
      ...line,
      id: POSITION_SERIES.band,
      type: 'line',
      stack: 'window',
      stackStrategy: 'all',
      areaStyle: { color: C.band },
      data: band.map(([, w], t) => at(w, t)),
    },
    {
      id: POSITION_SERIES.diagonal,
      type: 'line',
      silent: true,
      symbol: 'none',
      lineStyle: { color: C.diagonal, type: 'dashed', width: Math.max(1, fs / 12) },
      // The whole sentence's diagonal at this part's steps (clipped to the part's source positions).
      clip: true,
      data: N > 1 ? [toPair(at(diagonal(a), 0), 0), toPair(at(diagonal(b - 1), N - 1), N - 1)] : [toPair(at(diagonal(a), 0), 0)],
    },
    {
      id: POSITION_SERIES.positions,
      type: 'line',
      symbol: 'circle',
      symbolSize: dot,
      lineStyle: { color: C.position, width: Math.max(1.5, fs / 10) },
      itemStyle: { color: C.position },
      data: positions.map((p, t) =>
        t === sel
          ? { value: at(p, t), symbolSize: Math.max(7, fs * 0.7, dot * 1.4), itemStyle: { color: '#ffffff', borderColor: C.selected, borderWidth: 2 } }
          : at(p, t),
      ),
      z: 5,
    },
  ]
}

/** A point of a line given as its value alone (up the side, at step t) as the [step, value] pair a two-point line needs. */
const toPair = (v: number | [number, number], t: number): [number, number] => (Array.isArray(v) ? v : [t, v])

/** The position plot on a page: output tokens along the bottom, source tokens up the side. */
function positionFigure(input: PositionPlotInput, f: Frame): FigureOption {
  const part = positionPart(input, f)
  const { L, S, positions, windows, tgtTokens, N, sel } = part
  const { srcTokens } = input
  const fs = f.fontSize
  const key = positionKey(L)
  // The side axis names source tokens at whole positions: the layout sees them as its tick labels.
  const tokenAt = (v: number) => (Number.isInteger(v) && v >= 0 && v < S ? srcTokens[v] : '')
  const xLabels = tgtTokens.slice(0, N).map((text, t) => (t === sel ? { text, bold: true, color: f.ink.accent } : { text }))
  const layFor = ([lo, hi]: [number, number]) =>
    cartesianLayout(f, {
      xLabels,
      xTitle: L.step,
      y: { min: lo, max: hi },
      yText: tokenAt,
      yLabels: srcTokens.slice(Math.max(0, lo), Math.max(0, hi + 1)),
      yTitle: L.source,
      key,
    })
  // A part against the whole sentence's source axis; where its positions are not a line apart, the part's own if asked.
  const whole = positionExtent(input.positions, S)
  let [y0, y1] = input.rows ? whole : positionExtent(positions, S)
  let lay = layFor([y0, y1])
  if (input.rows && input.near && lay.grid.height / (y1 - y0) < textHeight(fs)) {
    ;[y0, y1] = partExtent(input.positions, input.windows, input.rows, S, whole)
    lay = layFor([y0, y1])
  }
  const band = windows.map((w): [number, number] => {
    const lo = clamp(w[0], y0, y1)
    return [lo, clamp(w[1], y0, y1) - lo]
  })
  // Every whole position named: where they are closer than a line, the fitter gives the plot room.
  const every = 1
  const axes = cartesianAxes(f, lay, { n: N, yText: tokenAt })
  const yAxis = { ...axes.yAxis, min: y0, max: y1, interval: every }
  return {
    animation: false,
    grid: { ...lay.grid, containLabel: false },
    cramped: lay.cramped,
    graphic: { elements: lay.elements },
    xAxis: { ...axes.xAxis, axisLine: { onZero: false, lineStyle: { color: f.ink.axis } } },
    yAxis,
    series: positionSeries(part, band, fs, (p) => p, f.least),
  }
}
