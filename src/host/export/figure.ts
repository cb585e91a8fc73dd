/**
 * Figures without a window: the shared chart builders rendered by ECharts' server-side SVG
 * renderer, then rasterised (resvg) or laid into a PDF as vectors (PDFKit). The app's Export
 * dialog and `attention-lens export` both come here, so they produce the same file.
 */
import { existsSync } from 'node:fs'
import { Resvg } from '@resvg/resvg-js'
import * as echarts from 'echarts/core'
import PDFDocument from 'pdfkit'
import SVGtoPDF from 'svg-to-pdfkit'
import { BarChart, CustomChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts'
import { GraphicComponent, GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent, MarkPointComponent, TitleComponent, TooltipComponent, VisualMapComponent } from 'echarts/components'
import { LegacyGridContainLabel } from 'echarts/features'
import { SVGRenderer } from 'echarts/renderers'
import { buildComparisonOption } from '../../shared/charts/comparison'
import { buildCorpusOption } from '../../shared/charts/corpus'
import { buildForecastOption } from '../../shared/charts/forecast'
import { buildHeatmapOption } from '../../shared/charts/heatmap'
import { buildSpotlightOption } from '../../shared/charts/local'
import type { FigureData, FigureSpec } from '../../shared/figure'

echarts.use([BarChart, CustomChart, HeatmapChart, LineChart, ScatterChart, GraphicComponent, GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent, MarkPointComponent, TitleComponent, TooltipComponent, VisualMapComponent, SVGRenderer, LegacyGridContainLabel])

export type { FigureData }

// Without a canvas, ECharts guesses text widths too narrow for the fonts resvg and PDFKit use
// (DejaVu Sans, Noto Sans CJK), and labels get clipped; measure with their real proportions.
echarts.setPlatformAPI({
  measureText(text: string, font?: string) {
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(font ?? '')?.[1] ?? 12)
    let em = 0
    for (const ch of text) em += /[\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]/.test(ch) ? 1 : /[A-Z@MWmw%]/.test(ch) ? 0.78 : /[iljtf.,:;'|!I()\[\] ]/.test(ch) ? 0.34 : 0.6
    return { width: em * size }
  },
})

/** Latin first, then CJK: resvg and PDFKit pick the first family that has a glyph. */
export const FONT_FAMILY = 'DejaVu Sans, Noto Sans CJK SC, sans-serif'
const CJK_FONTS = ['/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc']
const LATIN_FONTS = ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf']

export function cjkFont(): string | null {
  return CJK_FONTS.find(existsSync) ?? null
}

const BACKGROUND = { light: '#ffffff', dark: '#111827', transparent: 'transparent' } as const

export function buildFigureOption(data: FigureData, spec: FigureSpec): Record<string, unknown> {
  let option: Record<string, unknown>
  switch (data.view) {
    case 'heatmap': {
      const t = data.translation
      option = buildHeatmapOption({
        srcTokens: t.srcTokens,
        tgtTokens: t.tgtTokens,
        attention: t.attention,
        positions: spec.localOverlay ? t.positions : null,
        windows: spec.localOverlay ? t.windows : null,
        colormap: spec.colormap,
        fontSize: spec.fontSize,
        labels: 'auto',
      })
      if (!spec.legend) (option.visualMap as Record<string, unknown>).show = false
      break
    }
    case 'local': {
      const t = data.translation
      const i = data.step
      option = buildSpotlightOption({
        srcTokens: t.srcTokens,
        align: t.align![i],
        gaussian: t.gaussian![i],
        attention: t.attention[i],
        position: t.positions![i],
        window: t.windows![i],
        windowD: data.windowD,
        kind: t.gaussian![i].some((g) => g > 0 && g < 1) ? 'local-p' : 'local-m',
      })
      break
    }
    case 'comparison':
      option = buildComparisonOption({ translations: data.translations, names: data.names })
      break
    case 'corpus':
      option = buildCorpusOption(data.corpus)
      break
    case 'forecast':
      option = buildForecastOption({ result: data.forecast, width: spec.width, selectedStep: data.step, colormap: spec.colormap, fontSize: spec.fontSize, dark: spec.theme === 'dark' })
      if (!spec.legend && option.visualMap) (option.visualMap as Record<string, unknown>).show = false
      break
  }
  const dark = spec.theme === 'dark'
  const fg = dark ? '#e5e7eb' : '#111827'
  const titles: Record<string, unknown>[] = []
  if (spec.title) titles.push({ text: spec.title, left: 'center', top: 8, textStyle: { fontSize: spec.fontSize + 4, color: fg } })
  if (spec.caption) titles.push({ text: spec.caption, left: 'center', bottom: 6, textStyle: { fontSize: spec.fontSize - 2, fontWeight: 'normal', color: fg } })
  // A figure with several grids (the forecast) moves its first grid down and its last one up.
  const grids = (Array.isArray(option.grid) ? option.grid : [option.grid]).map((g) => ({ ...(g as Record<string, unknown>) }))
  const [first, last] = [grids[0], grids[grids.length - 1]]
  if (spec.title && typeof (first.top ?? 60) === 'number') first.top = Number(first.top ?? 60) + spec.fontSize + 16
  if (spec.caption && typeof (last.bottom ?? 10) === 'number') last.bottom = Number(last.bottom ?? 10) + spec.fontSize + 12
  const grid = Array.isArray(option.grid) ? grids : grids[0]
  // A title takes the top band, so the legend (if any) moves below it.
  const legend = option.legend && spec.title ? { ...(option.legend as Record<string, unknown>), top: Number((option.legend as { top?: number }).top ?? 0) + spec.fontSize + 18 } : option.legend
  return {
    ...option,
    legend,
    grid,
    title: titles,
    backgroundColor: BACKGROUND[spec.theme],
    textStyle: { fontFamily: FONT_FAMILY, fontSize: spec.fontSize, color: fg },
    tooltip: undefined,
  }
}

export function renderSvg(data: FigureData, spec: FigureSpec): string {
  const chart = echarts.init(null, spec.theme === 'dark' ? 'dark' : undefined, { renderer: 'svg', ssr: true, width: spec.width, height: spec.height })
  try {
    chart.setOption(buildFigureOption(data, spec))
    return chart.renderToSVGString()
  } finally {
    chart.dispose()
  }
}

/**
 * ECharts writes some labels with the CSS `font` shorthand, which resvg ignores (it then draws
 * them at 12px); spell it out as longhand properties for the rasteriser and the PDF path.
 */
export function expandFontShorthand(svg: string): string {
  return svg.replace(
    /style="font:\s*(normal|italic|oblique)\s+(normal|bold|bolder|lighter|\d{3})\s+([\d.]+)px\s+([^";]+);?"/g,
    (_m, style: string, weight: string, size: string, family: string) =>
      `style="font-style:${style};font-weight:${weight};font-size:${size}px;font-family:${family.trim()};"`,
  )
}

