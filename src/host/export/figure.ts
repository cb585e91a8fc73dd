/**
 * Figures without a window: the shared chart builders rendered by ECharts' server-side SVG
 * renderer, then rasterised (resvg) or laid into a PDF as vectors (PDFKit). The app's Export
 * dialog and `attention-lens export` both come here, so they produce the same file.
 *
 * The layout unit is the point (1/72 in): a figure W points wide is a PDF page W points wide, an
 * SVG W pt wide and a PNG of W/72 inches at its resolution, with text at the size asked for.
 */
import { createHash } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { Resvg } from '@resvg/resvg-js'
import * as echarts from 'echarts/core'
import PDFDocument from 'pdfkit'
import SVGtoPDF from 'svg-to-pdfkit'
import { SVGRenderer } from 'echarts/renderers'
import { CHART_PARTS, type ChartOption } from '../../shared/charts/echarts-parts'
import { fitFigure, textsFirstRender, type FitOptions, type FittedFigure } from '../../shared/charts/fit'
import { normaliseText } from '../../shared/charts/text-boxes'
import { unitsNote } from '../../shared/attention/word-figure'
import { pngPixels, type FigureData, type FigureSpec } from '../../shared/figure'
import { joinCellRuns } from './cell-runs'
import { withKeptSubsets } from './font-subsets'
import { CJK_FAMILY, face, fontFiles, LATIN_FAMILY, measureCssFont, measureText, textRuns } from './fonts'

echarts.use([...CHART_PARTS, SVGRenderer])

export type { FigureData }
export { expandFontShorthand, normaliseText } from '../../shared/charts/text-boxes'
export { FONT_FAMILY } from './fonts'

// Without a canvas ECharts guesses text widths; give it the widths the fonts really have.
echarts.setPlatformAPI({ measureText: (text: string, font?: string) => ({ width: measureCssFont(text, font) }) })

function withOption<T>(option: ChartOption, width: number, height: number, use: (chart: echarts.EChartsType) => T): T {
  const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width, height })
  try {
    chart.setOption(option)
    return use(chart)
  } finally {
    chart.dispose()
  }
}

/** ECharts' SVG painter, whose renderToString takes the options renderToSVGString leaves out. */
type SvgPainter = { renderToString(opts: { cssEmphasis?: boolean; cssAnimation?: boolean }): string }

/**
 * An option as the SVG the exporter writes: every text on its alphabetic baseline, one font per
 * text. `hover: false` leaves out the hover styles (a CSS class per shape and a <style> of rules,
 * one per colour): an animation's frames are never hovered, and without them ECharts draws a
 * 1500-shape frame in less time and resvg reads it in half the time (bench/ANIMATION-RESULTS.md).
 */
export const optionSvg = (option: ChartOption, width: number, height: number, hover = true) =>
  splitFontRuns(
    normaliseText(
      withOption(option, width, height, (chart) =>
        hover ? chart.renderToSVGString() : (chart.getZr().painter as unknown as SvgPainter).renderToString({ cssEmphasis: false, cssAnimation: false }),
      ),
    ),
  )

/** What the fitter draws a candidate with: its texts alone, and whole where the fit is kept (textsFirstRender). */
const fitSvg = textsFirstRender((option, width, height) => optionSvg(option, width, height))
/**
 * The same for a PNG or a PDF, without the hover styles: resvg and svg-to-pdfkit never apply them
 * (the same pixels, the same page), and ECharts draws a figure and svg-to-pdfkit reads it in less
 * time without a class on every shape.
 */
const fitSvgStill = textsFirstRender((option, width, height) => optionSvg(option, width, height, false))

/**
 * The figure fitted to its page with the fonts' real metrics (a paper figure may come out taller
 * than asked, its text smaller, the view laid out its other way: `note` says so); throws a
 * RefusedError naming what does fit when nothing does. Its `svg` has hover styles only where it
 * is the file written (`spec.format` 'svg').
 */
export function fitted(data: FigureData, spec: FigureSpec, options: FitOptions = {}): FittedFigure {
  return fitFigure(data, spec, measureText, spec.format === 'svg' ? fitSvg : fitSvgStill, options)
}

