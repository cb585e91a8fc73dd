/**
 * The p_t plot laid across a page (the fitter's other arrangement): source positions along the
 * top, one row per output step down the page, p_t a line down the rows with the diagonal and the
 * window band. A landscape slide takes the sentence's source words across its long side, each a
 * line wide, where up its short side they need more than its height (29 of them at 20 pt already).
 */
import { columnLabelElements, columnLabels, keyElements, textElement, textHeight, widest, type Frame } from './frame'
import { partExtent, positionKey, positionPart, positionSeries, type PositionPlotInput } from './local'
import type { FigureOption, GraphicElement } from './echarts-parts'

/** The source range drawn across: a column per source position, and p_t wherever it goes. */
function acrossExtent(positions: readonly number[], S: number): [number, number] {
  return [Math.min(-0.5, ...positions.map((p) => p - 0.25)), Math.max(S - 0.5, ...positions.map((p) => p + 0.25))]
}

export function buildPositionsAcross(input: PositionPlotInput, f: Frame): FigureOption {
  const part = positionPart(input, f)
  const { L, S, positions, tgtTokens, N, sel } = part
  const { srcTokens } = input
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const key = keyElements(positionKey(L), f.x, f.y, f.width, f)
  // The output steps' title over their labels, in the corner left of the source labels.
  const rowsW = Math.max(widest(tgtTokens, fs, m, sel !== null), m(L.step, fs)) + gap
  const left = f.x + rowsW
  const width = f.x + f.width - gap - left
  const labelsFor = ([x0, x1]: [number, number]) => {
    const first = Math.max(0, Math.ceil(x0))
    const last = Math.min(S - 1, Math.floor(x1))
    const texts = srcTokens.slice(first, last + 1).map((text) => ({ text }))
    const pitch = width / (x1 - x0)
    return { first, texts, pitch, cols: columnLabels(texts, pitch, f) }
  }
  const tooClose = (l: ReturnType<typeof labelsFor>) => l.cols.upright.some((u) => !u) && l.pitch < lh
  // A part against the whole sentence's source axis where its words are a line apart, else its own positions.
  let [x0, x1] = acrossExtent(input.positions, S)
  let labels = labelsFor([x0, x1])
  if (input.rows && tooClose(labels)) {
    const [lo, hi] = partExtent(input.positions, input.windows, input.rows, S, [-1, S])
    ;[x0, x1] = [Math.min(Math.max(lo, 0) - 0.5, ...positions.map((p) => p - 0.25)), Math.max(Math.min(hi, S - 1) + 0.5, ...positions.map((p) => p + 0.25))]
    labels = labelsFor([x0, x1])
  }
  const x = (v: number) => left + ((v - x0) / (x1 - x0)) * width
  const titleY = f.y + key.height + gap + lh / 2
  const top = titleY + lh / 2 + gap + labels.cols.extent + gap
  const room = f.y + f.height - top
  // Rows a line high at least, at most two: a few steps do not stretch down the page.
  const rowH = Math.min(room / Math.max(1, N), 2 * lh)
  const height = rowH * N
  const y = (t: number) => top + (t + 0.5) * rowH
  const elements: GraphicElement[] = [
    ...key.elements,
    textElement(L.source, left + width / 2, titleY, f, { align: 'center', color: f.ink.muted }),
    textElement(L.step, f.x, titleY, f, { color: f.ink.muted }),
    ...columnLabelElements(labels.texts, x(labels.first) - labels.pitch / 2, labels.pitch, top, 'above', f),
    ...tgtTokens.map((text, t) => textElement(text, left - gap, y(t), f, t === sel ? { align: 'right', bold: true, color: f.ink.accent } : { align: 'right' })),
    // A line down each whole source position, as the usual plot has one across.
    ...labels.texts.map((_, i) => ({
      type: 'line',
      silent: true,
      shape: { x1: x(labels.first + i), y1: top, x2: x(labels.first + i), y2: top + height },
      style: { stroke: f.ink.grid, lineWidth: 1 },
    })),
  ]
  const clamp = (v: number) => Math.min(x1, Math.max(x0, v))
  const band = part.windows.map((w): [number, number] => [clamp(w[0]), clamp(w[1]) - clamp(w[0])])
  const steps = Array.from({ length: N }, (_, t) => String(t))
  return {
    animation: false,
    grid: { left, top, width, height, containLabel: false },
    cramped: room < lh * N - 0.01 || tooClose(labels) || width < 4 * fs,
    graphic: { elements },
    xAxis: {
      type: 'value',
      position: 'top',
      min: x0,
      max: x1,
      axisLine: { show: true, onZero: false, lineStyle: { color: f.ink.axis } },
      axisTick: { show: false },
      axisLabel: { show: false },
      splitLine: { show: false },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: steps,
      axisLine: { show: true, lineStyle: { color: f.ink.axis } },
      axisTick: { show: false },
      axisLabel: { show: false },
    },
    series: positionSeries(part, band, fs, (p, t) => [p, t], f.least),
  }
}
