/**
 * The attention-lens command:
 *   attention-lens translate --model M.onnx [--beam K] [--provider P] [--input FILE] [--attention OUT.jsonl]
 *   attention-lens eval --model M.onnx [--model N.onnx …] --src X --ref Y [--provider P]
 *   attention-lens export …, forecast …, forecast-eval … (see USAGE)
 * Every failure is one line on stderr and a non-zero exit.
 */
import { createReadStream, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { createInterface } from 'node:readline'
import { scoredOrigins } from '../engine/forecast'
import { InferenceService } from '../engine/service'
import { naiveBaselineLabel } from './baseline'
import { check } from './check'
import { alignCommands, ALIGN_USAGE, evalAblate, wantsAblation } from './align'
import { attribute, ATTRIBUTE_USAGE } from './attribute'
import { contributionsFigureData } from './contributions-figure'
import { args, GUARD_USAGE, guardFrom, guardLabel, guardOptions, headOption, LANG_OPTIONS, lines, modelPath, readableFile, UsageError } from './options'
import { appPaths, BUNDLED_HELD_OUT_STEPS, BUNDLED_SERIES } from '../host/paths'
import { figureInUnits } from '../shared/attention/word-figure'
import { inUnits, type Units } from '../shared/attention/word-translation'
import { CLI_VIEWS } from '../shared/charts/views'
import { parseSeriesCsv, SeriesError } from '../shared/series'
import { writeAtomic } from '../host/export/atomic'
import { FIT_USAGE, fitMode, rowsOption, type FitMode } from './fit-refusal'
import { adjustSpec, EXTRA_FORMAT_OPTIONS, EXTRA_FORMAT_USAGE, extraFormat, modelCard, writeExtra } from './export-formats'
import type { FigureData } from '../shared/figure'
import { defaultCaption, singleModel } from '../shared/figure-context'
import {
  DEFAULT_FIGURE,
  DPI_PER_SCALE,
  FONT_PRESETS,
  fontForSize,
  parseSize,
  pngPixels,
  SIZE_PRESETS,
  specProblem,
  type FigureFormat,
  type FigureSpec,
} from '../shared/figure'

const USAGE = [
  'usage: attention-lens translate --model M.onnx [--beam K] [--provider P] [--input FILE] [--attention OUT.jsonl [--pieces]]',
  '       attention-lens eval --model M.onnx [--model N.onnx ...] --src X --ref Y [--provider P] [--raw]',
  `       translate, eval and export decode with ${GUARD_USAGE}`,
  '       attention-lens export --model M.onnx [--model N.onnx ...] --src "sentence" [--target "translation"] --out FIG.png|svg|pdf',
  `              [--view ${CLI_VIEWS.join('|')}] [--step N] [--threshold 0-1]`,
  '              [--head LAYER:HEAD] (Transformer: heads draws that one head large, whatif overrides or silences only it)',
  '              [--mode uniform|onehot|diagonal|silence --at N|all [--source J]] (whatif)   [--src TEST.src --ref TEST.ref] (corpus)',
  '              [two --model, or one --model and --beam K or --target] (sidebyside: A and B)   [--beam K] (beam, K from 2 to 16)',
  '              [--method norm|alti|alti+|rollout] (contributions of a Transformer, alti+ by default; an RNN with attention: its context-norm share beside its weights)',
  '       figure options: [--size slide-16x9|slide-4x3|paper-single|paper-double|WxH[in|cm|mm|pt]] [--font paper|screen|lecture|back-row|POINTS]',
  '              [--dpi 150|300|600|N | --scale 1-4] [--theme light|dark|transparent] [--lang en|zh] [--title T] [--caption C]',
  '              [--colormap viridis|cividis|greys] [--no-legend] [--no-overlay] [--highlight-row N] [--rows FIRST-LAST] (heatmap, lines: those output steps)',
  FIT_USAGE,
  "              [--pieces] (label subword pieces, not words: by default a word receives the sum of its pieces' weights and its row is their mean;",
  '              local, positions, step, whatif and beam show pieces either way: each decoder step writes one piece)',
  EXTRA_FORMAT_USAGE,
  '       attention-lens forecast --model M.onnx [--series FILE.csv] [--origin TIMESTAMP] [--out FIG.png|svg|pdf [figure options] [--step N]]',
  '       attention-lens forecast-eval --model M.onnx [--model N.onnx ...] [--series FILE.csv --from TIMESTAMP]',
  '       --step, --at, --source and --highlight-row count from 1, as the app does: --step 1 is the first output token, forecast --step 8 is step +8.',
  '       attention-lens check M.onnx [N.onnx ...] [--src-lang L --tgt-lang L] [--json] [--verbose] [--provider P]   (exit 0: every feature the format offers works, 1: some will not, 2: cannot open)',
  '       --dtype fp32|fp16|q8|int8|uint8|q4|q4f16|bnb4 with any model: which precision of a Hugging Face folder opens (default: fp32 where it has it and memory allows, else the most precise it has)',
].join('\n')

async function translate(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string' },
    beam: { type: 'string', default: '1' },
    provider: { type: 'string', default: 'cpu' },
    input: { type: 'string' },
    attention: { type: 'string' },
    pieces: { type: 'boolean' },
    ...guardOptions,
    ...LANG_OPTIONS,
  })
  const units: Units = v.pieces ? 'pieces' : 'words'
  const model = modelPath(v.model, '--model M.onnx', v)
  const beam = Number(v.beam)
  if (!Number.isInteger(beam) || beam < 1 || beam > 16) throw new UsageError('--beam must be a whole number from 1 to 16')
  const guard = guardFrom(v)
  if (v.input) readableFile(v.input, '--input')
  const service = new InferenceService()
  await service.setProvider(v.provider!)
  const info = await service.open(model)
  if (info.providerNote) console.error(`attention-lens: ${info.providerNote}`)
  const input = createInterface({ input: v.input ? createReadStream(v.input) : process.stdin })
  const records: string[] = []
  let n = 0
  for await (const line of input) {
    n++
    // As in the app, an empty line is not a sentence: its output line stays empty (one line out per line in) and stderr says so.
    if (!line.trim()) {
      console.error(`attention-lens: line ${n} is empty: nothing to translate`)
      process.stdout.write('\n')
      if (v.attention) records.push(JSON.stringify({ source: line, translation: '', srcTokens: [], tgtTokens: [], attention: [] }))
      continue
    }
    const t = await service.translate(model, line, { beam, ...guard })
    process.stdout.write(t.text + '\n')
    if (v.attention) {
      const { srcTokens, tgtTokens, attention, scores, positions, windows, gaussian, tokenLogProbs, words, crossAttention, blocked } = inUnits(t, units)
      // Where the repeat guard blocked the model's own choice: that choice, per output unit (null elsewhere).
      const guarded = blocked ? { blocked } : {}
      // A transformer's every head, [step][layer][head][source], next to their average `attention`.
      const heads = crossAttention ? { crossAttention } : {}
      // In words: each word's [first, last] piece, so a record can be traced back to the pieces.
      const spans = words ? { pieceSpans: words } : {}
      records.push(
        JSON.stringify({
          source: line,
          translation: t.text,
          units,
          srcTokens,
          tgtTokens,
          attention,
          scores,
          positions,
          windows,
          gaussian,
          tokenLogProbs,
          ...heads,
          ...spans,
          ...guarded,
        }),
      )
    }
  }
  if (v.attention) writeFileSync(v.attention, records.map((r) => r + '\n').join(''))
  await service.closeAll()
}

