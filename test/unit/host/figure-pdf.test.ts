import { execFileSync } from '../../spawn-sync'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Translation } from '../../../src/shared/api'
import { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS, type FigureData, type FigureSpec } from '../../../src/shared/figure'
import { renderFigure } from '../../../src/host/export/figure'
import { InferenceService } from '../../../src/engine/service'
import { BUNDLED_MODELS, tempDir } from '../../helpers'

let en: Translation
let zh: Translation

beforeAll(async () => {
  const svc = new InferenceService()
  try {
    en = await svc.translate(join(BUNDLED_MODELS, 'en-fr-local-p.onnx'), 'A little girl climbing into a wooden playhouse.')
    zh = await svc.translate(join(BUNDLED_MODELS, 'zh-en-local-p.onnx'), '我们明天去公园散步。')
  } finally {
    await svc.closeAll()
  }
}, 60_000)

const pdfFile = async (data: FigureData, spec: Partial<FigureSpec>): Promise<string> => {
  const file = join(tempDir(), 'f.pdf')
  writeFileSync(file, await renderFigure(data, { ...DEFAULT_FIGURE, ...spec, format: 'pdf' }))
  return file
}

/** pdffonts' table: name, type, embedded, subset. */
function fonts(file: string): { name: string; type: string; emb: boolean; sub: boolean }[] {
  return execFileSync('pdffonts', [file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => {
      const cols = line.trim().split(/\s{2,}|\s(?=yes|no)/)
      const flags = line.match(/\b(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/)!
      return { name: cols[0], type: line.slice(37, 55).trim(), emb: flags[1] === 'yes', sub: flags[2] === 'yes' }
    })
}

const pageSize = (file: string) => {
  const m = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))!
  return [Number(m[1]), Number(m[2])]
}

/** A page (or PNG) as ink, 0 (white) to 255 (black), one number per pixel. */
function ink(png: PNG): Float64Array {
  const g = new Float64Array(png.width * png.height)
  for (let i = 0; i < g.length; i++) g[i] = 255 - (0.299 * png.data[4 * i] + 0.587 * png.data[4 * i + 1] + 0.114 * png.data[4 * i + 2])
  return g
}

/**
 * Tile by tile, the shift (in pixels, up to ±`most`) that lines the second image's ink up best
 * with the first's (normalised cross-correlation). Renderers draw strokes a little heavier or
 * lighter; a label drawn somewhere else shows as a shift.
 */
function tileShifts(a: Float64Array, b: Float64Array, width: number, height: number, tile = 48, most = 4): { x: number; y: number; dx: number; dy: number }[] {
  const out: { x: number; y: number; dx: number; dy: number }[] = []
  for (let y0 = most; y0 + tile + most <= height; y0 += tile) {
    for (let x0 = most; x0 + tile + most <= width; x0 += tile) {
      let inkA = 0
      let inkB = 0
      for (let y = y0; y < y0 + tile; y++) {
        for (let x = x0; x < x0 + tile; x++) {
          inkA += a[y * width + x]
          inkB += b[y * width + x]
        }
      }
      // Only tiles with some ink in both, and not a flat fill (a cell of the heatmap).
      if (inkA < 255 * 20 || inkB < 255 * 20 || inkA > 255 * tile * tile * 0.6) continue
      const scores: { score: number; dx: number; dy: number }[] = []
      for (let dy = -most; dy <= most; dy++) {
        for (let dx = -most; dx <= most; dx++) {
          let ab = 0
          let aa = 0
          let bb = 0
          for (let y = y0; y < y0 + tile; y++) {
            for (let x = x0; x < x0 + tile; x++) {
              const p = a[y * width + x]
              const q = b[(y + dy) * width + x + dx]
              ab += p * q
              aa += p * p
              bb += q * q
            }
          }
          scores.push({ score: ab / Math.sqrt(aa * bb || 1), dx, dy })
        }
      }
      // Of shifts that fit as well (a flat fill or a long edge fits many), the smallest.
      const top = Math.max(...scores.map((x) => x.score))
      const best = scores.filter((x) => x.score >= top - 0.002).sort((p, q) => Math.abs(p.dx) + Math.abs(p.dy) - Math.abs(q.dx) - Math.abs(q.dy))[0]
      out.push({ x: x0, y: y0, dx: best.dx, dy: best.dy })
    }
  }
  return out
}

