/**
 * What a figure export asks for (the spec) and what it draws (the data), as one valibot schema:
 * it checks both wherever they arrive from outside (IPC, HTTP, the render worker, the command
 * line), and the TypeScript types are derived from it, so the checks and the types cannot drift.
 * Shared by the Export dialog, the host, the figure renderer and the CLI.
 */
import * as v from 'valibot'
import { ATTENTION_KINDS } from './attention-kinds'
import { COLORMAP_NAMES } from './colormap-names'
import { RefusedError } from './errors'

/** Points (1/72 in): the unit a figure is laid out in, so a PDF page and its text have physical sizes. */
export const PT_PER = { pt: 1, in: 72, cm: 72 / 2.54, mm: 72 / 25.4, px: 0.75 } as const
export type SizeUnit = keyof typeof PT_PER

/** Page sizes in points: slides at their real size, paper columns at their real width. */
export const SIZE_PRESETS = {
  /** 13.33 × 7.5 in (PowerPoint's and Keynote's 16:9) */
  'slide-16x9': { width: 960, height: 540 },
  /** 10 × 7.5 in */
  'slide-4x3': { width: 720, height: 540 },
  /** 3.5 × 3 in: one column of a two-column paper */
  'paper-single': { width: 252, height: 216 },
  /** 7 × 3.5 in: the full text width */
  'paper-double': { width: 504, height: 252 },
} as const
export type SizePreset = keyof typeof SIZE_PRESETS | 'custom'

/** Text sizes in points that stay readable where the figure is shown (a column, a screen, a hall). */
export const FONT_PRESETS = { paper: 8, screen: 12, lecture: 20, 'back-row': 28 } as const
export type FontPreset = keyof typeof FONT_PRESETS

/** The text size a page size calls for unless asked otherwise: paper text in a paper, lecture text on a slide. */
export function fontForSize(size: string): FontPreset {
  if (size.startsWith('paper')) return 'paper'
  if (size.startsWith('slide')) return 'lecture'
  return 'screen'
}

/** PNG resolutions offered besides a scale (1× = 96 dpi, a CSS pixel per pixel). */
export const DPI_PRESETS = [150, 300, 600] as const
export const DPI_PER_SCALE = 96

/** The PNG's size in pixels: the page rasterised at its resolution. */
export function pngPixels(spec: { width: number; height: number; dpi: number }): [number, number] {
  return [Math.round((spec.width * spec.dpi) / 72), Math.round((spec.height * spec.dpi) / 72)]
}

/** "3.5x2.625in", "9x6cm", "1280x720" (pixels) as points, or null. */
export function parseSize(text: string): { width: number; height: number } | null {
  const m = /^(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(pt|in|cm|mm|px)?$/.exec(text.trim())
  if (!m) return null
  const k = PT_PER[(m[3] ?? 'px') as SizeUnit]
  return { width: Number(m[1]) * k, height: Number(m[2]) * k }
}

/** resvg holds the whole RGBA image in memory: 64 MP is 256 MB. */
export const MAX_PNG_PIXELS = 64e6
/** Tokens per side of a translation; the engine reads at most 200 source tokens. */
export const MAX_TOKENS = 2000
/** Values of one matrix (2000 × 2000 tokens, or 10,000 history steps × 400 forecast steps). */
export const MAX_CELLS = 4_000_000
/** Values of one series (history or forecast) in a forecast figure. */
export const MAX_STEPS = 10_000

// ---- building blocks ----

const FORMATS = ['png', 'svg', 'pdf'] as const
const THEMES = ['light', 'dark', 'transparent'] as const
const OVERRIDE_MODES = ['uniform', 'onehot', 'diagonal', 'custom', 'silence'] as const
const VIEWS = [
  'heatmap',
  'local',
  'positions',
  'step',
  'lines',
  'comparison',
  'whatif',
  'corpus',
  'forecast',
  'sidebyside',
  'beam',
  'heads',
  'goldlinks',
  'occlusion',
  'contributions',
] as const

/** 'a, b or c' */
const oneOf = (xs: readonly string[]) => `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`
const str = (max: number) => v.pipe(v.string('must be text'), v.maxLength(max, `must be at most ${max} characters`))
/** Text drawn in the figure: SVG (XML 1.0) cannot hold control characters other than line breaks. */
const control = (c: string) => (c < ' ' && c !== '\n') || c === '\x7f'
const label = (max: number) =>
  v.pipe(
    str(max),
    v.check((s) => ![...s].some(control), 'must not contain control characters'),
  )
const whole = (min: number, max: number, what = '') =>
  v.message(v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max)), `must be a whole number${what} from ${min} to ${max}`)