async function evaluate(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string', multiple: true },
    src: { type: 'string' },
    ref: { type: 'string' },
    provider: { type: 'string', default: 'cpu' },
    ...guardOptions,
    ...LANG_OPTIONS,
  })
  if (!v.model?.length) throw new UsageError('--model M.onnx is missing')
  const guard = guardFrom(v)
  const models = v.model.map((m) => modelPath(m, '--model', v))
  const srcs = lines(readableFile(v.src, '--src X'))
  const refs = lines(readableFile(v.ref, '--ref Y'))
  const service = new InferenceService()
  await service.setProvider(v.provider!)
  for (const m of models) {
    const info = await service.open(m)
    if (info.providerNote) console.error(`attention-lens: ${info.providerNote}`)
    const r = await service.evaluate(m, srcs, refs, { guard })
    console.log(
      `${r.fileName}: BLEU ${r.bleu.toFixed(2)} (case-insensitive), ${r.bleuCased.toFixed(2)} cased, ${r.sentences} sentences, ${r.seconds.toFixed(1)} s (${r.sentencesPerSecond.toFixed(0)} sentences/s), ${guardLabel(guard)}`,
    )
    for (const b of r.byLength) console.log(`  source length ${b.bucket.padEnd(6)} ${String(b.sentences).padStart(5)} sentences  BLEU ${b.bleu.toFixed(2)}`)
  }
  await service.closeAll()
}

