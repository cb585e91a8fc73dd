/**
 * Occlusion beside attention in one map (the fitter's other arrangement): each output step a row
 * of the source words, its upper half the model's attention and its lower half the occlusion
 * importance, so the two read side by side word for word and a slide holds every step's pair on
 * one set of labels: twice the steps of two maps one above the other, which each take a row a line
 * high and labels of their own. A key names the halves, the colour scale beside it; the caption
 * carries the rank agreement as the two maps' does.
 */
import { colorAt, COLORMAPS } from './colormaps'
import { FIGURE_TEXT } from './figure-text'
import { columnLabelElements, columnLabels, linePitch, textElement, textHeight, widest, wrapText, type Frame } from './frame'
import { importanceRows, type OcclusionFigureInput } from './occlusion'
import type { FigureOption, GraphicElement } from './echarts-parts'

const rgb = (c: [number, number, number]) => `rgb(${c.map((v) => Math.round(v)).join(',')})`

/** The key's swatch of a row: a cell with one half (upper or lower) coloured. */
function swatch(x: number, cy: number, fs: number, half: 0 | 1, fill: string, f: Frame): GraphicElement[] {
  const [w, h] = [fs * 1.2, fs * 0.9]
  const y = cy - h / 2
  return [
    { type: 'rect', silent: true, shape: { x, y: y + (half * h) / 2, width: w, height: h / 2 }, style: { fill } },
    { type: 'rect', silent: true, shape: { x, y, width: w, height: h }, style: { fill: 'none', stroke: f.ink.axis, lineWidth: 1 } },
  ]
}

export function buildOcclusionRows(input: OcclusionFigureInput): FigureOption {
  const { occlusion: o, frame: f } = input
  const fs = f.fontSize
  const m = f.measure
  const lh = textHeight(fs)
  const gap = fs * 0.4
  const pitch = linePitch(fs)
  const L = FIGURE_TEXT[f.lang]
  const cmap = input.colormap
  const S = Math.max(1, o.srcWords.length)
  const T = Math.max(1, o.tgtTokens.length)
  const sel = f.highlightRow !== null && f.highlightRow < T ? f.highlightRow : null
  const elements: GraphicElement[] = []
  // The caption (model, mean τ, top-1 agreement, the part) under the map, wrapped to the page's width.
  const caption = wrapText([input.title, input.names.summary(o.meanTau, o.top1Rate), input.part].filter(Boolean).join(' · '), f.width, fs, f.measure)
  caption.forEach((l, k) => elements.push(textElement(l, f.x + f.width / 2, f.y + f.height - (caption.length - k - 0.5) * pitch, f, { align: 'center' })))
  // The key: each half named beside its swatch, then the colour scale, flowing into lines.
  const sw = fs * 1.2 + gap
  const scale = input.colorScale ? m('0', fs) + gap + fs * 4 + gap + m('1', fs) : 0
  const items = [
    {
      w: sw + m(input.names.attention, fs),
      draw: (x: number, cy: number) => [...swatch(x, cy, fs, 0, rgb(colorAt(cmap, 0.75)), f), textElement(input.names.attention, x + sw, cy, f)],
    },
    ...wrapText(input.names.importance, f.width - sw, fs, m).map((line, i) => ({
      w: sw + m(line, fs),
      draw: (x: number, cy: number) => [...(i ? [] : swatch(x, cy, fs, 1, rgb(colorAt(cmap, 0.75)), f)), textElement(line, x + sw, cy, f)],
    })),
    ...(input.colorScale
      ? [
          {
            w: scale,
            draw: (x: number, cy: number): GraphicElement[] => {
              const bx = x + m('0', fs) + gap
              const stops = COLORMAPS[cmap]
              return [
                textElement('0', x, cy, f),
                {
                  type: 'rect',
                  silent: true,
                  shape: { x: bx, y: cy - fs * 0.35, width: fs * 4, height: fs * 0.7 },
                  style: {
                    fill: { type: 'linear', x: 0, y: 0, x2: 1, y2: 0, colorStops: stops.map((c, i) => ({ offset: i / (stops.length - 1), color: c })) },
                    stroke: f.ink.axis,
                    lineWidth: 0.5,
                  },
                },
                textElement('1', bx + fs * 4 + gap, cy, f),
              ]
            },
          },
        ]
      : []),
  ]
  const lines: (typeof items)[] = [[]]
  let used = 0
  for (const item of items) {
    if (used && used + fs + item.w > f.width) {
      lines.push([])
      used = 0
    }
    lines[lines.length - 1].push(item)
    used += (used ? fs : 0) + item.w
  }
  lines.forEach((line, k) => {
    const width = line.reduce((a, it) => a + it.w, 0) + fs * (line.length - 1)
    let x = f.x + (f.width - width) / 2
    for (const it of line) {
      elements.push(...it.draw(x, f.y + (k + 0.5) * pitch))
      x += it.w + fs
    }
  })
  // The map: the output's title in the corner over its labels, the source's over the columns.
  const rowsW = Math.max(widest(o.tgtTokens, fs, m, sel !== null), m(L.output, fs)) + gap
  const titleY = f.y + lines.length * pitch + gap + lh / 2
  const room = { x: f.x + rowsW, width: f.width - rowsW }
  // Cells at most twice as wide as a line: a short sentence's map does not stretch across the page.
  const cw = Math.min(room.width / S, 2 * lh)
  const left = room.x + (room.width - cw * S) / 2
  const labels = o.srcWords.map((text) => ({ text }))
  const cols = columnLabels(labels, cw, f)
  const top = titleY + lh / 2 + gap + cols.extent + gap
  const bottom = f.y + f.height - caption.length * pitch - gap
  const rowH = Math.min((bottom - top) / T, 2 * lh)
  const sep = Math.max(1, fs / 8)
  elements.push(
    textElement(L.output, left - gap, titleY, f, { align: 'right', color: f.ink.muted }),
    textElement(L.source, left + (cw * S) / 2, titleY, f, { align: 'center', color: f.ink.muted }),
    ...columnLabelElements(labels, left, cw, top, 'above', f),
  )
  const importance = importanceRows(o.importance)
  o.tgtTokens.forEach((text, t) => {
    const y = top + t * rowH
    elements.push(textElement(text, left - gap, y + rowH / 2, f, t === sel ? { align: 'right', bold: true, color: f.ink.accent } : { align: 'right' }))
    const half = (rowH - sep) / 2
    for (let s = 0; s < S; s++)
      for (const [k, v] of [o.attention[t]?.[s] ?? 0, importance[t]?.[s] ?? 0].entries())
        elements.push({
          type: 'rect',
          silent: true,
          shape: { x: left + s * cw, y: y + sep / 2 + k * half, width: cw, height: half },
          style: { fill: rgb(colorAt(cmap, v)), stroke: f.ink.background, lineWidth: Math.max(0.25, fs / 40) },
        })
  })
  return {
    animation: false,
    cramped: rowH < lh - 0.01 || (cols.upright.some((u) => !u) && cw < lh - 0.01) || room.width < 4 * fs,
    graphic: { elements },
    series: [],
  }
}
