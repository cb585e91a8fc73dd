import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Resvg } from '@resvg/resvg-js'
import { PNG } from 'pngjs'
import { describe, expect, it } from 'vitest'
import type { Translation } from '../../../src/shared/api'
import { colorAt } from '../../../src/shared/charts/colormaps'
import { DEFAULT_FIGURE, matrixCsv, type FigureSpec } from '../../../src/shared/figure'
import { writeAtomic } from '../../../src/host/export/atomic'
import { locateCell, renderFigure, type FigureData } from '../../../src/host/export/figure'
import { InferenceService } from '../../../src/engine/service'
import { parseSeriesCsv } from '../../../src/shared/series'
import { BUNDLED_MODELS, ROOT, tempDir } from '../../helpers'

/** A known matrix (not a model's): the largest weight sits at output 1, source 2. */
function known(): Translation {
  const attention = [
    [0.6, 0.3, 0.1, 0],
    [0.05, 0.05, 0.86, 0.04],
    [0.1, 0.2, 0.3, 0.4],
  ]
  return {
    modelId: 'm', source: 'un petit 猫', srcTokens: ['un', 'petit', '猫', '</s>'], srcUnknown: [false, false, false, false],
    tgtTokens: ['a', 'small', 'cat'], text: 'A small cat', attention, scores: attention, encoderStates: [], align: null,
    positions: null, windows: null, gaussian: null, tokenLogProbs: [-0.1, -0.2, -0.3], alternatives: [[], [], []],
    tgtUnknown: null, mode: 'greedy', beam: 1, logProb: -0.6, truncated: false, decodeMs: 1, provider: 'cpu',
  }
}
const spec = (p: Partial<FigureSpec>): FigureSpec => ({ ...DEFAULT_FIGURE, width: 640, height: 400, fontSize: 14, ...p })
const heatmap: FigureData = { view: 'heatmap', translation: known() }

describe('figure export', () => {
  it('PNG: the signature and the pixel size asked for', async () => {
    for (const scale of [1, 3]) {
      const png = await renderFigure(heatmap, spec({ format: 'png', scale }))
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      const img = PNG.sync.read(png)
      expect([img.width, img.height]).toEqual([640 * scale, 400 * scale])
    }
  })

  it('PNG pixel check: the largest weight\'s cell has the colour the map gives that weight', async () => {
    for (const colormap of ['viridis', 'greys'] as const) {
      const s = spec({ format: 'png', scale: 2, colormap })
      const img = PNG.sync.read(await renderFigure(heatmap, s))
      const cell = locateCell(heatmap, s, 2, 1)
      // Sample near the cell's corner, away from its value label and border.
      const px = Math.round((cell.x - cell.w / 2 + 4) * 2)
      const py = Math.round((cell.y - cell.h / 2 + 4) * 2)
      const i = (py * img.width + px) * 4
      const got = [img.data[i], img.data[i + 1], img.data[i + 2]]
      const want = colorAt(colormap, 0.86)
      got.forEach((c, k) => expect(Math.abs(c - want[k])).toBeLessThanOrEqual(3))
    }
  })

  it('SVG: parses, keeps vector text, and contains every token (Latin and Chinese) as text', async () => {
    const svg = (await renderFigure(heatmap, spec({ format: 'svg', title: '注意力 attention' }))).toString('utf8')
    expect(() => new Resvg(svg)).not.toThrow()
    const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])
    for (const tok of ['un', 'petit', '猫', '&lt;/s&gt;', 'a', 'small', 'cat', '注意力 attention']) expect(texts).toContain(tok)
  })

  it('PDF: a vector file that pdftoppm turns into an image', async () => {
    const dir = tempDir()
    const pdf = await renderFigure(heatmap, spec({ format: 'pdf', title: '注意力' }))
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    writeFileSync(join(dir, 'f.pdf'), pdf)
    execFileSync('pdftoppm', ['-png', '-r', '36', join(dir, 'f.pdf'), join(dir, 'page')])
    const page = readdirSync(dir).find((f) => f.startsWith('page') && f.endsWith('.png'))!
    const img = PNG.sync.read(readFileSync(join(dir, page)))
    expect(img.width).toBe(Math.round((640 * 36) / 72))
  })

  it('themes: dark and transparent backgrounds', async () => {
    const dark = PNG.sync.read(await renderFigure(heatmap, spec({ format: 'png', scale: 1, theme: 'dark' })))
    expect([dark.data[0], dark.data[1], dark.data[2], dark.data[3]]).toEqual([0x11, 0x18, 0x27, 255])
    const clear = PNG.sync.read(await renderFigure(heatmap, spec({ format: 'png', scale: 1, theme: 'transparent' })))
    expect(clear.data[3]).toBe(0)
  })

  it('the comparison and corpus figures render too', async () => {
    const t = known()
    const cmp = (await renderFigure({ view: 'comparison', translations: [t, t], names: ['none', 'bahdanau'] }, spec({ format: 'svg' }))).toString()
    expect(cmp).toContain('bahdanau')
    const bucket = (b: string, bleu: number) => ({ bucket: b, sentences: 10, bleu })
    const result = (model: string, attention: 'none' | 'bahdanau', a: number, b: number) => ({
      modelId: model, model, attention, fileName: `${model}.onnx`, sentences: 20, bleu: (a + b) / 2, bleuCased: a, byLength: [bucket('1-10', a), bucket('11-15', b)],
      seconds: 1, sentencesPerSecond: 20, attentionEntropy: null, diagonality: null, cached: false, hypotheses: [],
    })
    const corpus = { pair: 'en-fr', testSet: 'test', results: [result('en-fr-none', 'none', 30, 20), result('en-fr-bahdanau', 'bahdanau', 40, 38)] }
    const pdf = await renderFigure({ view: 'corpus', corpus }, spec({ format: 'pdf' }))
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    const svg = (await renderFigure({ view: 'corpus', corpus }, spec({ format: 'svg' }))).toString()
    expect(svg).toContain('en-fr-none (25.0)')
  })

  it('CSV of the matrix: tokens as headers, one row per output token', () => {
    const csv = matrixCsv(['un', 'a,b', '</s>'], ['x', 'y'], [[0.5, 0.25, 0.25], [0, 1, 0]])
    expect(csv.split('\n')[0]).toBe('target \\ source,un,"a,b",</s>')
    expect(csv.split('\n')[2]).toBe('y,0.00000,1.00000,0.00000')
  })

  it('writes atomically: a failed write leaves no file and says why', async () => {
    const dir = tempDir()
    await writeAtomic(join(dir, 'ok.svg'), 'x')
    expect(readdirSync(dir)).toEqual(['ok.svg'])
    await expect(writeAtomic(join(dir, 'missing', 'f.png'), 'x')).rejects.toThrow(/^Could not write .*f\.png: the folder does not exist\.$/)
    expect(existsSync(join(dir, 'missing'))).toBe(false)
    expect(readdirSync(dir)).toEqual(['ok.svg'])
  })
})