const MODES = ['uniform', 'onehot', 'diagonal', 'silence'] as const

function figureSpec(v: Record<string, string | boolean | undefined>, format: FigureFormat): FigureSpec {
  const spec: FigureSpec = { ...DEFAULT_FIGURE, format }
  const size = String(v.size ?? 'slide-16x9')
  const preset = SIZE_PRESETS[size as keyof typeof SIZE_PRESETS]
  const custom = parseSize(size)
  if (preset) Object.assign(spec, preset)
  else if (custom) Object.assign(spec, custom)
  else
    throw new UsageError(
      `--size must be one of ${Object.keys(SIZE_PRESETS).join(', ')} or WIDTHxHEIGHT with a unit (in, cm, mm, pt; none: pixels), e.g. 3.5x2.5in`,
    )
  const font = String(v.font ?? fontForSize(size))
  spec.fontSize = font in FONT_PRESETS ? FONT_PRESETS[font as keyof typeof FONT_PRESETS] : Number(font)
  if (v.dpi !== undefined && v.scale !== undefined) throw new UsageError('--dpi and --scale say the same thing: give one')
  if (v.scale !== undefined) {
    const scale = Number(v.scale)
    if (!(scale >= 1 && scale <= 4)) throw new UsageError('--scale must be a number from 1 to 4 (1 = 96 dpi)')
    spec.dpi = Math.round(scale * DPI_PER_SCALE)
  } else if (v.dpi !== undefined) spec.dpi = Number(v.dpi)
  spec.theme = String(v.theme ?? 'light') as FigureSpec['theme']
  spec.lang = String(v.lang ?? 'en') as FigureSpec['lang']
  if (typeof v.title === 'string') spec.title = v.title
  if (typeof v.caption === 'string') spec.caption = v.caption
  if (v.colormap !== undefined) {
    if (!['viridis', 'cividis', 'greys'].includes(String(v.colormap))) throw new UsageError('--colormap must be viridis, cividis or greys')
    spec.colormap = String(v.colormap) as FigureSpec['colormap']
  }
  if (v['highlight-row'] !== undefined) {
    // Counted from 1, as --step is.
    const row = Number(v['highlight-row'])
    if (!(Number.isInteger(row) && row >= 1)) throw new UsageError('--highlight-row must be a whole number from 1 (the first output step)')
    spec.highlightRow = row - 1
  }
  spec.legend = v['no-legend'] !== true
  spec.localOverlay = v['no-overlay'] !== true
  const problem = specProblem(spec)
  // The schema names the spec's fields (fontSize: …); say it with the option the user typed (--font …).
  const option = (field: string) =>
    `--${({ width: 'size', height: 'size', fontSize: 'font', legend: 'no-legend', localOverlay: 'no-overlay', highlightRow: 'highlight-row' } as Record<string, string>)[field] ?? field}`
  if (problem) throw new UsageError(problem.replace(/^(\w+):/, (_, field: string) => option(field)).replace(/\.$/, ''))
  return spec
}