const between = (min: number, max: number) => v.message(v.pipe(v.number(), v.minValue(min), v.maxValue(max)), `must be a number from ${min} to ${max}`)
const finite = v.message(v.pipe(v.number(), v.finite()), 'must be a finite number')
const flag = v.boolean('must be true or false')
const obj = <E extends v.ObjectEntries>(entries: E) => v.object(entries, 'must be an object')
const list = <T extends v.GenericSchema>(item: T, max: number, what = 'entries') =>
  v.pipe(v.array(item, 'must be a list'), v.maxLength(max, `must have at most ${max} ${what}`))
const numbers = (max: number) => list(finite, max, 'values')
const nullableNumbers = (max: number) => list(v.nullable(finite), max, 'values')
/** Rows of finite numbers, at most MAX_CELLS of them in all. */
const matrix = (rows: number, cols: number) =>
  v.pipe(
    list(numbers(cols), rows, 'rows'),
    v.check((m) => m.reduce((n, r) => n + r.length, 0) <= MAX_CELLS, `must have at most ${MAX_CELLS.toLocaleString('en')} values`),
  )
const tokens = list(str(1000), MAX_TOKENS, 'tokens')
const flags = list(flag, MAX_TOKENS)
const windows = list(v.tuple([finite, finite]), MAX_STEPS, 'windows')
/** One cross-attention head of a Transformer: its layer and its index in the layer, from 0. */
const headRef = obj({ layer: whole(0, 63), head: whole(0, 63) })
/** crossAttention[t][layer][head][s]: the same layers and heads at every step, one weight per source token, at most MAX_CELLS in all. */
const headsShaped = (c: number[][][][], T: number, S: number) => {
  const L = c[0]?.length ?? 0
  const H = c[0]?.[0]?.length ?? 0
  return (
    L > 0 &&
    H > 0 &&
    c.length === T &&
    T * L * H * S <= MAX_CELLS &&
    c.every((step) => step.length === L && step.every((l) => l.length === H && l.every((r) => r.length === S)))
  )
}
/** attention[t][s] (or [] for a model without attention): one row per output, one column per input. */
const shaped = (m: number[][], rows: number, cols: number) => m.length === 0 || (m.length === rows && m.every((r) => r.length === cols))

// ---- the spec ----

export const FIGURE_LANGS = ['en', 'zh'] as const
export type FigureLang = (typeof FIGURE_LANGS)[number]

/** What the figure looks like. Sizes are in points (1/72 in): the PDF's page, the SVG's size, the text's size. */
export const FigureSpecSchema = v.pipe(
  v.strictObject(
    {
      format: v.picklist(FORMATS, `must be ${oneOf(FORMATS)}`),
      width: v.message(v.pipe(v.number(), v.minValue(36), v.maxValue(6000)), 'must be a number of points from 36 to 6000 (0.5 to 83 in)'),
      height: v.message(v.pipe(v.number(), v.minValue(36), v.maxValue(6000)), 'must be a number of points from 36 to 6000 (0.5 to 83 in)'),
      /** PNG only: pixels per inch (96 is one pixel per CSS pixel, 1×). */
      dpi: whole(36, 2400),
      theme: v.picklist(THEMES, `must be ${oneOf(THEMES)}`),
      /** Points, like the page. */
      fontSize: between(4, 72),
      /** The language of the axis titles and keys. */
      lang: v.picklist(FIGURE_LANGS, `must be ${oneOf(FIGURE_LANGS)}`),
      title: v.optional(label(200)),
      caption: v.optional(label(500)),
      /** Heatmap and forecast: draw the colour-scale legend. */
      legend: flag,
      /** Heatmap of a local model: draw the p_t markers and windows. */
      localOverlay: flag,
      colormap: v.picklist(COLORMAP_NAMES, `must be ${oneOf(COLORMAP_NAMES)}`),
      /** Dim every row of the matrix but this one, as the app does for a selection; by default nothing is dimmed. */
      highlightRow: v.optional(v.nullable(whole(0, MAX_STEPS))),
    },
    (issue) => (issue.expected === 'never' ? 'is not a figure setting' : 'must be an object of figure settings'),
  ),
  v.forward(
    v.partialCheck(
      [['format'], ['width'], ['height'], ['dpi']],
      (s) => s.format !== 'png' || pngPixels(s)[0] * pngPixels(s)[1] <= MAX_PNG_PIXELS,
      'must keep the PNG within 64 megapixels; choose a smaller size or resolution',
    ),
    ['dpi'],
  ),
)
export type FigureSpec = v.InferOutput<typeof FigureSpecSchema>
export type FigureFormat = FigureSpec['format']
export type FigureTheme = FigureSpec['theme']

