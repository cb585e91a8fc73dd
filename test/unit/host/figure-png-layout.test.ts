/**
 * The PNG export path lays a figure out as the PDF path does: through the real exporter
 * (renderFigure), the SVG resvg rasterised for the PNG carries the same texts at the same places
 * and sizes as the SVG laid into the PDF, and the PNG is the PDF's page (read back by poppler) at
 * its resolution. The SVGs are taken where they leave the exporter: resvg's and svg-to-pdfkit's
 * inputs are recorded by wrapping the two libraries.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_FIGURE, FONT_PRESETS, fontForSize, SIZE_PRESETS, type FigureData, type FigureSpec } from '../../../src/shared/figure'
import { figureInUnits } from '../../../src/shared/attention/word-figure'
import { renderFigure } from '../../../src/host/export/figure'
import { InferenceService } from '../../../src/engine/service'
import { BUNDLED_MODELS } from '../../helpers'
import { popplerWords } from './pdf-readback'

const seen = vi.hoisted(() => ({ png: [] as string[], pdf: [] as string[] }))

vi.mock('@resvg/resvg-js', async (importOriginal) => {
  const lib = await importOriginal<typeof import('@resvg/resvg-js')>()
  // Called with `new`: returns the real renderer, having noted the SVG it was given.
  function Resvg(svg: string | Buffer, options?: ConstructorParameters<typeof lib.Resvg>[1]) {
    seen.png.push(String(svg))
    return new lib.Resvg(svg, options)
  }
  return { ...lib, Resvg }
})

vi.mock('svg-to-pdfkit', async (importOriginal) => {
  const lib = await importOriginal<{ default: (doc: unknown, svg: string, ...rest: unknown[]) => void }>()
  return {
    default: (doc: unknown, svg: string, ...rest: unknown[]) => {
      seen.pdf.push(svg)
      return lib.default(doc, svg, ...rest)
    },
  }
})

const model = (name: string) => join(BUNDLED_MODELS, `${name}.onnx`)
const SENTENCES = { en: 'A little girl in a pink dress is running on the beach.', zh: '他拿出了几枚硬币。' }
const PAIR = { en: 'en-fr', zh: 'zh-en' } as const

interface Sample {
  what: string
  data: FigureData
  spec: FigureSpec
}
const samples: Sample[] = []
let dir = ''

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'al-png-layout-'))
  const svc = new InferenceService()
  try {
    for (const lang of ['en', 'zh'] as const) {
      const pair = PAIR[lang]
      const text = SENTENCES[lang]
      const local = await svc.translate(model(`${pair}-local-p`), text)
      const bahdanau = await svc.translate(model(`${pair}-bahdanau`), text)
      const views: Record<string, FigureData> = {
        heatmap: { view: 'heatmap', translation: local },
        sidebyside: { view: 'sidebyside', a: bahdanau, b: local, names: [`${pair}-bahdanau · greedy`, `${pair}-local-p · greedy`] },
        local: { view: 'local', translation: local, windowD: 5, step: 3 },
      }
      // Slides (a fixed page) and paper (a page that grows with its content), each at its own resolution.
      const sample = (
        lang === 'en'
          ? [
              ['heatmap', 'slide-16x9', 96],
              ['sidebyside', 'slide-4x3', 144],
              ['sidebyside', 'paper-single', 300],
              ['local', 'paper-double', 200],
            ]
          : [
              ['heatmap', 'paper-single', 300],
              ['sidebyside', 'slide-16x9', 96],
              ['local', 'slide-4x3', 144],
              ['sidebyside', 'paper-double', 150],
            ]
      ) as [string, keyof typeof SIZE_PRESETS, number][]
      for (const [view, size, dpi] of sample) {
        const spec: FigureSpec = {
          ...DEFAULT_FIGURE,
          ...SIZE_PRESETS[size],
          // Side by side of 14 tokens on a 4:3 slide fits whole at 15 pt, not at 20 (where the fitter would split it: issue 40).
          fontSize: view === 'sidebyside' && size === 'slide-4x3' ? 15 : FONT_PRESETS[fontForSize(size)],
          lang,
          dpi,
          format: 'pdf',
          title: lang === 'zh' ? '注意力在看哪里' : 'Where each word looks',
        }
        samples.push({ what: `${view} ${size} ${lang} ${dpi} dpi`, data: figureInUnits(views[view], 'words'), spec })
      }
    }
  } finally {
    await svc.closeAll()
  }
}, 120_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const unescape = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|#39|apos);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'", apos: "'" })[e]!)

/** Every text of an SVG in order: its string, where it stands, how it is turned, its size and weight. */
function texts(svg: string) {
  return [...svg.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)].map(([, attrs, body]) => {
    const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(attrs)?.[1] ?? null
    const style = attr('style') ?? ''
    return {
      text: unescape(body),
      x: Number(attr('x') ?? 0),
      y: Number(attr('y') ?? 0),
      anchor: attr('text-anchor') ?? 'start',
      transform: attr('transform'),
      size: Number(/font-size:\s*([\d.]+)px/.exec(style)?.[1] ?? NaN),
      bold: /font-weight:\s*(bold|[6-9]00)/.test(style),
    }
  })
}

describe('the PNG export path: the layout of the PDF', () => {
  it('the SVG rasterised for the PNG has the texts of the SVG laid into the PDF, at the same places and sizes; the PNG is the PDF page at its resolution', async () => {
    expect(samples.length).toBe(8)
    for (const [k, { what, data, spec }] of samples.entries()) {
      seen.png.length = 0
      seen.pdf.length = 0
      const png = await renderFigure(data, { ...spec, format: 'png' })
      const pdf = await renderFigure(data, { ...spec, format: 'pdf' })
      expect([seen.png.length, seen.pdf.length], what).toEqual([1, 1])
      const [raster, vector] = [texts(seen.png[0]), texts(seen.pdf[0])]
      // A figure's texts: its title, axis titles and every token label at least.
      expect(raster.length, what).toBeGreaterThan(20)
      expect(
        raster.every((t) => t.size > 0),
        what,
      ).toBe(true)
      expect(raster, what).toEqual(vector)
      const file = join(dir, `${k}.pdf`)
      writeFileSync(file, pdf)
      const { page } = popplerWords(file)
      const img = PNG.sync.read(png)
      expect([img.width, img.height], what).toEqual([Math.round((page.width * spec.dpi) / 72), Math.round((page.height * spec.dpi) / 72)])
    }
  }, 180_000)
})