const figureOptions = {
  out: { type: 'string' },
  scale: { type: 'string' },
  dpi: { type: 'string' },
  theme: { type: 'string' },
  size: { type: 'string' },
  font: { type: 'string' },
  lang: { type: 'string' },
  title: { type: 'string' },
  caption: { type: 'string' },
  colormap: { type: 'string' },
  step: { type: 'string' },
  'highlight-row': { type: 'string' },
  'no-legend': { type: 'boolean' },
} as const

/** --out's format, from its extension. */
function outFormat(out: string | undefined): FigureFormat {
  if (!out) throw new UsageError('--out FIG.png|svg|pdf is missing')
  const format = out.toLowerCase().split('.').pop() as FigureFormat
  if (!['png', 'svg', 'pdf'].includes(format)) throw new UsageError('--out must end in .png, .svg or .pdf')
  return format
}

/**
 * A step or position option, counted from 1 as the app counts them (step 1 is the first output
 * token; forecast step 8 is "+8"), as a 0-based index; or the default index.
 */
function index(value: string | undefined, n: number, what: string, fallback: number): number {
  if (value === undefined) return fallback
  const i = Number(value)
  if (!(Number.isInteger(i) && i >= 1 && i <= n)) throw new UsageError(`${what} must be a whole number from 1 to ${n}`)
  return i - 1
}

/** Renders and writes the figure, and says what was written: its size in pixels (CSS) and inches, and a PNG's resolution. */
async function writeFigure(out: string, data: FigureData, spec: FigureSpec, fit: FitMode = 'auto'): Promise<void> {
  // Loaded when a figure is drawn: ECharts, resvg and PDFKit take most of the CLI's start-up otherwise.
  const { fitted, renderFittedFiles, withSuffix } = await import('../host/export/figure')
  const { refusalWithOptions } = await import('./fit-refusal')
  const { partsSummary } = await import('../shared/charts/fit')
  // The page as fitted: a paper figure may have grown taller, the view laid out its other way, the
  // output steps split into parts at the text size asked (the note, on stderr); --fit strict takes none of that.
  const fig = refusalWithOptions(() => fitted(data, spec, { strict: fit === 'strict' }))
  if (fig.note) console.error(`attention-lens: note: ${fig.note}`)
  const files = await renderFittedFiles(data, fig)
  const px = (pt: number) => Math.round(pt / 0.75)
  const inch = (pt: number) => +(pt / 72).toFixed(2)
  // Every file written is named: a split figure as PNG or SVG is one file per part (-1, -2, …), as PDF one page per part.
  for (const [i, file] of files.entries()) {
    const path = withSuffix(out, file.suffix)
    await writeAtomic(path, file.bytes)
    const part = files.length > 1 ? fig.parts![i] : null
    const { spec: page, fontSize } = part ? part.fit : fig
    const [w, h] = pngPixels(page)
    const text = fontSize === page.fontSize ? `${page.fontSize} pt text` : `${page.fontSize} pt text, ${+fontSize.toFixed(2)} pt in the chart`
    const what = part ? `, ${part.label}` : fig.parts ? `, ${fig.parts.length} pages: ${partsSummary(fig.parts)}` : ''
    console.log(
      `wrote ${path} (${px(page.width)}×${px(page.height)} px, ${inch(page.width)} × ${inch(page.height)} in, ${text}${page.format === 'png' ? `, ${w}×${h} pixels at ${page.dpi} dpi` : ''}, ${data.view}${what})`,
    )
  }
}