export const DEFAULT_FIGURE: FigureSpec = {
  format: 'png',
  width: SIZE_PRESETS['slide-16x9'].width,
  height: SIZE_PRESETS['slide-16x9'].height,
  dpi: 2 * DPI_PER_SCALE,
  theme: 'light',
  fontSize: FONT_PRESETS.lecture,
  lang: 'en',
  legend: true,
  localOverlay: true,
  colormap: 'viridis',
}

// ---- the data: the API's result types, field by field (test/unit/host/figure.test.ts checks they match) ----

/** One decoded sentence (api.ts Translation): rows of the matrices are output steps. */
const TranslationSchema = v.pipe(
  obj({
    modelId: str(4096),
    source: str(100_000),
    srcTokens: tokens,
    srcUnknown: flags,
    tgtTokens: tokens,
    text: str(100_000),
    attention: matrix(MAX_TOKENS, MAX_TOKENS),
    scores: matrix(MAX_TOKENS, MAX_TOKENS),
    encoderStates: matrix(MAX_TOKENS, 8192),
    align: v.nullable(matrix(MAX_TOKENS, MAX_TOKENS)),
    positions: v.nullable(numbers(MAX_TOKENS)),
    windows: v.nullable(windows),
    gaussian: v.nullable(matrix(MAX_TOKENS, MAX_TOKENS)),
    crossAttention: v.optional(list(list(matrix(64, MAX_TOKENS), 64, 'layers'), MAX_TOKENS, 'steps')),
    tokenLogProbs: numbers(MAX_TOKENS),
    alternatives: list(list(obj({ token: str(1000), p: finite }), 64, 'alternatives'), MAX_TOKENS, 'steps'),
    blocked: v.optional(list(v.nullable(str(1000)), MAX_TOKENS, 'steps')),
    tgtUnknown: v.nullable(flags),
    replaced: v.optional(list(v.nullable(obj({ source: str(1000), sourceIndex: whole(0, MAX_TOKENS), attention: finite })), MAX_TOKENS)),
    mode: v.picklist(['greedy', 'beam', 'forced', 'what-if'], 'must be greedy, beam, forced or what-if'),
    beam: whole(1, 16),
    beamTree: v.optional(
      obj({
        width: whole(1, 64),
        nodes: list(
          obj({
            parent: whole(-1, 1e7),
            step: whole(0, MAX_TOKENS),
            token: str(1000),
            logProb: finite,
            score: finite,
            attention: numbers(MAX_TOKENS),
            status: v.picklist(['chosen', 'finished', 'kept', 'pruned'], 'must be chosen, finished, kept or pruned'),
          }),
          1_000_000,
          'nodes',
        ),
      }),
    ),
    words: v.optional(
      obj({
        src: list(v.tuple([whole(0, MAX_TOKENS), whole(0, MAX_TOKENS)]), MAX_TOKENS, 'words'),
        tgt: list(v.tuple([whole(0, MAX_TOKENS), whole(0, MAX_TOKENS)]), MAX_TOKENS, 'words'),
      }),
    ),
    logProb: finite,
    truncated: flag,
    decodeMs: finite,
    provider: str(64),
  }),
  v.forward(
    v.partialCheck(
      [['attention'], ['srcTokens'], ['tgtTokens']],
      (t) => shaped(t.attention, t.tgtTokens.length, t.srcTokens.length),
      'must have one row per output token and one column per source token',
    ),
    ['attention'],
  ),
)

/** Corpus BLEU of several models (api.ts CorpusResult). */
const CorpusResultSchema = obj({
  pair: str(64),
  testSet: str(256),
  results: list(
    obj({
      modelId: str(4096),
      attention: v.picklist(ATTENTION_KINDS, `must be ${oneOf(ATTENTION_KINDS)}`),
      model: str(256),
      fileName: str(4096),
      sentences: whole(0, 1e9),
      bleu: finite,
      bleuCased: finite,
      byLength: list(obj({ bucket: str(32), sentences: whole(0, 1e9), bleu: finite }), 64, 'buckets'),
      seconds: finite,
      sentencesPerSecond: finite,
      attentionEntropy: v.nullable(finite),
      diagonality: v.nullable(finite),
      cached: flag,
      hypotheses: list(str(100_000), 100_000, 'hypotheses'),
    }),
    32,
    'models',
  ),
})

