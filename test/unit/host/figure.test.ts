import { execFileSync } from '../../spawn-sync'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { Resvg } from '@resvg/resvg-js'
import { PNG } from 'pngjs'
import * as v from 'valibot'
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest'
import type { CorpusResult, ForecastResult, Translation } from '../../../src/shared/api'
import { colorAt, type ColormapName } from '../../../src/shared/charts/colormaps'
import { DEFAULT_FIGURE, FigureArgs, matrixCsv, parseFigure, specProblem, type FigureSpec } from '../../../src/shared/figure'
import { writeAtomic } from '../../../src/host/export/atomic'
import { figureOption, locateCell, renderFigure, type FigureData } from '../../../src/host/export/figure'
import { FigureWorker, spawnFigureWorker } from '../../../src/host/export/pool'
import { InferenceService } from '../../../src/engine/service'
import { parseSeriesCsv } from '../../../src/shared/series'
import { BUNDLED_MODELS, ROOT, tempDir, tiny } from '../../helpers'

/** A known matrix (not a model's): the largest weight sits at output 1, source 2. */
function known(): Translation {
  const attention = [
    [0.6, 0.3, 0.1, 0],
    [0.05, 0.05, 0.86, 0.04],
    [0.1, 0.2, 0.3, 0.4],
  ]
  return {
    modelId: 'm',
    source: 'un petit 猫',
    srcTokens: ['un', 'petit', '猫', '</s>'],
    srcUnknown: [false, false, false, false],
    tgtTokens: ['a', 'small', 'cat'],
    text: 'A small cat',
    attention,
    scores: attention,
    encoderStates: [],
    align: null,
    positions: null,
    windows: null,
    gaussian: null,
    tokenLogProbs: [-0.1, -0.2, -0.3],
    alternatives: [[], [], []],
    tgtUnknown: null,
    mode: 'greedy',
    beam: 1,
    logProb: -0.6,
    truncated: false,
    decodeMs: 1,
    provider: 'cpu',
  }
}
// 480 × 300 pt: 640 × 400 pixels at 96 dpi (1×).
const spec = (p: Partial<FigureSpec>): FigureSpec => ({ ...DEFAULT_FIGURE, width: 480, height: 300, fontSize: 11, ...p })
const heatmap: FigureData = { view: 'heatmap', translation: known() }