/** The figure's ECharts option, fitted. */
export function figureOption(data: FigureData, spec: FigureSpec): ChartOption {
  return fitted(data, spec).option
}

/**
 * The figure as SVG in layout units (points as pixels), every text placed on its alphabetic
 * baseline: what resvg rasterises and PDFKit lays out.
 */
export function renderSvg(data: FigureData, spec: FigureSpec): string {
  return fitted(data, spec).svg
}

/** The SVG file: its size in points, so it is placed at its physical size; `description` (what its rows and columns are) as its <desc>. */
export function svgFile(svg: string, spec: FigureSpec, description: string | null = null): string {
  const sized = svg.replace(/^<svg width="[\d.]+" height="[\d.]+"/, `<svg width="${spec.width}pt" height="${spec.height}pt"`)
  return description ? sized.replace(/^(<svg\b[^>]*>)/, `$1<desc>${escape(description)}</desc>`) : sized
}

/** A PNG's pHYs chunk: its resolution, so a page layout program places it at its physical size. */
function withResolution(png: Buffer, dpi: number): Buffer {
  const ppm = Math.round(dpi / 0.0254)
  const body = Buffer.alloc(13)
  body.write('pHYs', 0, 'latin1')
  body.writeUInt32BE(ppm, 4)
  body.writeUInt32BE(ppm, 8)
  body.writeUInt8(1, 12)
  const chunk = Buffer.alloc(21)
  chunk.writeUInt32BE(9, 0)
  body.copy(chunk, 4)
  chunk.writeUInt32BE(crc32(body) >>> 0, 17)
  // Right after the signature (8 bytes) and IHDR (25 bytes).
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)])
}

/** A PNG iTXt chunk (UTF-8 text under a keyword) right after IHDR. */
function withText(png: Buffer, keyword: string, text: string): Buffer {
  const body = Buffer.concat([Buffer.from(`iTXt${keyword}\0\0\0\0\0`, 'latin1'), Buffer.from(text, 'utf8')])
  const chunk = Buffer.alloc(body.length + 8)
  chunk.writeUInt32BE(body.length - 4, 0)
  body.copy(chunk, 4)
  chunk.writeUInt32BE(crc32(body) >>> 0, body.length + 4)
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)])
}

/**
 * The page at its resolution, to the pixel both ways: scaled to its width alone, resvg rounds the
 * height down (a 405 pt page at 300 dpi came out 1687 px high, not 1688), so the SVG is given the
 * pixel size and the page as its view box, stretched by under a pixel to fill it.
 */
export async function renderPng(svg: string, spec: Pick<FigureSpec, 'width' | 'height' | 'dpi'>): Promise<Buffer> {
  return withResolution(Buffer.from(rasterise(svg, spec).asPng()), spec.dpi)
}

/**
 * The page rasterised (as renderPng's PNG, whose pixels an animation's frames are). `texts: false`
 * says the SVG has no <text> (an animation's frames, their texts drawn as outlines): resvg then
 * reads no font file, where it would read and parse each of `files` again for every frame.
 */
export function rasterise(svg: string, spec: Pick<FigureSpec, 'width' | 'height' | 'dpi'>, files = fontFiles(), texts = true): ReturnType<Resvg['render']> {
  const [w, h] = pngPixels(spec)
  const page = `viewBox="0 0 ${spec.width} ${spec.height}" preserveAspectRatio="none"`
  const sized = svg.replace(/^<svg\b([^>]*)>/, (_m, attrs: string) => {
    const rest = attrs.replace(/\s(width|height|viewBox|preserveAspectRatio)="[^"]*"/g, '')
    return `<svg width="${w}" height="${h}" ${page}${rest}>`
  })
  const r = new Resvg(sized, {
    fitTo: { mode: 'original' },
    font: texts ? { loadSystemFonts: files.length === 0, fontFiles: files, defaultFontFamily: LATIN_FAMILY } : { loadSystemFonts: false, fontFiles: [] },
  })
  return r.render()
}

const unescape = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|#39|apos);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'", apos: "'" })[e]!)
const escape = (s: string) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!)