export async function renderPng(svg: string, scale: number): Promise<Buffer> {
  svg = expandFontShorthand(svg)
  const fontFiles = [...LATIN_FONTS.filter(existsSync), ...(cjkFont() ? [cjkFont()!] : [])]
  const r = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    font: { loadSystemFonts: fontFiles.length === 0, fontFiles, defaultFontFamily: 'DejaVu Sans' },
  })
  return Buffer.from(r.render().asPng())
}

export async function renderPdf(svg: string, width: number, height: number): Promise<Buffer> {
  svg = expandFontShorthand(svg)
  const doc = new PDFDocument({ size: [width, height], margin: 0, info: { Title: 'Attention Lens figure', Creator: 'Attention Lens' } })
  const latin = LATIN_FONTS.find(existsSync)
  const cjk = cjkFont()
  if (latin) doc.registerFont('latin', latin)
  if (cjk) doc.registerFont('cjk', cjk, 'NotoSansCJKsc-Regular')
  const chunks: Buffer[] = []
  doc.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()))
  SVGtoPDF(doc, svg, 0, 0, {
    width,
    height,
    assumePt: true,
    // Noto Sans CJK covers Latin and CJK alike, so one embedded font serves every label.
    fontCallback: () => (cjk ? 'cjk' : latin ? 'latin' : 'Helvetica'),
  })
  doc.end()
  await done
  return Buffer.concat(chunks)
}

/** Where a heatmap cell's centre and size land in the figure, in layout pixels (for tests). */
export function locateCell(data: FigureData, spec: FigureSpec, s: number, t: number): { x: number; y: number; w: number; h: number } {
  const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width: spec.width, height: spec.height })
  try {
    chart.setOption(buildFigureOption(data, spec))
    const at = (a: number, b: number) => chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [a, b]) as number[]
    const [x, y] = at(s, t)
    const [x1, y1] = at(s + 1, t + 1)
    return { x, y, w: Math.abs(x1 - x), h: Math.abs(y1 - y) }
  } finally {
    chart.dispose()
  }
}

/** One figure file's bytes. */
export async function renderFigure(data: FigureData, spec: FigureSpec): Promise<Buffer> {
  const svg = renderSvg(data, spec)
  if (spec.format === 'svg') return Buffer.from(svg, 'utf8')
  if (spec.format === 'png') return renderPng(svg, spec.scale)
  return renderPdf(svg, spec.width, spec.height)
}