async function exportFigure(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string', multiple: true },
    src: { type: 'string' },
    ref: { type: 'string' },
    target: { type: 'string' },
    view: { type: 'string', default: 'heatmap' },
    ...figureOptions,
    ...LANG_OPTIONS,
    'no-overlay': { type: 'boolean' },
    pieces: { type: 'boolean' },
    threshold: { type: 'string' },
    mode: { type: 'string' },
    at: { type: 'string' },
    source: { type: 'string' },
    beam: { type: 'string' },
    head: { type: 'string' },
    method: { type: 'string' },
    fit: { type: 'string' },
    rows: { type: 'string' },
    provider: { type: 'string', default: 'cpu' },
    ...guardOptions,
    ...EXTRA_FORMAT_OPTIONS,
  })
  if (!v.model?.length) throw new UsageError('--model M.onnx is missing')
  const guard = guardFrom(v)
  const fit = fitMode(v.fit)
  const view = String(v.view)
  if (v.rows !== undefined && view !== 'heatmap' && view !== 'lines') throw new UsageError(`--rows applies to --view heatmap and --view lines, not ${view}`)
  if (!CLI_VIEWS.includes(view)) throw new UsageError(`--view must be ${CLI_VIEWS.slice(0, -1).join(', ')} or ${CLI_VIEWS[CLI_VIEWS.length - 1]}`)
  if (v.src === undefined) throw new UsageError(view === 'corpus' ? '--src TEST-SET (a file, one sentence a line) is missing' : '--src "sentence" is missing')
  if (view !== 'corpus' && !v.src.trim()) throw new UsageError('--src is empty: there is no sentence to translate')
  // --head picks a head to draw large (heads) or to override (whatif); other views draw the heads' average.
  if (v.head !== undefined && view !== 'heads' && view !== 'whatif')
    throw new UsageError(`--head applies to --view heads and --view whatif, not ${view}; for one head's map use --view heads --head ${v.head}`)
  // An animation or an interactive page (issue 34): its pixels are drawn as a PNG's.
  const extra = extraFormat(v, view)
  const format = extra ? 'png' : outFormat(v.out)
  const options = { ...v, model: undefined, format: undefined } as Record<string, string | boolean | undefined>
  const spec = extra ? adjustSpec(figureSpec(options, format), extra, v) : figureSpec(options, format)
  const threshold = v.threshold === undefined ? 0.1 : Number(v.threshold)
  if (!(threshold >= 0 && threshold <= 1)) throw new UsageError('--threshold must be a number from 0 to 1')
  const mode = String(v.mode ?? 'uniform') as (typeof MODES)[number]
  if (!MODES.includes(mode)) throw new UsageError('--mode must be uniform, onehot, diagonal or silence')
  const beam = v.beam === undefined ? (view === 'beam' ? 3 : 1) : Number(v.beam)
  if (!(Number.isInteger(beam) && beam >= 1 && beam <= 16)) throw new UsageError('--beam must be a whole number from 1 to 16')
  if (view === 'beam' && beam < 2) throw new UsageError('--view beam needs --beam K with K from 2 to 16 (greedy decoding has no tree)')
  if (view === 'sidebyside' && !(v.model.length === 2 || (v.model.length === 1 && (beam > 1 || v.target !== undefined))))
    throw new UsageError('--view sidebyside needs two --model, or one --model and --beam K (greedy against beam K) or --target (against the reference)')
  const models = v.model.map((m) => modelPath(m, '--model', v))
  const service = new InferenceService()
  await service.setProvider(v.provider!)
  const run = (m: string) => (v.target !== undefined ? service.forced(m, v.src!, v.target) : service.translate(m, v.src!, guard))
  let data: FigureData
  if (view === 'corpus') {
    const srcs = lines(readableFile(v.src, '--src TEST-SET'))
    const refs = lines(readableFile(v.ref, '--ref REFERENCES'))
    const results = []
    for (const m of models) {
      const info = await service.open(m)
      results.push({ ...(await service.evaluate(m, srcs, refs, { guard })), modelId: m, attention: info.attention, model: info.name })
    }
    const first = await service.open(models[0])
    data = { view: 'corpus', corpus: { pair: `${first.srcLang}-${first.tgtLang}`, testSet: basename(v.src), results } }
  } else if (view === 'sidebyside') {
    // Two models (each on the reference with --target, else at --beam K), or one model's greedy
    // output (A) against its beam K or the reference (B).
    type Side = { m: string; forced: boolean; k: number }
    const sides: Side[] =
      models.length === 2
        ? models.map((m) => ({ m, forced: v.target !== undefined, k: beam }))
        : [
            { m: models[0], forced: false, k: 1 },
            { m: models[0], forced: v.target !== undefined, k: beam },
          ]
    const decoded = []
    for (const { m, forced, k } of sides) {
      const t = forced ? await service.forced(m, v.src, v.target!) : await service.translate(m, v.src, { beam: k, ...guard })
      const info = await service.open(m)
      if (t.attention.length === 0) throw new Error(`${info.name} has no attention to draw`)
      decoded.push({ t, name: `${info.name} · ${forced ? 'reference' : k === 1 ? 'greedy' : `beam ${k}`}` })
    }
    data = { view: 'sidebyside', a: decoded[0].t, b: decoded[1].t, names: [decoded[0].name, decoded[1].name] }
  } else if (view === 'beam') {
    const translation = await service.translate(models[0], v.src, { beam, ...guard })
    if (!translation.beamTree?.nodes.length) throw new Error(`${(await service.open(models[0])).name} returned no beam tree`)
    data = { view: 'beam', translation }
  } else if (view === 'occlusion') {
    data = { view: 'occlusion', title: (await service.open(models[0])).name, occlusion: await service.occlusion(models[0], v.src) }
  } else if (view === 'comparison') {
    const translations = []
    for (const m of models) translations.push(await run(m))
    const names = await Promise.all(models.map(async (m) => (await service.open(m)).name))
    data = { view: 'comparison', translations, names }
  } else if (view === 'contributions') {
    data = await contributionsFigureData(service, models[0], {
      src: v.src,
      ...(v.target !== undefined ? { target: v.target } : {}),
      method: v.method,
      units: v.pieces ? 'pieces' : 'words',
    })
  } else {
    const info = await service.open(models[0])
    if (view === 'whatif') {
      const original = await service.translate(models[0], v.src, guard)
      const at = v.at === undefined || v.at === 'all' ? 'all' : index(v.at, original.tgtTokens.length, '--at (an output step, or all)', 0)
      const sourceIndex = index(v.source, original.srcTokens.length, '--source', 0)
      const head = headOption(v.head, info.heads, info.name)
      const result = await service.whatIf(models[0], {
        modelId: models[0],
        text: v.src,
        steps: at === 'all' ? 'all' : [at],
        mode,
        sourceIndex,
        ...(head ? { head } : {}),
        ...guard,
      })
      if (result.modified.attention.length === 0 && mode !== 'silence') throw new Error(`${info.name} has no attention to override`)
      data = { view: 'whatif', result, mode, at, ...(mode === 'onehot' ? { sourceIndex } : {}), ...(head ? { head } : {}) }
    } else {
      const translation = await run(models[0])
      const T = translation.tgtTokens.length
      if (translation.attention.length === 0) throw new Error(`${info.name} has no attention to draw; use --view comparison`)
      const local = !!translation.positions
      if ((view === 'local' || view === 'positions') && !local)
        throw new Error(`${info.name} has no local attention (it is ${info.attention}); use --view heatmap`)
      const step = index(v.step, T, '--step (an output step)', 0)
      if (view === 'local') data = { view: 'local', translation, windowD: info.windowD, step }
      else if (view === 'positions') data = { view: 'positions', translation }
      else if (view === 'step') data = { view: 'step', translation, step, attention: info.attention }
      else if (view === 'lines') data = { view: 'lines', translation, threshold }
      else if (view === 'heads') {
        if (!translation.crossAttention)
          throw new Error(`${info.name} is not a Transformer (it is ${info.attention}): it has no heads to draw; use --view heatmap`)
        data = { view: 'heads', translation, head: headOption(v.head, info.heads, info.name) ?? null }
      } else data = { view: 'heatmap', translation }
    }
  }
  // Words unless --pieces; the views of one decoder step keep their pieces (src/shared/attention/word-figure.ts).
  // An animation plays decoder steps, so its heatmap is drawn in pieces (a row per step); a page gets pieces and makes its words.
  if (extra) {
    const info = await service.open(models[0])
    const drawn = extra.kind === 'html' ? data : figureInUnits(data, 'pieces')
    await writeExtra(v.out!, drawn, spec, extra, { name: info.name, card: modelCard(info) }, v.pieces ? 'pieces' : 'words')
  } else {
    // Context on the figure when --caption gives none: the model's name and, for one step, the step and its word.
    if (spec.caption === undefined) {
      const name = singleModel(data) && models[0] ? (await service.open(models[0])).name : undefined
      spec.caption = defaultCaption(data, spec.lang, name) || undefined
    }
    const drawn = figureInUnits(data, v.pieces ? 'pieces' : 'words')
    // --rows counts the steps drawn (words unless --pieces).
    const split = drawn.view === 'heatmap' || drawn.view === 'lines' ? drawn : null
    const rows = rowsOption(v.rows, split ? split.translation.tgtTokens.length : null)
    await writeFigure(v.out!, split && rows ? { ...split, rows } : drawn, spec, fit)
  }
  await service.closeAll()
}