/**
 * Each text of mixed scripts cut into texts of one font each, placed one after the other by the
 * widths the layout measured: PDFKit sets a text in one font, and resvg, given runs of both
 * fonts, sets the Latin ones in the regular weight. `all`: every text names its one font (the PDF
 * path, where the font is chosen by family).
 */
export function splitFontRuns(svg: string, all = false): string {
  return svg.replace(/<text\b([^>]*)>([^<]*)<\/text>/g, (whole, attrs: string, body: string) => {
    const runs = textRuns(unescape(body))
    if (!all && runs.length < 2) return whole
    const family = (script: string) => (script === 'cjk' ? CJK_FAMILY : LATIN_FAMILY)
    const style = /\sstyle="([^"]*)"/.exec(attrs)?.[1] ?? ''
    const kept = style.replace(/font-family:[^;"]*;?/, '').replace(/;?\s*$/, '')
    const restyle = (script: string) => ` style="${kept ? `${kept};` : ''}font-family:${family(script)};"`
    const plain = attrs.replace(/\sstyle="[^"]*"/, '')
    if (runs.length < 2) return `<text${plain}${restyle(runs[0]?.script ?? 'latin')}>${body}</text>`
    const size = Number(/font-size:\s*([\d.]+)px/.exec(style)?.[1] ?? 12)
    const bold = /font-weight:\s*(bold|[6-9]00)/.test(style)
    const widths = runs.map((r) => measureText(r.text, size, bold))
    const total = widths.reduce((a, b) => a + b, 0)
    const anchor = /\stext-anchor="(\w+)"/.exec(attrs)?.[1] ?? 'start'
    const x = Number(/\sx="([^"]*)"/.exec(attrs)?.[1] ?? 0)
    let at = anchor === 'middle' ? x - total / 2 : anchor === 'end' ? x - total : x
    const rest = plain
      .replace(/\stext-anchor="[^"]*"/, '')
      .replace(/\sx="[^"]*"/, '')
      .replace(/\sxml:space="[^"]*"/, '')
    return runs
      .map((r, i) => {
        const out = `<text${rest} text-anchor="start" x="${+at.toFixed(3)}"${/\s/.test(r.text) ? ' xml:space="preserve"' : ''}${restyle(r.script)}>${escape(r.text)}</text>`
        at += widths[i]
        return out
      })
      .join('')
  })
}

export async function renderPdf(svg: string, spec: Pick<FigureSpec, 'width' | 'height'>, description: string | null = null): Promise<Buffer> {
  return renderPdfPages([{ svg, spec }], description)
}

/** One PDF of several pages (a figure split into parts: one slide a page), each page its own size. */
export async function renderPdfPages(pages: { svg: string; spec: Pick<FigureSpec, 'width' | 'height'> }[], description: string | null = null): Promise<Buffer> {
  const { width, height } = pages[0].spec
  const info = { Title: 'Attention Lens figure', Creator: 'Attention Lens', ...(description ? { Subject: description } : {}) }
  const doc = new PDFDocument({ size: [width, height], margin: 0, info, autoFirstPage: true })
  const registered = new Set<string>()
  for (const script of ['latin', 'cjk'] as const) {
    for (const weight of ['regular', 'bold'] as const) {
      const f = face(script, weight)
      if (f) {
        // The face fontkit has already read (fonts.ts keeps it), not its path: PDFKit would read
        // and parse the file again for every PDF, 20 MB for each CJK collection.
        doc.registerFont(`${script}-${weight}`, withKeptSubsets(f.font) as unknown as string)
        registered.add(`${script}-${weight}`)
      }
    }
  }
  const chunks: Buffer[] = []
  doc.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()))
  pages.forEach(({ svg, spec }, i) => {
    if (i > 0) doc.addPage({ size: [spec.width, spec.height], margin: 0 })
    SVGtoPDF(doc, splitFontRuns(joinCellRuns(svg), true), 0, 0, {
      width: spec.width,
      height: spec.height,
      assumePt: true,
      fontCallback: (family: string, bold: boolean) => {
        const script = family.startsWith(CJK_FAMILY) ? 'cjk' : 'latin'
        const name = `${script}-${bold ? 'bold' : 'regular'}`
        if (registered.has(name)) return name
        return registered.has(`${script}-regular`) ? `${script}-regular` : bold ? 'Helvetica-Bold' : 'Helvetica'
      },
    })
  })
  doc.end()
  await done
  return withOwnSubsetTags(Buffer.concat(chunks))
}