describe('PDF export: physical size and embedded fonts', () => {
  it("pages are the presets' physical sizes in points (a single column is 3.5 in = 252 pt wide; a paper figure's height follows its content)", async () => {
    const heatmap: FigureData = { view: 'heatmap', translation: en }
    for (const [preset, size] of [
      ['paper-single', [252, 216]],
      ['paper-double', [504, 252]],
      ['slide-16x9', [960, 540]],
      ['slide-4x3', [720, 540]],
    ] as const) {
      const font = FONT_PRESETS[preset.startsWith('paper') ? 'paper' : 'lecture']
      const [w, h] = pageSize(await pdfFile(heatmap, { ...SIZE_PRESETS[preset], fontSize: font }))
      expect(w).toBe(size[0])
      if (preset.startsWith('paper')) expect(h).toBeGreaterThanOrEqual(size[1])
      else expect(h).toBe(size[1])
    }
  })

  it('Latin text is set in embedded, subset DejaVu Sans (bold where bold), Chinese in embedded Noto Sans CJK; pdftoppm renders the page', async () => {
    const latin = fonts(
      await pdfFile({ view: 'heatmap', translation: en }, { ...SIZE_PRESETS['paper-single'], fontSize: FONT_PRESETS.paper, title: 'local-p' }),
    )
    expect(latin.map((f) => f.name.replace(/^[A-Z]{6}\+/, ''))).toEqual(expect.arrayContaining(['DejaVuSans', 'DejaVuSans-Bold']))
    expect(latin.every((f) => f.emb && f.sub)).toBe(true)
    expect(latin.some((f) => /CJK/.test(f.name))).toBe(false)
    const file = await pdfFile(
      { view: 'heatmap', translation: zh },
      { ...SIZE_PRESETS['paper-single'], fontSize: FONT_PRESETS.paper, lang: 'zh', title: '局部注意力 local-p' },
    )
    const cjk = fonts(file)
    expect(cjk.map((f) => f.name.replace(/^[A-Z]{6}\+/, ''))).toEqual(
      expect.arrayContaining(['DejaVuSans', 'DejaVuSans-Bold', 'NotoSansCJKsc-Regular', 'NotoSansCJKsc-Bold']),
    )
    expect(cjk.every((f) => f.emb && f.sub)).toBe(true)
    const dir = tempDir()
    execFileSync('pdftoppm', ['-png', '-r', '300', '-singlefile', file, join(dir, 'page')])
    const page = PNG.sync.read(readFileSync(join(dir, 'page.png')))
    // 3.5 in at 300 dpi.
    expect(page.width).toBe(1050)
  })

  it('each PDF names its font subsets with tags of its own (not the same CZZZZZ+ in every file)', async () => {
    const a = fonts(await pdfFile({ view: 'heatmap', translation: en }, { ...SIZE_PRESETS['paper-single'], fontSize: FONT_PRESETS.paper, title: 'a' }))
    const b = fonts(
      await pdfFile({ view: 'heatmap', translation: zh }, { ...SIZE_PRESETS['paper-single'], fontSize: FONT_PRESETS.paper, lang: 'zh', title: 'b 注意' }),
    )
    const tag = (f: { name: string }) => /^([A-Z]{6})\+/.exec(f.name)![1]
    const [ta, tb] = [a.map(tag), b.map(tag)]
    expect(new Set(ta).size).toBe(ta.length)
    expect(new Set(tb).size).toBe(tb.length)
    expect(ta.filter((t) => tb.includes(t))).toEqual([])
  })

  it('the PDF page and the PNG put the same ink in the same place: labels, rotated ones too, land where they do in the PNG', async () => {
    for (const [data, lang] of [
      [{ view: 'heatmap', translation: en }, 'en'],
      [{ view: 'heatmap', translation: zh }, 'zh'],
      [{ view: 'local', translation: en, windowD: 5, step: 2 }, 'en'],
    ] as [FigureData, 'en' | 'zh'][]) {
      const spec: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['paper-single'], fontSize: FONT_PRESETS.paper, lang, dpi: 288, title: 'Attention 注意力' }
      const png = PNG.sync.read(await renderFigure(data, { ...spec, format: 'png' }))
      const dir = tempDir()
      writeFileSync(join(dir, 'f.pdf'), await renderFigure(data, { ...spec, format: 'pdf' }))
      execFileSync('pdftoppm', ['-png', '-r', '288', join(dir, 'f.pdf'), join(dir, 'page')])
      const page = PNG.sync.read(
        readFileSync(
          join(
            dir,
            readdirSync(dir).find((f) => f.startsWith('page'))!,
          ),
        ),
      )
      expect([page.width, page.height]).toEqual([png.width, png.height])
      // At 288 dpi four pixels are a point: every tile of labels lines up within a pixel.
      const shifts = tileShifts(ink(png), ink(page), png.width, png.height)
      expect(shifts.length, `${data.view} ${lang}: tiles with ink`).toBeGreaterThan(20)
      expect(
        shifts.filter((t) => Math.abs(t.dx) > 1 || Math.abs(t.dy) > 1),
        `${data.view} ${lang}`,
      ).toEqual([])
    }
  })
})