/** The series to forecast on: the user's CSV, or the bundled held-out weeks (and where they start). */
function series(path: string | undefined): { s: { timestamps: string[]; values: number[] }; heldOut: number | null } {
  const file = path ? readableFile(path, '--series') : join(appPaths().series, BUNDLED_SERIES)
  try {
    const s = parseSeriesCsv(readFileSync(file, 'utf8'), file)
    return { s, heldOut: path ? null : s.values.length - BUNDLED_HELD_OUT_STEPS }
  } catch (e) {
    if (e instanceof SeriesError) throw new UsageError(`${file}: ${e.message.replace(/\.$/, '')}`)
    throw e
  }
}

function indexOf(s: { timestamps: string[] }, ts: string, what: string): number {
  const i = s.timestamps.findIndex((t) => t.startsWith(ts))
  if (i < 0) throw new UsageError(`${what} ${ts} is not a timestamp of the series`)
  return i
}

async function forecast(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string' },
    series: { type: 'string' },
    origin: { type: 'string' },
    provider: { type: 'string', default: 'cpu' },
    ...figureOptions,
  })
  const model = readableFile(v.model, '--model M.onnx')
  const { s, heldOut } = series(v.series)
  const format = v.out ? (v.out.toLowerCase().split('.').pop() as FigureFormat) : null
  if (format && !['png', 'svg', 'pdf'].includes(format)) throw new UsageError('--out must end in .png, .svg or .pdf')
  const service = new InferenceService()
  await service.setProvider(v.provider!)
  const info = await service.open(model)
  if (!info.forecast) throw new UsageError(`${info.name} is a translation model; use translate`)
  const origin = v.origin ? indexOf(s, v.origin, '--origin') : (heldOut ?? s.values.length)
  const r = await service.forecast(model, s, origin)
  const unit = r.unit ? ` ${r.unit}` : ''
  console.log(`${info.name}: forecast from ${r.times[0]} for ${r.forecast.length} steps in ${r.decodeMs.toFixed(1)} ms`)
  const baseline = naiveBaselineLabel(r.seasonalLags, r.periodMinutes)
  const vsBaseline = baseline && r.naiveMae !== null ? `; ${baseline}: MAE ${r.naiveMae.toFixed(1)}${unit}, MAPE ${r.naiveMape!.toFixed(2)} %` : ''
  if (r.mae !== null) console.log(`  MAE ${r.mae.toFixed(1)}${unit}, MAPE ${r.mape!.toFixed(2)} %${vsBaseline}`)
  console.log(`  ${r.times.map((t, i) => `${t.slice(11, 16)} ${Math.round(r.forecast[i])}`).join(', ')}`)
  if (v.out && format) {
    const step = v.step === undefined ? null : index(v.step, r.forecast.length, '--step (a forecast step)', 0)
    const spec = figureSpec(v as Record<string, string | boolean | undefined>, format)
    await writeFigure(v.out, { view: 'forecast', forecast: r, step }, spec)
  }
  await service.closeAll()
}