/** One forecast (api.ts ForecastResult): rows of the matrices are forecast steps, columns history steps. */
const ForecastResultSchema = v.pipe(
  obj({
    modelId: str(4096),
    historyTimes: list(str(64), MAX_STEPS, 'timestamps'),
    history: numbers(MAX_STEPS),
    times: list(str(64), MAX_STEPS, 'timestamps'),
    forecast: numbers(MAX_STEPS),
    actual: nullableNumbers(MAX_STEPS),
    seasonalNaive: nullableNumbers(MAX_STEPS),
    attention: matrix(MAX_STEPS, MAX_STEPS),
    scores: matrix(MAX_STEPS, MAX_STEPS),
    positions: v.nullable(numbers(MAX_STEPS)),
    windows: v.nullable(windows),
    gaussian: v.nullable(matrix(MAX_STEPS, MAX_STEPS)),
    align: v.nullable(matrix(MAX_STEPS, MAX_STEPS)),
    mae: v.nullable(finite),
    mape: v.nullable(finite),
    naiveMae: v.nullable(finite),
    naiveMape: v.nullable(finite),
    unit: str(64),
    periodMinutes: v.message(v.pipe(v.number(), v.finite(), v.gtValue(0)), 'must be a positive number'),
    seasonalLags: list(whole(1, MAX_STEPS), 16, 'lags'),
    decodeMs: finite,
    provider: str(64),
  }),
  v.forward(
    v.partialCheck([['times'], ['forecast']], (f) => f.times.length === f.forecast.length, 'must have one timestamp per forecast step'),
    ['times'],
  ),
  v.forward(
    v.partialCheck([['historyTimes'], ['history']], (f) => f.historyTimes.length === f.history.length, 'must have one timestamp per history step'),
    ['historyTimes'],
  ),
  v.forward(
    v.partialCheck(
      [['attention'], ['forecast'], ['history']],
      (f) => shaped(f.attention, f.forecast.length, f.history.length),
      'must have one row per forecast step and one column per history step',
    ),
    ['attention'],
  ),
)

/** The parts a step-through figure splits into (issue 40): its bar stages, then its context vector. */
export const STEP_STAGES = ['bars', 'context'] as const
/** The parts a heads grid splits into (issue 40): the heads' average with every label, then the grid of small maps. */
export const HEADS_PANELS = ['average', 'grid'] as const

/** Some output steps of a figure split into parts: [first, end), counted from 0. */
const rowsSchema = v.tuple([whole(0, MAX_TOKENS), whole(1, MAX_TOKENS)], 'must be [first, end) output steps')
const rowsInside = (d: { translation: { tgtTokens: string[] }; rows?: [number, number] }) =>
  !d.rows || (d.rows[0] < d.rows[1] && d.rows[1] <= d.translation.tgtTokens.length)
const ROWS_INSIDE = 'must be output steps of the translation, the first before the end'
/** Some source positions of a figure split into parts (a slide too narrow for the whole source): [first, end). */
const colsSchema = v.tuple([whole(0, MAX_TOKENS), whole(1, MAX_TOKENS)], 'must be [first, end) source positions')
/** Source positions [first, end) inside a source of `n`. */
const colsWithin = (cols: [number, number] | undefined, n: number) => !cols || (cols[0] < cols[1] && cols[1] <= n)
const colsInside = (d: { translation: { srcTokens: string[] }; cols?: [number, number] }) => colsWithin(d.cols, d.translation.srcTokens.length)
const COLS_INSIDE = 'must be source positions of the translation, the first before the end'

/** An alignment link: source word i, target word j, sure or possible. */
const LinkSchema = obj({ i: whole(0, MAX_TOKENS), j: whole(0, MAX_TOKENS), sure: v.boolean() })