describe('figure export', () => {
  it('PNG: the page rasterised at the resolution asked for, which the file records (pHYs)', async () => {
    for (const [dpi, size] of [
      [96, [640, 400]],
      [300, [2000, 1250]],
    ] as const) {
      const png = await renderFigure(heatmap, spec({ format: 'png', dpi }))
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      const img = PNG.sync.read(png)
      expect([img.width, img.height]).toEqual(size)
      const at = png.indexOf('pHYs')
      expect(at).toBeGreaterThan(0)
      // Pixels per metre, the same both ways, unit: metre.
      expect([png.readUInt32BE(at + 4), png.readUInt32BE(at + 8), png[at + 12]]).toEqual([Math.round(dpi / 0.0254), Math.round(dpi / 0.0254), 1])
    }
  })

  it("PNG pixel check: the largest weight's cell has the colour the map gives that weight", async () => {
    for (const colormap of ['viridis', 'greys'] as const) {
      const s = spec({ format: 'png', dpi: 144, colormap })
      const img = PNG.sync.read(await renderFigure(heatmap, s))
      const cell = locateCell(heatmap, s, 2, 1)
      // Sample near the cell's corner, away from its value label and border.
      const px = Math.round((cell.x - cell.w / 2 + 3) * 2)
      const py = Math.round((cell.y - cell.h / 2 + 3) * 2)
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
    for (const tok of ['un', 'petit', '猫', '&lt;/s&gt;', 'a', 'small', 'cat']) expect(texts).toContain(tok)
    // A title of both scripts is one text per font, side by side.
    expect(texts).toEqual(expect.arrayContaining(['注意力 ', 'attention']))
  })

  it('PDF: a vector file that pdftoppm turns into an image', async () => {
    const dir = tempDir()
    const pdf = await renderFigure(heatmap, spec({ format: 'pdf', title: '注意力' }))
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    writeFileSync(join(dir, 'f.pdf'), pdf)
    execFileSync('pdftoppm', ['-png', '-r', '36', join(dir, 'f.pdf'), join(dir, 'page')])
    const page = readdirSync(dir).find((f) => f.startsWith('page') && f.endsWith('.png'))!
    const img = PNG.sync.read(readFileSync(join(dir, page)))
    expect(img.width).toBe(Math.round((480 * 36) / 72))
  })

  it('themes: dark and transparent backgrounds', async () => {
    const dark = PNG.sync.read(await renderFigure(heatmap, spec({ format: 'png', dpi: 96, theme: 'dark' })))
    expect([dark.data[0], dark.data[1], dark.data[2], dark.data[3]]).toEqual([0x11, 0x18, 0x27, 255])
    const clear = PNG.sync.read(await renderFigure(heatmap, spec({ format: 'png', dpi: 96, theme: 'transparent' })))
    expect(clear.data[3]).toBe(0)
  })

  it('the comparison and corpus figures render too', async () => {
    const t = known()
    const cmp = (await renderFigure({ view: 'comparison', translations: [t, t], names: ['none', 'bahdanau'] }, spec({ format: 'svg' }))).toString()
    expect(cmp).toContain('bahdanau')
    const bucket = (b: string, bleu: number) => ({ bucket: b, sentences: 10, bleu })
    const result = (model: string, attention: 'none' | 'bahdanau', a: number, b: number) => ({
      modelId: model,
      model,
      attention,
      fileName: `${model}.onnx`,
      sentences: 20,
      bleu: (a + b) / 2,
      bleuCased: a,
      byLength: [bucket('1-10', a), bucket('11-15', b)],
      seconds: 1,
      sentencesPerSecond: 20,
      attentionEntropy: null,
      diagonality: null,
      cached: false,
      hypotheses: [],
    })
    const corpus = { pair: 'en-fr', testSet: 'test', results: [result('en-fr-none', 'none', 30, 20), result('en-fr-bahdanau', 'bahdanau', 40, 38)] }
    const pdf = await renderFigure({ view: 'corpus', corpus }, spec({ format: 'pdf' }))
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    const svg = (await renderFigure({ view: 'corpus', corpus }, spec({ format: 'svg' }))).toString()
    expect(svg).toContain('en-fr-none (25.0)')
  })

  it('CSV of the matrix: tokens as headers, one row per output token', () => {
    const csv = matrixCsv(
      ['un', 'a,b', '</s>'],
      ['x', 'y'],
      [
        [0.5, 0.25, 0.25],
        [0, 1, 0],
      ],
    )
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
    const s = { ...DEFAULT_FIGURE, title: 'Where each forecast step looks' }
    // A live forecast passes the schema; a step past its horizon and a NaN in the history do not.
    expect(parseFigure(data, s).data).toEqual(data)
    const f = (data as Extract<FigureData, { view: 'forecast' }>).forecast
    expect(refused({ ...data, step: f.forecast.length }, s).message).toMatch(/: step: must be a step of the forecast, or null\.$/)
    expect(refused({ ...data, forecast: { ...f, history: [NaN, ...f.history.slice(1)] } }, s).message).toMatch(
      /: forecast\.history\.0: must be a finite number\.$/,
    )
    const png = PNG.sync.read(await renderFigure(data, { ...s, format: 'png', dpi: 96 }))
    expect([png.width, png.height]).toEqual([1280, 720])
    mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true })
    writeFileSync(join(ROOT, 'test', 'artifacts', 'export-forecast-figure.png'), PNG.sync.write(png))
    const svg = (await renderFigure(data, { ...s, format: 'svg' })).toString('utf8')
    for (const text of ['lag 48 · 1 day', 'lag 336 · 1 week', 'origin', 'forecast', 'same time last week', 'Where each forecast step looks', '+48 23:30'])
      expect(svg).toContain(`>${text}<`)
    // One rect per heatmap cell (18,432) at least: the matrix is drawn as vectors.
    expect((svg.match(/<path d="M\d/g) ?? []).length + (svg.match(/<rect/g) ?? []).length).toBeGreaterThan(48 * 384)
    const dark = PNG.sync.read(await renderFigure(data, { ...s, format: 'png', dpi: 96, theme: 'dark', fontSize: 11 }))
    expect([dark.data[0], dark.data[1], dark.data[2]]).toEqual([0x11, 0x18, 0x27])
    writeFileSync(join(ROOT, 'test', 'artifacts', 'export-forecast-dark.png'), PNG.sync.write(dark))
    // The selected step's attention is drawn on the series, but no row is dimmed unless asked for.
    const dimmed = (spec: FigureSpec) => {
      const heat = (figureOption(data, spec).series as { type: string; data: { itemStyle?: { opacity: number } }[] }[]).find((x) => x.type === 'heatmap')!
      return heat.data.filter((d) => d.itemStyle?.opacity !== undefined && d.itemStyle.opacity < 1).length
    }
    expect(dimmed(s)).toBe(0)
    expect(dimmed({ ...s, highlightRow: 7 })).toBe(47 * 384)
    const pdf = await renderFigure(data, { ...s, format: 'pdf' })
    const tmp = tempDir()
    writeFileSync(join(tmp, 'f.pdf'), pdf)
    execFileSync('pdftoppm', ['-png', '-r', '36', join(tmp, 'f.pdf'), join(tmp, 'page')])
    const page = PNG.sync.read(
      readFileSync(
        join(
          tmp,
          readdirSync(tmp).find((f) => f.startsWith('page'))!,
        ),
      ),
    )
    expect(page.width).toBe(Math.round((960 * 36) / 72))
  }, 60_000)
})

/** The message is one sentence: a single full stop, at its end. */
const oneSentence = (e: unknown) => {
  const m = (e as Error).message
  expect(m.endsWith('.')).toBe(true)
  expect(m.slice(0, -1)).not.toMatch(/\.\s/)
  return m
}
const refused = (data: unknown, s: unknown): Error => {
  try {
    parseFigure(data, s)
  } catch (e) {
    oneSentence(e)
    return e as Error
  }
  throw new Error('the figure was not refused')
}
type Of<V extends FigureData['view']> = Extract<FigureData, { view: V }>

describe('the figure schema', () => {
  const ok = spec({ format: 'png' })

  it("types: the data variants are the API's result types, field for field, and the spec's colour map is a colour map", () => {
    expectTypeOf<Of<'heatmap'>['translation']>().toEqualTypeOf<Translation>()
    // CorpusResult's rows are an intersection (EvalResult & …), which toEqualTypeOf tells from the
    // same fields written out; assignable both ways is what the renderer and the chart builder need.
    expectTypeOf<Of<'corpus'>['corpus']>().toExtend<CorpusResult>()
    expectTypeOf<CorpusResult>().toExtend<Of<'corpus'>['corpus']>()
    expectTypeOf<Of<'forecast'>['forecast']>().toEqualTypeOf<ForecastResult>()
    expectTypeOf<FigureSpec['colormap']>().toEqualTypeOf<ColormapName>()
    expectTypeOf<v.InferOutput<typeof FigureArgs>>().toEqualTypeOf<[FigureData, FigureSpec]>()
  })

  it("passes good data and settings through, and FigureArgs takes them as a call's arguments", () => {
    expect(parseFigure(heatmap, { ...ok, title: 'Attention', caption: 'en → fr' }).spec.title).toBe('Attention')
    expect(v.is(FigureArgs, [heatmap, ok])).toBe(true)
    expect(v.is(FigureArgs, [heatmap, ok, 'extra'])).toBe(false)
    expect(specProblem(DEFAULT_FIGURE)).toBeNull()
  })

  it('the colour map is checked: a map it does not know is refused with one sentence', () => {
    expect(refused(heatmap, { ...ok, colormap: 'jet' }).message).toBe('The figure settings were refused: colormap: must be viridis, cividis or greys.')
    expect(refused(heatmap, { ...ok, colormap: 'jet' }).name).toBe('RefusedError')
    expect(specProblem({ ...ok, colormap: undefined })).toBe('colormap: must be viridis, cividis or greys.')
  })

  it('the title and caption are checked: text, not too long, no control characters', () => {
    expect(refused(heatmap, { ...ok, title: 42 }).message).toMatch(/: title: must be text\.$/)
    expect(refused(heatmap, { ...ok, title: 'x'.repeat(201) }).message).toMatch(/: title: must be at most 200 characters\.$/)
    expect(refused(heatmap, { ...ok, title: 'bell\u0007' }).message).toMatch(/: title: must not contain control characters\.$/)
    expect(refused(heatmap, { ...ok, caption: 'x'.repeat(501) }).message).toMatch(/: caption: must be at most 500 characters\.$/)
    expect(parseFigure(heatmap, { ...ok, caption: 'two\nlines' }).spec.caption).toBe('two\nlines')
  })

  it('sizes, resolution, theme and font size have bounds; a PNG over 64 megapixels is refused', () => {
    expect(specProblem({ ...ok, width: 35 })).toBe('width: must be a number of points from 36 to 6000 (0.5 to 83 in).')
    expect(specProblem({ ...ok, height: 6000.5 })).toBe('height: must be a number of points from 36 to 6000 (0.5 to 83 in).')
    expect(specProblem({ ...ok, height: 189.5 })).toBeNull()
    expect(specProblem({ ...ok, dpi: 2401 })).toBe('dpi: must be a whole number from 36 to 2400.')
    expect(specProblem({ ...ok, lang: 'fr' })).toBe('lang: must be en or zh.')
    expect(specProblem({ ...ok, fontSize: 100 })).toBe('fontSize: must be a number from 4 to 72.')
    expect(specProblem({ ...ok, theme: 'sepia' })).toBe('theme: must be light, dark or transparent.')
    expect(specProblem({ ...ok, legend: 'yes' })).toBe('legend: must be true or false.')
    // 6000 pt at 96 dpi is 8000 pixels a side: 64 megapixels, the most.
    expect(specProblem({ ...ok, width: 6000, height: 6000, dpi: 96 })).toBeNull()
    expect(specProblem({ ...ok, width: 6000, height: 6000, dpi: 97 })).toBe('dpi: must keep the PNG within 64 megapixels; choose a smaller size or resolution.')
    // The same size as a vector file is fine: the limit is the raster's memory.
    expect(specProblem({ ...ok, format: 'svg', width: 6000, height: 6000, dpi: 600 })).toBeNull()
    expect(specProblem({ ...ok, scale: 2 })).toBe('scale: is not a figure setting.')
  })

  it('a NaN or an infinity in a matrix is refused, naming the cell', () => {
    const t = known()
    const nan = { ...t, attention: t.attention.map((r, i) => (i === 1 ? r.map((w, j) => (j === 2 ? NaN : w)) : r)) }
    expect(refused({ view: 'heatmap', translation: nan }, ok).message).toBe('The figure data was refused: translation.attention.1.2: must be a finite number.')
    const inf = { ...t, scores: [[Infinity, 0, 0, 0], ...t.scores.slice(1)] }
    expect(refused({ view: 'heatmap', translation: inf }, ok).message).toMatch(/: translation\.scores\.0\.0: must be a finite number\.$/)
  })

  it('a matrix must fit its tokens, and size limits hold', () => {
    const t = known()
    expect(refused({ view: 'heatmap', translation: { ...t, attention: t.attention.slice(1) } }, ok).message).toMatch(
      /translation\.attention: must have one row per output token and one column per source token\.$/,
    )
    expect(refused({ view: 'heatmap', translation: { ...t, attention: [] } }, ok).message).toMatch(/translation\.attention: must not be empty/)
    expect(refused({ view: 'heatmap', translation: { ...t, srcTokens: Array(2001).fill('x') } }, ok).message).toMatch(
      /translation\.srcTokens: must have at most 2000 tokens\.$/,
    )
  })

  it('each view has its own data: an unknown view, a step outside the translation, names that do not match', async () => {
    expect(refused({ view: 'pie', translation: known() }, ok).message).toBe(
      'The figure data was refused: view: must be heatmap, local, positions, step, lines, comparison, whatif, corpus, forecast, sidebyside, beam, heads, goldlinks, occlusion or contributions.',
    )
    expect(refused({ view: 'comparison', translations: [known()], names: [] }, ok).message).toMatch(/: names: must have one name per translation\.$/)
    expect(refused({ view: 'comparison', translations: [], names: [] }, ok).message).toMatch(/: translations: must have at least one translation\.$/)
    // A local model's translation has the per-step positions, windows, align and Gaussian rows.
    const svc = new InferenceService()
    const local = await svc.translate(tiny('local-p'), 'a little girl is running')
    await svc.closeAll()
    expect(parseFigure({ view: 'local', translation: local, windowD: 2, step: local.tgtTokens.length - 1 }, ok).data.view).toBe('local')
    expect(refused({ view: 'local', translation: local, windowD: 2, step: local.tgtTokens.length }, ok).message).toMatch(
      /: step: must be an output step of a local model's translation\.$/,
    )
    expect(refused({ view: 'local', translation: known(), windowD: 2, step: 0 }, ok).message).toMatch(
      /: step: must be an output step of a local model's translation\.$/,
    )
  })
})

describe('the figure worker', () => {
  // One worker for the first two tests: starting one compiles the exporter from source in the
  // thread, ~3 CPU s (issue 40, "Performance"); the third starts its own, twice.
  const figures = new FigureWorker()
  afterAll(() => figures.close())

  it('renders the same file as rendering in-process, and a refused figure comes back as a RefusedError', async () => {
    const s = spec({ format: 'svg', title: 'worker' })
    // zrender numbers its ids and CSS classes per chart instance, so the two differ only there.
    const text = (b: Buffer) => b.toString('utf8').replace(/zr\d+-(cls-\d+)?/g, 'zr-')
    expect(text(await figures.render(heatmap, s))).toBe(text(await renderFigure(heatmap, s)))
    const png = PNG.sync.read(await figures.render(heatmap, spec({ format: 'png', dpi: 192 })))
    expect([png.width, png.height]).toEqual([1280, 800])
    const e = await figures.render(heatmap, { ...s, colormap: 'jet' as never }).catch((x: Error) => x)
    expect(e).toBeInstanceOf(Error)
    expect([(e as Error).name, (e as Error).message]).toEqual([
      'RefusedError',
      'The figure settings were refused: colormap: must be viridis, cividis or greys.',
    ])
  })

  it('keeps this thread free: the event loop turns many times while a 4× PNG renders', async () => {
    await figures.render(heatmap, spec({ format: 'svg' })) // the worker is started and warm
    let turns = 0
    let rendering = true
    const spin = () => setImmediate(() => (turns++, rendering && spin()))
    spin()
    const png = await figures.render(heatmap, { ...DEFAULT_FIGURE, format: 'png', dpi: 384 })
    rendering = false
    expect(PNG.sync.read(png).width).toBe(1280 * 4)
    // In-process, resvg blocks the loop for the whole render and it turns once or twice.
    expect(turns).toBeGreaterThan(20)
  })

  it('a worker that dies fails the figure in progress with its own error, and the next figure starts a new worker', async () => {
    let spawned = 0
    const figures = new FigureWorker(() => (++spawned === 1 ? new Worker('process.exit(3)', { eval: true }) : spawnFigureWorker()))
    try {
      const e = await figures.render(heatmap, spec({ format: 'svg' })).catch((x: Error) => x)
      expect([(e as Error).name, (e as Error).message]).toEqual(['FigureWorkerError', 'The figure renderer stopped (exit code 3).'])
      expect((await figures.render(heatmap, spec({ format: 'svg' }))).toString('utf8')).toMatch(/^<svg /)
      expect(spawned).toBe(2)
    } finally {
      await figures.close()
    }
  })
})
