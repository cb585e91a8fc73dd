/**
 * Occlusion beside attention on a page: the model's attention over the source words and the
 * leave-one-word-out importance of the same words, each a heatmap figure in a panel of its own
 * (merged as side by side merges its panels), with the rank agreement in the caption.
 */
import type { OcclusionResult } from '../alignment'
import type { ColormapName } from './colormaps'
import { linePitch, textElement, textHeight, widest, wrapText, type Frame } from './frame'
import { buildHeatmapOption, heatmapLayout, heatmapNeeds, type HeatmapInput } from './heatmap'
import { mergePanels } from './sidebyside'
import type { FigureOption, GraphicElement } from './echarts-parts'

/** Importance drawn as weights: each output token's row scaled to its largest drop, a rise (negative drop) as 0. */
export function importanceRows(importance: readonly number[][]): number[][] {
  return importance.map((r) => {
    const top = Math.max(...r, 1e-9)
    return r.map((x) => Math.max(0, x) / top)
  })
}

export interface OcclusionNames {
  attention: string
  importance: string
  summary: (tau: number | null, top1: number) => string
}

export interface OcclusionFigureInput {
  occlusion: OcclusionResult
  title: string
  names: OcclusionNames
  colormap: ColormapName
  colorScale: boolean
  frame: Frame
  /** A part of a figure split into slides: which output steps it shows, after the caption's numbers (those are the sentence's). */
  part?: string
}

export function buildOcclusionFigure(input: OcclusionFigureInput): FigureOption {
  const { occlusion: o, frame: f } = input
  const fs = f.fontSize
  const gap = fs * 1.2
  const pitch = linePitch(fs)
  // The caption (model, mean τ, top-1 agreement) under both panels, wrapped to the page's width.
  const caption = wrapText([input.title, input.names.summary(o.meanTau, o.top1Rate), input.part].filter(Boolean).join(' · '), f.width, fs, f.measure)
  const captionH = caption.length * pitch + fs * 0.4
  const h = f.height - captionH
  const heads = [input.names.attention, input.names.importance]
  const arrange = (row: boolean) => {
    const width = row ? (f.width - gap) / 2 : f.width
    const lines = heads.map((t) => wrapText(t, width, fs, f.measure, true).slice(0, 2))
    const headH = Math.max(...lines.map((l) => l.length)) * pitch + fs * 0.3
    // One above the other, the upper map carries the source labels for both: its box is taller
    // by them, so that the two maps' rows are as high.
    const T = Math.max(1, o.tgtTokens.length)
    const labels = Math.max(0, heatmapNeeds(heat(o.attention), f).height - T * (textHeight(fs) + 0.01))
    const upper = Math.max(headH, Math.min(h - gap - headH, headH + labels + (h - gap - 2 * headH - labels) / 2))
    const box = (i: number) =>
      row
        ? { x: f.x + i * ((f.width + gap) / 2), y: f.y, width, height: h }
        : i === 0
          ? { x: f.x, y: f.y, width, height: upper }
          : { x: f.x, y: f.y + upper + gap, width, height: h - upper - gap }
    const body = (i: number): Frame => ({ ...f, ...box(i), y: box(i).y + headH, height: box(i).height - headH })
    return { box, lines, body }
  }
  function heat(attention: number[][], frame?: Frame): HeatmapInput {
    return {
      srcTokens: o.srcWords,
      tgtTokens: o.tgtTokens,
      attention,
      norm: 'fixed',
      scale: 'linear',
      colormap: input.colormap,
      colorScale: input.colorScale,
      labels: 'off',
      frame,
    }
  }
  // Side by side, or one above the other (each map the page's width) where side by side's columns
  // are narrower than a line and one above the other's are not.
  const narrow = (a: ReturnType<typeof arrange>) => heatmapLayout(heat(o.attention), a.body(0)).cramped
  const [wide, tall] = [arrange(true), arrange(false)]
  const { box, lines, body } = narrow(wide) && !narrow(tall) ? tall : wide
  const stacked = box === tall.box
  const elements: GraphicElement[] = []
  lines.forEach((ls, i) =>
    ls.forEach((l, k) => elements.push(textElement(l, box(i).x + box(i).width / 2, box(i).y + (k + 0.5) * pitch, f, { align: 'center', bold: true }))),
  )
  caption.forEach((l, k) => elements.push(textElement(l, f.x + f.width / 2, f.y + h + fs * 0.4 + (k + 0.5) * pitch, f, { align: 'center' })))
  if (!stacked) return mergePanels([buildHeatmapOption(heat(o.attention, body(0))), buildHeatmapOption(heat(importanceRows(o.importance), body(1)))], elements)
  // One above the other: the importance on the attention's columns, read on its source labels (one set of them, as side by side stacks A over B).
  const rowLabelWidth = widest(o.tgtTokens, fs, f.measure)
  const top = { ...heat(o.attention, body(0)), rowLabelWidth }
  const lay = heatmapLayout(top, body(0))
  const under = { ...heat(importanceRows(o.importance), body(1)), rowLabelWidth, columnLabels: false as const, columns: { left: lay.left, width: lay.width } }
  return mergePanels([buildHeatmapOption(top), buildHeatmapOption(under)], elements)
}