async function forecastEval(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string', multiple: true },
    series: { type: 'string' },
    from: { type: 'string' },
    provider: { type: 'string', default: 'cpu' },
  })
  if (!v.model?.length) throw new UsageError('--model M.onnx is missing')
  const models = v.model.map((m) => readableFile(m, '--model'))
  const { s, heldOut } = series(v.series)
  const service = new InferenceService()
  await service.setProvider(v.provider!)
  for (const m of models) {
    const info = await service.open(m)
    if (!info.forecast) throw new UsageError(`${info.name} is a translation model; use eval`)
    const from = v.from ? indexOf(s, v.from, '--from') : (heldOut ?? info.forecast.history)
    const origins = scoredOrigins(info.forecast, s.values.length, from)
    if (origins.length === 0)
      throw new UsageError(`no origin from ${s.timestamps[from]} has ${info.forecast.history} values before it and ${info.forecast.horizon} after it`)
    const e = await service.evaluateForecast(m, s, origins)
    const unit = info.forecast.unit ? ` ${info.forecast.unit}` : ''
    console.log(
      `${info.fileName}: MAE ${e.mae.toFixed(1)}${unit}, MAPE ${e.mape.toFixed(2)} % over ${e.origins} origins (${e.steps} steps) from ${s.timestamps[origins[0]]}; seasonal naive MAE ${e.naiveMae.toFixed(1)}${unit}, MAPE ${e.naiveMape.toFixed(2)} %; ${e.seconds.toFixed(1)} s`,
    )
  }
  await service.closeAll()
}

