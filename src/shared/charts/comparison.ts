import type { Translation } from '../api'
import { differing } from '../differing'
import { comparableTokens } from '../end-token'
import { FIGURE_TEXT } from './figure-text'
import { cartesianAxes, cartesianLayout, keyElements, keyHeight, tokenRowElements, type Frame, type KeyItem } from './frame'
import { modelColours } from './model-colours'
import { firstItem, valueAt } from './data-values'
import type { ChartOption, FigureOption } from './echarts-parts'

export interface ComparisonInput {
  translations: Translation[]
  names: string[]
  /** Each model's colour, where these are some of the models compared (a slide in parts); else by name (model-colours.ts). */
  colours?: string[]
  title?: string
  /** A page to lay the figure out on (export): each model's output words above the chart. */
  frame?: Frame
}

/** The translation the others are compared with: the one without attention, else the first. */
export function referenceIndex(translations: Translation[]): number {
  const none = translations.findIndex((t) => t.attention.length === 0)
  return none >= 0 ? none : 0
}

/**
 * Per-token probability of each model's output, one line per model over output positions: the
 * no-attention model's confidence falls as the sentence goes on, the attention models' holds.
 */
export function buildComparisonOption(input: ComparisonInput): FigureOption {
  if (input.frame) return comparisonFigure(input, input.frame)
  const T = Math.max(0, ...input.translations.map((t) => t.tgtTokens.length))
  return {
    animation: false,
    // Each model in its colour in every view and figure (model-colours.ts).
    color: modelColours(input.names),
    title: input.title ? { text: input.title, left: 'center' } : undefined,
    legend: { top: input.title ? 28 : 0, data: input.names },
    grid: { left: 48, right: 16, top: input.title ? 64 : 36, bottom: 36 },
    tooltip: {
      trigger: 'axis',
      formatter: (ps) =>
        (Array.isArray(ps) ? ps : [ps])
          .map((p) => {
            const k = p.seriesIndex ?? 0
            const tok = input.translations[k].tgtTokens[p.dataIndex] ?? ''
            return `${input.names[k]}: ${tok.replace(/</g, '&lt;')} ${(Number(p.value) * 100).toFixed(1)}%`
          })
          .join('<br/>'),
    },
    xAxis: { type: 'category', name: 'output position', nameLocation: 'middle', nameGap: 24, data: Array.from({ length: T }, (_, i) => String(i + 1)) },
    yAxis: { type: 'value', name: 'P(token)', min: 0, max: 1 },
    series: input.translations.map((t, k) => ({
      type: 'line',
      name: input.names[k],
      symbolSize: 7,
      data: t.tokenLogProbs.map((lp) => Math.exp(lp)),
      label: { show: false },
    })),
  }
}

/** One row of numbers as a strip: the no-attention model's fixed context vector. */
export function buildVectorStripOption(values: number[], title?: string): ChartOption {
  const max = Math.max(1e-6, ...values.map(Math.abs))
  return {
    animation: false,
    title: title ? { text: title, left: 0, textStyle: { fontSize: 12, fontWeight: 'normal' } } : undefined,
    grid: { left: 4, right: 4, top: title ? 24 : 4, bottom: 4 },
    tooltip: { formatter: (ps) => `dim ${valueAt(firstItem(ps), 0)}: ${valueAt(firstItem(ps), 2).toFixed(3)}` },
    xAxis: { type: 'category', data: values.map((_, i) => String(i)), show: false },
    yAxis: { type: 'category', data: ['c'], show: false },
    visualMap: { min: -max, max, show: false, inRange: { color: ['#2563eb', '#f8fafc', '#c2410c'] } },
    series: [{ type: 'heatmap', data: values.map((v, i) => [i, 0, v]) }],
  }
}

/**
 * With and without attention on a page: each model's output words (those that differ from the
 * reference's underlined), then the probability of each word against its position.
 */
function comparisonFigure(input: ComparisonInput, f: Frame): FigureOption {
  const L = FIGURE_TEXT[f.lang]
  const { translations, names } = input
  const fs = f.fontSize
  const ref = referenceIndex(translations)
  const T = Math.max(1, ...translations.map((t) => t.tgtTokens.length))
  const dashed = (k: number) => translations[k].attention.length === 0
  const colours = input.colours ?? modelColours(names)
  const symbol = (k: number): KeyItem => ({ label: names[k], symbol: dashed(k) ? 'dashed' : 'line', color: colours[k] })
  const rows = translations.map((t, k) => {
    const marks = k === ref ? t.tgtTokens.map(() => false) : differing(comparableTokens(t), comparableTokens(translations[ref]))
    return { head: names[k], symbol: symbol(k), tokens: t.tgtTokens.map((text, i) => ({ text, mark: marks[i] })) }
  })
  const diffKey: KeyItem[] = translations.length > 1 ? [{ label: L.differs(names[ref]), symbol: 'underline', color: f.ink.accent }] : []
  const keyH = diffKey.length ? keyHeight(diffKey, f.width, fs, f.measure) : 0
  const words = tokenRowElements(rows, f.x, f.y, f.width, f.height * 0.6 - keyH, f)
  const key = keyElements(diffKey, f.x, f.y + words.height + fs * 0.2, f.width, f)
  const below = words.height + keyH + fs * 0.8
  const chart = { ...f, y: f.y + below, height: f.height - below }
  const xLabels = Array.from({ length: T }, (_, i) => ({ text: String(i + 1) }))
  const lay = cartesianLayout(chart, { xLabels, xTitle: L.outputPosition, y: { min: 0, max: 1 }, yTitle: L.probability })
  const axes = cartesianAxes(chart, lay, { n: T })
  return {
    animation: false,
    color: colours,
    grid: { ...lay.grid, containLabel: false },
    cramped: lay.cramped || words.overflow,
    graphic: { elements: [...words.elements, ...key.elements, ...lay.elements] },
    xAxis: axes.xAxis,
    yAxis: axes.yAxis,
    series: translations.map((t, k) => ({
      type: 'line',
      name: names[k],
      symbolSize: Math.max(4, fs * 0.4),
      lineStyle: { width: Math.max(1.5, fs / 10), type: dashed(k) ? 'dashed' : 'solid' },
      data: t.tokenLogProbs.map((lp) => Math.exp(lp)),
    })),
  }
}
