/**
 * Occlusion beside attention on a page: the model's attention over the source words and the
 * leave-one-word-out importance of the same words, each a heatmap figure in a panel of its own
 * (merged as side by side merges its panels), with the rank agreement in the caption.
 */
import type { OcclusionResult } from '../alignment'
import type { ColormapName } from './colormaps'
import { linePitch, textElement, wrapText, type Frame } from './frame'
import { buildHeatmapOption, heatmapLayout, type HeatmapInput } from './heatmap'
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
}

export function buildOcclusionFigure(input: OcclusionFigureInput): FigureOption {
  const { occlusion: o, frame: f } = input
  const fs = f.fontSize
  const gap = fs * 1.2
  const pitch = linePitch(fs)
  // The caption (model, mean τ, top-1 agreement) under both panels, wrapped to the page's width.
  const caption = wrapText(`${input.title} · ${input.names.summary(o.meanTau, o.top1Rate)}`, f.width, fs, f.measure)
  const captionH = caption.length * pitch + fs * 0.4
  const h = f.height - captionH
  const heads = [input.names.attention, input.names.importance]
  const arrange = (row: boolean) => {
    const box = (i: number) =>
      row
        ? { x: f.x + i * ((f.width + gap) / 2), y: f.y, width: (f.width - gap) / 2, height: h }
        : { x: f.x, y: f.y + i * ((h + gap) / 2), width: f.width, height: (h - gap) / 2 }
    const lines = heads.map((t, i) => wrapText(t, box(i).width, fs, f.measure, true).slice(0, 2))
    const headH = Math.max(...lines.map((l) => l.length)) * pitch + fs * 0.3
    const body = (i: number): Frame => ({ ...f, ...box(i), y: box(i).y + headH, height: box(i).height - headH })
    return { box, lines, body }
  }
  const heat = (attention: number[][], frame?: Frame): HeatmapInput => ({
    srcTokens: o.srcWords,
    tgtTokens: o.tgtTokens,
    attention,
    norm: 'fixed',
    scale: 'linear',
    colormap: input.colormap,
    colorScale: input.colorScale,
    labels: 'off',
    frame,
  })
  // Side by side or one above the other, whichever skips fewer token labels (side by side on a tie);
  // one above the other where the frame asks for the other arrangement (the fitter, a slide).
  const skipped = (a: ReturnType<typeof arrange>) => {
    const l = heatmapLayout(heat(o.attention), a.body(0))
    return l.colStep + l.rowStep
  }
  const [wide, tall] = [arrange(true), arrange(false)]
  const { box, lines, body } = f.alternative || skipped(tall) < skipped(wide) ? tall : wide
  const elements: GraphicElement[] = []
  lines.forEach((ls, i) =>
    ls.forEach((l, k) => elements.push(textElement(l, box(i).x + box(i).width / 2, box(i).y + (k + 0.5) * pitch, f, { align: 'center', bold: true }))),
  )
  caption.forEach((l, k) => elements.push(textElement(l, f.x + f.width / 2, f.y + h + fs * 0.4 + (k + 0.5) * pitch, f, { align: 'center' })))
  return mergePanels([buildHeatmapOption(heat(o.attention, body(0))), buildHeatmapOption(heat(importanceRows(o.importance), body(1)))], elements)
}