/** The data behind a figure, one variant per view: what the view drew, sent as plain data. */
export const FigureDataSchema = v.variant(
  'view',
  [
    v.pipe(
      obj({ view: v.literal('heatmap'), translation: TranslationSchema, rows: v.optional(rowsSchema), cols: v.optional(colsSchema) }),
      v.forward(
        v.partialCheck([['translation', 'attention']], (d) => d.translation.attention.length > 0, 'must not be empty: this model has no attention to draw'),
        ['translation', 'attention'],
      ),
      v.forward(v.partialCheck([['translation', 'tgtTokens'], ['rows']], rowsInside, ROWS_INSIDE), ['rows']),
      v.forward(v.partialCheck([['translation', 'srcTokens'], ['cols']], colsInside, COLS_INSIDE), ['cols']),
    ),
    /** The spotlight of one output step of a local model: softmax in the window, Gaussian, product. */
    v.pipe(
      obj({
        view: v.literal('local'),
        translation: TranslationSchema,
        windowD: whole(0, MAX_TOKENS),
        step: whole(0, MAX_TOKENS),
        cols: v.optional(colsSchema),
      }),
      v.forward(
        v.partialCheck(
          [['translation'], ['step']],
          ({ translation: t, step }) =>
            step < t.attention.length && !!(t.align?.[step] && t.gaussian?.[step] && t.positions?.[step] !== undefined && t.windows?.[step]),
          "must be an output step of a local model's translation",
        ),
        ['step'],
      ),
      v.forward(v.partialCheck([['translation', 'srcTokens'], ['cols']], colsInside, COLS_INSIDE), ['cols']),
    ),
    /** p_t against the output step of a local model, with the diagonal and the window band. */
    v.pipe(
      obj({
        view: v.literal('positions'),
        translation: TranslationSchema,
        rows: v.optional(rowsSchema),
        // A part drawn the usual way may take the source positions its steps look at where the
        // sentence's are not a line apart (a slide in parts at its floor); an export's part the
        // usual way has the sentence's or is laid across.
        near: v.optional(v.boolean('must be true or false')),
      }),
      v.forward(
        v.partialCheck(
          [['translation']],
          ({ translation: t }) =>
            !!(t.positions && t.windows && t.positions.length >= t.tgtTokens.length && t.windows.length >= t.tgtTokens.length && t.tgtTokens.length > 0),
          "must be a local model's translation (positions and windows for every output step)",
        ),
        ['translation'],
      ),
      v.forward(v.partialCheck([['translation', 'tgtTokens'], ['rows']], rowsInside, ROWS_INSIDE), ['rows']),
    ),
    /** The step-through stages of one output step: scores, softmax, (Gaussian,) context vector. */
    v.pipe(
      obj({
        view: v.literal('step'),
        translation: TranslationSchema,
        step: whole(0, MAX_TOKENS),
        attention: v.picklist(ATTENTION_KINDS, `must be ${oneOf(ATTENTION_KINDS)}`),
        /** A part of a figure split into slides: the bar stages alone, or the context vector alone. */
        stages: v.optional(v.picklist(STEP_STAGES, `must be ${oneOf(STEP_STAGES)}`)),
        cols: v.optional(colsSchema),
      }),
      v.forward(
        v.partialCheck(
          [['translation'], ['step']],
          ({ translation: t, step }) => step < t.attention.length,
          'must be an output step of a translation with attention',
        ),
        ['step'],
      ),
      v.forward(v.partialCheck([['translation', 'srcTokens'], ['cols']], colsInside, COLS_INSIDE), ['cols']),
    ),
    /** Alignment lines: source above, output below, a line per weight at or above the threshold. */
    v.pipe(
      obj({ view: v.literal('lines'), translation: TranslationSchema, threshold: between(0, 1), rows: v.optional(rowsSchema) }),
      v.forward(
        v.partialCheck([['translation', 'attention']], (d) => d.translation.attention.length > 0, 'must not be empty: this model has no attention to draw'),
        ['translation', 'attention'],
      ),
      v.forward(v.partialCheck([['translation', 'tgtTokens'], ['rows']], rowsInside, ROWS_INSIDE), ['rows']),
    ),
    v.pipe(
      obj({
        view: v.literal('comparison'),
        translations: v.pipe(list(TranslationSchema, 32, 'translations'), v.minLength(1, 'must have at least one translation')),
        names: list(str(256), 32, 'names'),
        /** Each model's colour where the figure shows some of the models (a slide in parts): the colours of the whole set. */
        colours: v.optional(list(v.pipe(v.string('must be text'), v.regex(/^#[0-9a-f]{6}$/i, 'must be a colour #rrggbb')), 32, 'colours')),
      }),
      v.forward(
        v.partialCheck([['translations'], ['names']], (d) => d.names.length === d.translations.length, 'must have one name per translation'),
        ['names'],
      ),
      v.forward(
        v.partialCheck(
          [['translations'], ['colours']],
          (d) => !d.colours || d.colours.length === d.translations.length,
          'must have one colour per translation',
        ),
        ['colours'],
      ),
    ),
    /** What-if: the sentence decoded again with forced weights, before and after. */
    v.pipe(
      obj({
        view: v.literal('whatif'),
        result: obj({ original: TranslationSchema, modified: TranslationSchema, changed: flags }),
        mode: v.picklist(OVERRIDE_MODES, `must be ${oneOf(OVERRIDE_MODES)}`),
        /** The step overridden, or every step. */
        at: v.union([v.literal('all'), whole(0, MAX_TOKENS)], 'must be all or an output step'),
        /** One-hot: the source position every overridden step reads. */
        sourceIndex: v.optional(whole(0, MAX_TOKENS)),
        /** Transformer: the one head overridden or silenced (absent: every head). */
        head: v.optional(headRef),
        /** A part of a figure split into slides: the modified run's output steps [first, end). */
        rows: v.optional(rowsSchema),
        /** A part of a figure split into slides: source positions [first, end) of the weights. */
        cols: v.optional(colsSchema),
      }),
      v.forward(
        v.partialCheck([['result']], (d) => d.result.modified.attention.length > 0, 'must have attention: this model has none to override'),
        ['result'],
      ),
      v.forward(
        v.partialCheck([['result', 'modified', 'srcTokens'], ['cols']], (d) => colsWithin(d.cols, d.result.modified.srcTokens.length), COLS_INSIDE),
        ['cols'],
      ),
    ),
    /** Two attention maps of one sentence on one fixed 0–1 scale, and their difference A − B. */
    v.pipe(
      obj({
        view: v.literal('sidebyside'),
        a: TranslationSchema,
        b: TranslationSchema,
        names: v.tuple([label(256), label(256)], 'must be two names'),
        /** A part of a figure split into slides: output steps [first, end) of the longer output. */
        rows: v.optional(rowsSchema),
        /** A part of a figure split into slides: source positions [first, end) of the longer source. */
        cols: v.optional(colsSchema),
      }),
      v.forward(
        v.partialCheck(
          [['a', 'srcTokens'], ['b', 'srcTokens'], ['cols']],
          (d) => colsWithin(d.cols, Math.max(d.a.srcTokens.length, d.b.srcTokens.length)),
          'must be source positions of the longer source, the first before the end',
        ),
        ['cols'],
      ),
      v.forward(
        v.partialCheck(
          [
            ['a', 'attention'],
            ['b', 'attention'],
          ],
          (d) => d.a.attention.length > 0 && d.b.attention.length > 0,
          'must not be empty: both sides need attention to draw',
        ),
        ['b', 'attention'],
      ),
    ),
    /** The beam search's tree of hypotheses, the chosen path highlighted. */
    v.pipe(
      obj({ view: v.literal('beam'), translation: TranslationSchema }),
      v.forward(
        v.partialCheck(
          [['translation', 'beamTree']],
          (d) => (d.translation.beamTree?.nodes.length ?? 0) > 0,
          'must be a beam-search translation with its tree of hypotheses',
        ),
        ['translation', 'beamTree'],
      ),
    ),
    /**
     * A Transformer's cross-attention heads: the layer × head grid of small heatmaps (head null) or
     * one head large, each with its entropy and diagonality and, given another model's alignment
     * of the same sentence, its agreement with it.
     */
    v.pipe(
      obj({
        view: v.literal('heads'),
        translation: TranslationSchema,
        head: v.nullable(headRef),
        /** Another model's alignment of the sentence, over its tokens or (words) its words: each head's agreement with it. */
        reference: v.optional(v.nullable(obj({ name: label(256), attention: matrix(MAX_TOKENS, MAX_TOKENS), words: v.optional(flag) }))),
        /** A part of a figure split into slides: output steps [first, end). */
        rows: v.optional(rowsSchema),
        /** A part of the grid split into slides: the heads' average alone, or the grid of small maps alone. */
        panel: v.optional(v.picklist(HEADS_PANELS, `must be ${oneOf(HEADS_PANELS)}`)),
      }),
      v.forward(
        v.partialCheck(
          [['translation']],
          ({ translation: t }) => !!t.crossAttention && headsShaped(t.crossAttention, t.tgtTokens.length, t.srcTokens.length),
          "must be a Transformer's translation with every head's weights (crossAttention[step][layer][head][source]) at every output step",
        ),
        ['translation'],
      ),
      v.forward(
        v.partialCheck(
          [['translation'], ['head']],
          ({ translation: t, head }) =>
            head === null || (head.layer < (t.crossAttention?.[0]?.length ?? 0) && head.head < (t.crossAttention?.[0]?.[0]?.length ?? 0)),
          "must be one of the model's heads, or null for the grid",
        ),
        ['head'],
      ),
    ),
    obj({ view: v.literal('corpus'), corpus: CorpusResultSchema }),
    /** The Alignment score panel: one gold sentence's attention over its words, with gold, extracted and statistical links. */
    v.pipe(
      obj({
        view: v.literal('goldlinks'),
        title: label(256),
        srcWords: list(label(200), MAX_TOKENS, 'source words'),
        tgtWords: list(label(200), MAX_TOKENS, 'target words'),
        matrix: list(v.nullable(list(between(0, 1), MAX_TOKENS, 'weights')), MAX_TOKENS, 'rows'),
        gold: list(LinkSchema, MAX_TOKENS * 4, 'links'),
        extracted: list(LinkSchema, MAX_TOKENS * 4, 'links'),
        statistical: v.nullable(list(LinkSchema, MAX_TOKENS * 4, 'links')),
        /** A part of a figure split into slides: target words [first, end). */
        rows: v.optional(rowsSchema),
        /** A part of a figure split into slides: source words [first, end). */
        cols: v.optional(colsSchema),
      }),
      v.forward(
        v.partialCheck([['tgtWords'], ['rows']], (d) => !d.rows || (d.rows[0] < d.rows[1] && d.rows[1] <= d.tgtWords.length), ROWS_INSIDE),
        ['rows'],
      ),
      v.forward(
        v.partialCheck(
          [['srcWords'], ['cols']],
          (d) => colsWithin(d.cols, d.srcWords.length),
          'must be source words of the sentence, the first before the end',
        ),
        ['cols'],
      ),
      v.forward(
        v.partialCheck(
          [['matrix'], ['srcWords'], ['tgtWords']],
          (d) => d.matrix.length === d.tgtWords.length && d.matrix.every((r) => r === null || r.length === d.srcWords.length),
          'must have one row per target word and one column per source word',
        ),
        ['matrix'],
      ),
    ),
    /** Occlusion of one sentence beside its attention (the Alignment score panel), τ and top-1 agreement in the caption. */
    v.pipe(
      obj({
        view: v.literal('occlusion'),
        title: label(256),
        occlusion: obj({
          srcWords: list(label(200), MAX_TOKENS, 'source words'),
          tgtTokens: list(label(200), MAX_TOKENS, 'output tokens'),
          logProbs: list(finite, MAX_TOKENS, 'log-probabilities'),
          importance: list(list(finite, MAX_TOKENS, 'values'), MAX_TOKENS, 'rows'),
          attention: list(list(between(0, 1), MAX_TOKENS, 'weights'), MAX_TOKENS, 'rows'),
          tau: list(v.nullable(between(-1, 1)), MAX_TOKENS, 'values'),
          top1: list(v.boolean(), MAX_TOKENS, 'values'),
          meanTau: v.nullable(between(-1, 1)),
          top1Rate: between(0, 1),
        }),
        /** A part of a figure split into slides: output steps [first, end). */
        rows: v.optional(rowsSchema),
      }),
      v.forward(
        v.partialCheck(
          [['occlusion', 'tgtTokens'], ['rows']],
          (d) => !d.rows || (d.rows[0] < d.rows[1] && d.rows[1] <= d.occlusion.tgtTokens.length),
          ROWS_INSIDE,
        ),
        ['rows'],
      ),
      v.forward(
        v.partialCheck(
          [['occlusion']],
          ({ occlusion: o }) => [o.importance, o.attention].every((g) => g.length === o.tgtTokens.length && g.every((r) => r.length === o.srcWords.length)),
          'must have one row per output token and one column per source word, in the importance and the attention',
        ),
        ['occlusion'],
      ),
    ),
    /**
     * Contributions (issue 41): one method's matrix in a translation's shape (`attention` [T][S]),
     * the method's name and each output row's source share; an RNN's (`context-norm`): its
     * attention weights and each row's context share.
     */
    v.pipe(
      obj({
        view: v.literal('contributions'),
        translation: TranslationSchema,
        method: v.picklist(['norm', 'alti', 'alti+', 'rollout', 'context-norm'], 'must be norm, alti, alti+, rollout or context-norm'),
        sourceShare: numbers(MAX_TOKENS),
        /** A part of a figure split into slides: output steps [first, end). */
        rows: v.optional(rowsSchema),
        /** A part of a figure split into slides: source positions [first, end). */
        cols: v.optional(colsSchema),
      }),
      v.forward(
        v.partialCheck([['translation', 'attention']], (d) => d.translation.attention.length > 0, 'must not be empty'),
        ['translation', 'attention'],
      ),
      v.forward(
        v.partialCheck(
          [['translation', 'tgtTokens'], ['sourceShare']],
          (d) => d.sourceShare.length === d.translation.tgtTokens.length,
          'must have one share per output row',
        ),
        ['sourceShare'],
      ),
      v.forward(v.partialCheck([['translation', 'tgtTokens'], ['rows']], rowsInside, ROWS_INSIDE), ['rows']),
      v.forward(v.partialCheck([['translation', 'srcTokens'], ['cols']], colsInside, COLS_INSIDE), ['cols']),
    ),
    /** The forecasting view: series above, attention heatmap below, a selected step or none. */
    v.pipe(
      obj({ view: v.literal('forecast'), forecast: ForecastResultSchema, step: v.nullable(whole(0, MAX_STEPS)) }),
      v.forward(
        v.partialCheck([['forecast'], ['step']], (d) => d.step === null || d.step < d.forecast.forecast.length, 'must be a step of the forecast, or null'),
        ['step'],
      ),
    ),
  ],
  `must be ${oneOf(VIEWS)}`,
)
export type FigureData = v.InferOutput<typeof FigureDataSchema>
export type FigureView = FigureData['view']

/**
 * The arguments' schema as a named type: the IPC routes that carry it (routes.ts) then name it,
 * where spelling out every view's checks outgrew what the compiler writes for an inferred type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface, not an alias: only an interface is written by its name
export interface FigureArgsSchema extends v.StrictTupleSchema<[typeof FigureDataSchema, typeof FigureSpecSchema], undefined> {}

/** The arguments of the export channels (export:figure, export:copy): the data, then the spec. */
export const FigureArgs: FigureArgsSchema = v.strictTuple([FigureDataSchema, FigureSpecSchema])

// ---- checking ----

/** The first issue as one sentence, "field.path: message." (issues are reported one at a time). */
export function issueSentence(issues: readonly v.BaseIssue<unknown>[], what: string): string {
  const issue = issues[0]
  const path = issue.path?.map((p) => String(p.key)).join('.') || what
  return `${path}: ${issue.message.replace(/\.$/, '')}.`
}

function check<S extends v.GenericSchema>(schema: S, value: unknown, what: string): { output: v.InferOutput<S> } | { problem: string } {
  // abortEarly: a matrix full of NaN stops at its first value instead of listing millions.
  const r = v.safeParse(schema, value, { abortEarly: true })
  return r.success ? { output: r.output } : { problem: issueSentence(r.issues, what) }
}

/** A one-sentence problem with a spec (the Export dialog shows it; the CLI prints it), or null. */
export function specProblem(spec: unknown): string | null {
  const r = check(FigureSpecSchema, spec, 'spec')
  return 'problem' in r ? r.problem : null
}

/** Figure data and spec that came from outside, checked; throws a RefusedError of one sentence on the first problem. */
export function parseFigure(data: unknown, spec: unknown): { data: FigureData; spec: FigureSpec } {
  const d = check(FigureDataSchema, data, 'data')
  if ('problem' in d) throw new RefusedError(`The figure data was refused: ${d.problem}`)
  const s = check(FigureSpecSchema, spec, 'spec')
  if ('problem' in s) throw new RefusedError(`The figure settings were refused: ${s.problem}`)
  return { data: d.output, spec: s.output }
}

/** The attention matrix for people who plot in matplotlib: CSV with tokens as headers. */
export function matrixCsv(srcTokens: string[], tgtTokens: string[], attention: number[][]): string {
  const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)
  const head = ['target \\ source', ...srcTokens].map(q).join(',')
  return [head, ...tgtTokens.map((t, i) => [q(t), ...(attention[i] ?? []).map((w) => w.toPrecision(6))].join(','))].join('\n') + '\n'
}

/** Browser mode's answer to export:figure for a figure split into parts as PNG or SVG: `{ type, parts: [{ suffix, base64 }] }`. */
export const FIGURE_PARTS_TYPE = 'application/vnd.attention-lens.figure-parts+json'

/** A file name with a part's suffix before its extension: "fig.png", "-2" → "fig-2.png". */
export const withSuffix = (name: string, suffix: string) => (suffix ? name.replace(/(\.[^./\\]+)?$/, (ext) => `${suffix}${ext}`) : name)

export function figureFileName(view: string, format: string): string {
  return `attention-lens-${view}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${format}`
}