describe('forecast figure export', () => {
  // A live forecast from the bundled local-p forecaster, first held-out day, step +8 selected.
  const forecast = async (): Promise<FigureData> => {
    const svc = new InferenceService()
    const s = parseSeriesCsv(readFileSync(join(ROOT, 'resources', 'series', 'taylor-holdout.csv'), 'utf8'), 'taylor')
    const r = await svc.forecast(join(BUNDLED_MODELS, 'taylor-local-p.onnx'), s, 384)
    await svc.closeAll()
    return { view: 'forecast', forecast: r, step: 7 }
  }

  it('PNG, SVG and PDF of the series and the 48 × 384 heatmap, with the lag guides as text', async () => {
    const data = await forecast()
    const s = { ...DEFAULT_FIGURE, width: 1280, height: 720, title: 'Where each forecast step looks' }
    const png = PNG.sync.read(await renderFigure(data, { ...s, format: 'png', scale: 1 }))
    expect([png.width, png.height]).toEqual([1280, 720])
    mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true })
    writeFileSync(join(ROOT, 'test', 'artifacts', 'export-forecast-figure.png'), PNG.sync.write(png))
    const svg = (await renderFigure(data, { ...s, format: 'svg' })).toString('utf8')
    for (const text of ['lag 48 · 1 day', 'lag 336 · 1 week', 'origin', 'forecast', 'same time last week', 'Where each forecast step looks', '+8 03:30']) expect(svg).toContain(`>${text}<`)
    // One rect per heatmap cell (18,432) at least: the matrix is drawn as vectors.
    expect((svg.match(/<path d="M\d/g) ?? []).length + (svg.match(/<rect/g) ?? []).length).toBeGreaterThan(48 * 384)
    const dark = PNG.sync.read(await renderFigure(data, { ...s, format: 'png', scale: 1, theme: 'dark', fontSize: 14 }))
    expect([dark.data[0], dark.data[1], dark.data[2]]).toEqual([0x11, 0x18, 0x27])
    writeFileSync(join(ROOT, 'test', 'artifacts', 'export-forecast-dark.png'), PNG.sync.write(dark))
    const pdf = await renderFigure(data, { ...s, format: 'pdf' })
    const tmp = tempDir()
    writeFileSync(join(tmp, 'f.pdf'), pdf)
    execFileSync('pdftoppm', ['-png', '-r', '36', join(tmp, 'f.pdf'), join(tmp, 'page')])
    const page = PNG.sync.read(readFileSync(join(tmp, readdirSync(tmp).find((f) => f.startsWith('page'))!)))
    expect(page.width).toBe(Math.round((1280 * 36) / 72))
  }, 60_000)
})