/**
 * One command: its exit status (0, or what `check` says; 2 for a failure, said in one line on
 * stderr). The tests run the built CLI in-process through this (test/unit/cli/cli-runner.ts).
 */
export async function run(argv: readonly string[]): Promise<number> {
  return (await attempt(argv)).code
}

async function attempt(argv: readonly string[]): Promise<{ code: number; failed: boolean }> {
  try {
    return { code: (await command(argv)) ?? 0, failed: false }
  } catch (e) {
    console.error(`attention-lens: ${(e as Error).message}${e instanceof UsageError ? ' (attention-lens --help)' : ''}`)
    return { code: 2, failed: true }
  }
}

async function command([command, ...rest]: readonly string[]): Promise<number | void> {
  if (command === 'translate') return translate(rest)
  if (command === 'eval') return wantsAblation(rest) ? evalAblate(rest) : evaluate(rest)
  if (command && command in alignCommands) return alignCommands[command](rest)
  if (command === 'export') return exportFigure(rest)
  if (command === 'forecast') return forecast(rest)
  if (command === 'forecast-eval') return forecastEval(rest)
  if (command === 'check') return check(rest)
  if (command === 'attribute') return attribute(rest)
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE + '\n' + ALIGN_USAGE + '\n' + ATTRIBUTE_USAGE)
    return command === undefined ? 2 : 0
  }
  throw new UsageError(`unknown command "${command}"`)
}

/** The process: `bin/attention-lens.mjs` calls this with the command line. */
export function main(argv: readonly string[] = process.argv.slice(2)): void {
  // In a pipe whose reader has gone (`attention-lens translate … | head -3`), end quietly, as Unix
  // tools do: what was asked for has been read, and a write to nobody is no failure.
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0)
      throw e
    })
  void attempt(argv).then(({ code, failed }) => {
    // A failure ends at once (an engine or a timer left running must not hold it open); otherwise
    // the process ends when its work has drained.
    if (failed) process.exit(code)
    process.exitCode = code
  })
}
