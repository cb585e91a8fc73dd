/**
 * What the export preview's fit worker is asked and answers (figure-fit.worker.ts, figure-fit-client.ts):
 * plain data, as a worker's messages must be.
 */
import type { FitAlternative, FittedFigure } from '../../../shared/charts/fit'
import type { FigureData, FigureSpec } from '../../../shared/figure'

/** A fit asked of the worker: `alternatives` also searches, where refused, for what fits instead (the slow part). */
export interface FitRequest {
  id: number
  data: FigureData
  spec: FigureSpec
  alternatives: boolean
}

/** A fit the preview no longer wants (its settings changed): dropped if the worker has not begun it. */
export interface FitCancel {
  cancel: number
}

/**
 * A figure fitted, as the preview shows it: one SVG of its page or, split into slides, of every
 * slide side by side in rows (one SVG, so the page reads as one figure); the page's size, the
 * sheet's, how many slides, the fitter's note.
 */
export interface FittedPages {
  svg: string
  slides: number
  width: number
  height: number
  sheet: { width: number; height: number }
  note: string | null
}

/** The page fitted, or the refusal and what fits instead. */
export type FitReply =
  { id: number; fitted: FittedPages } | { id: number; refused: { message: string; alternatives: FitAlternative[] } } | { id: number; failed: string }

/** Between two slides of the sheet, in points. */
const GAP = 24

/** The fitted figure as the preview shows it: every slide of a split one, as many columns as rows or one more (the tallest page's height, on paper). */
export function fittedPages(fit: FittedFigure): FittedPages {
  const pages = fit.parts?.map((p) => p.fit) ?? [fit]
  const [width, height] = [fit.spec.width, Math.max(...pages.map((p) => p.spec.height))]
  const cols = Math.ceil(Math.sqrt(pages.length))
  const rows = Math.ceil(pages.length / cols)
  const sheet = { width: cols * width + (cols - 1) * GAP, height: rows * height + (rows - 1) * GAP }
  const base = { slides: pages.length, width, height, sheet, note: fit.note }
  if (pages.length === 1) return { ...base, svg: fit.svg }
  // Each slide's drawing moved to its place on the sheet and outlined (ECharts' element ids are unique across charts).
  const slides = pages.map((p, i) => {
    const [x, y] = [(i % cols) * (width + GAP), Math.floor(i / cols) * (height + GAP)]
    const body = p.svg.replace(/^<svg\b[^>]*>/, '').replace(/<\/svg>\s*$/, '')
    return `<g transform="translate(${x},${y})">${body}<rect width="${width}" height="${p.spec.height}" fill="none" stroke="#94a3b8"/></g>`
  })
  const svg = `<svg width="${sheet.width}" height="${sheet.height}" viewBox="0 0 ${sheet.width} ${sheet.height}" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">${slides.join('')}</svg>`
  return { ...base, svg }
}