/**
 * PDFKit names each font subset from its resource name (F1 → "BZZZZZ+DejaVuSans"), so every PDF
 * it writes carries the same tags, and a document that places two figures holds two different
 * subsets under one name. Each tag becomes six letters from a hash of this PDF and the old tag:
 * the same length, so the file's byte offsets stay valid.
 */
export function withOwnSubsetTags(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1')
  const digest = createHash('sha256').update(pdf).digest()
  const tags = new Map<string, string>()
  const tagFor = (old: string) => {
    if (!tags.has(old)) {
      const h = createHash('sha256').update(digest).update(old).digest()
      tags.set(old, Array.from(h.subarray(0, 6), (b) => String.fromCharCode(65 + (b % 26))).join(''))
    }
    return tags.get(old)!
  }
  return Buffer.from(
    text.replace(/\/(BaseFont|FontName) \/([A-Z]{6})\+/g, (_m, key: string, old: string) => `/${key} /${tagFor(old)}+`),
    'latin1',
  )
}

/** Where a heatmap cell's centre and size land in the figure, in layout units (for tests). */
export function locateCell(data: FigureData, spec: FigureSpec, s: number, t: number): { x: number; y: number; w: number; h: number } {
  const fit = fitted(data, spec)
  return withOption(fit.option, fit.spec.width, fit.spec.height, (chart) => {
    const at = (a: number, b: number) => chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [a, b]) as number[]
    const [x, y] = at(s, t)
    const [x1, y1] = at(s + 1, t + 1)
    return { x, y, w: Math.abs(x1 - x), h: Math.abs(y1 - y) }
  })
}

/** One figure file's bytes. */
export async function renderFigure(data: FigureData, asked: FigureSpec): Promise<Buffer> {
  return renderFitted(data, fitted(data, asked))
}

/**
 * The file of a figure already fitted (a caller that also reports the page fits it once). A figure
 * split into parts is one PDF of a page per part; as PNG or SVG, the first part (renderFittedFiles
 * gives every part's file).
 */
export async function renderFitted(data: FigureData, fit: FittedFigure): Promise<Buffer> {
  const { svg, spec } = fit
  // The caption metadata: whether the labels are words or subword pieces, and the rule that made words.
  const note = unitsNote(data, spec.lang)
  if (spec.format === 'svg') return Buffer.from(svgFile(svg, spec, note), 'utf8')
  if (spec.format === 'png') return note ? withText(await renderPng(svg, spec), 'Description', note) : renderPng(svg, spec)
  if (fit.parts)
    return renderPdfPages(
      fit.parts.map((p) => ({ svg: p.fit.svg, spec: p.fit.spec })),
      note,
    )
  return renderPdf(svg, spec, note)
}

/**
 * A fitted figure's files: one, or for a figure split into parts as PNG or SVG one per part, each
 * with its suffix ("-1", "-2", …, put before the extension); a PDF keeps its parts as pages.
 */
export async function renderFittedFiles(data: FigureData, fit: FittedFigure): Promise<{ suffix: string; bytes: Buffer }[]> {
  if (!fit.parts || fit.spec.format === 'pdf') return [{ suffix: '', bytes: await renderFitted(data, fit) }]
  const out: { suffix: string; bytes: Buffer }[] = []
  for (const [i, p] of fit.parts.entries()) out.push({ suffix: `-${i + 1}`, bytes: await renderFitted(p.data, p.fit) })
  return out
}

/** A figure's files as asked: fitted, then renderFittedFiles. */
export async function renderFigureFiles(data: FigureData, asked: FigureSpec): Promise<{ suffix: string; bytes: Buffer }[]> {
  return renderFittedFiles(data, fitted(data, asked))
}

export { withSuffix } from '../../shared/figure'
