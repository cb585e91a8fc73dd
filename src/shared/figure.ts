import type { CorpusResult, ForecastResult, Translation } from './api'

/** What a figure export asks for: shared by the Export dialog, the main process and the CLI. */
export type FigureFormat = 'png' | 'svg' | 'pdf'
export type FigureTheme = 'light' | 'dark' | 'transparent'
export type FigureView = 'heatmap' | 'local' | 'comparison' | 'corpus' | 'forecast'

export const SIZE_PRESETS = {
  'slide-16x9': { label: '16:9 slide', width: 1280, height: 720 },
  'slide-4x3': { label: '4:3 slide', width: 1024, height: 768 },
  'paper-single': { label: 'paper, single column', width: 504, height: 378 },
  'paper-double': { label: 'paper, double column', width: 1040, height: 420 },
} as const
export type SizePreset = keyof typeof SIZE_PRESETS | 'custom'

/** Font sizes that stay readable where the figure is shown. */
export const FONT_PRESETS = { paper: 11, screen: 14, lecture: 20, 'back-row': 26 } as const
export type FontPreset = keyof typeof FONT_PRESETS

export interface FigureSpec {
  format: FigureFormat
  width: number
  height: number
  /** PNG only: pixels per layout pixel (1–4). */
  scale: number
  theme: FigureTheme
  fontSize: number
  title?: string
  caption?: string
  /** Heatmap: draw the colour-scale legend. */
  legend: boolean
  /** Heatmap of a local model: draw the p_t markers and windows. */
  localOverlay: boolean
  colormap: 'viridis' | 'cividis' | 'greys'
}

export const DEFAULT_FIGURE: FigureSpec = {
  format: 'png',
  width: SIZE_PRESETS['slide-16x9'].width,
  height: SIZE_PRESETS['slide-16x9'].height,
  scale: 2,
  theme: 'light',
  fontSize: FONT_PRESETS.lecture,
  legend: true,
  localOverlay: true,
  colormap: 'viridis',
}

/** Checks a spec from outside (IPC, HTTP, command line); returns a one-sentence problem or null. */
export function figureProblem(s: Partial<FigureSpec>): string | null {
  if (!['png', 'svg', 'pdf'].includes(String(s.format))) return 'The format must be png, svg or pdf.'
  if (!(Number.isInteger(s.width) && s.width! >= 100 && s.width! <= 8000)) return 'The width must be a whole number of pixels from 100 to 8000.'
  if (!(Number.isInteger(s.height) && s.height! >= 100 && s.height! <= 8000)) return 'The height must be a whole number of pixels from 100 to 8000.'
  if (!(typeof s.scale === 'number' && s.scale >= 1 && s.scale <= 4)) return 'The PNG scale must be between 1 and 4.'
  if (s.format === 'png' && s.width! * s.height! * s.scale * s.scale > 64e6) return 'The PNG would be larger than 64 megapixels; choose a smaller size or scale.'
  if (!['light', 'dark', 'transparent'].includes(String(s.theme))) return 'The theme must be light, dark or transparent.'
  if (!(typeof s.fontSize === 'number' && s.fontSize >= 6 && s.fontSize <= 72)) return 'The font size must be between 6 and 72.'
  return null
}

/** The attention matrix for people who plot in matplotlib: CSV with tokens as headers. */
export function matrixCsv(srcTokens: string[], tgtTokens: string[], attention: number[][]): string {
  const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)
  const head = ['target \\ source', ...srcTokens].map(q).join(',')
  return [head, ...tgtTokens.map((t, i) => [q(t), ...(attention[i] ?? []).map((w) => w.toPrecision(6))].join(','))].join('\n') + '\n'
}

/** The data behind a figure: what the view drew, sent as plain data to the exporter. */
export type FigureData =
  | { view: 'heatmap'; translation: Translation }
  /** The spotlight of one output step of a local model: softmax in the window, Gaussian, product. */
  | { view: 'local'; translation: Translation; windowD: number; step: number }
  | { view: 'comparison'; translations: Translation[]; names: string[] }
  | { view: 'corpus'; corpus: CorpusResult }
  /** The forecasting view: series above, attention heatmap below, a selected step or none. */
  | { view: 'forecast'; forecast: ForecastResult; step: number | null }

/** A one-sentence problem with figure data that came from outside, or null. */
export function figureDataProblem(d: unknown): string | null {
  const x = d as Partial<{ view: string; translation: Translation; translations: Translation[]; corpus: CorpusResult; forecast: ForecastResult; step: number | null }>
  const okTranslation = (t: Translation | undefined) =>
    !!t && Array.isArray(t.srcTokens) && Array.isArray(t.tgtTokens) && Array.isArray(t.attention) && t.srcTokens.length <= 2000 && t.tgtTokens.length <= 2000
  switch (x?.view) {
    case 'heatmap':
      return okTranslation(x.translation) ? null : 'The heatmap figure needs a translation with tokens and attention.'
    case 'local':
      return okTranslation(x.translation) && x.translation!.positions && Number.isInteger(x.step) && x.step! >= 0 && x.step! < x.translation!.tgtTokens.length
        ? null
        : 'The local-attention figure needs a local model\'s translation and a step inside it.'
    case 'comparison':
      return Array.isArray(x.translations) && x.translations.length > 0 && x.translations.every(okTranslation) ? null : 'The comparison figure needs translations.'
    case 'corpus':
      return x.corpus && Array.isArray(x.corpus.results) ? null : 'The corpus figure needs corpus results.'
    case 'forecast': {
      const f = x.forecast
      const ok =
        !!f &&
        Array.isArray(f.history) &&
        Array.isArray(f.forecast) &&
        Array.isArray(f.attention) &&
        Array.isArray(f.historyTimes) &&
        Array.isArray(f.times) &&
        f.history.length <= 10_000 &&
        f.forecast.length <= 10_000 &&
        (x.step === null || (Number.isInteger(x.step) && x.step! >= 0 && x.step! < f.forecast.length))
      return ok ? null : 'The forecast figure needs a forecast with its history, attention and a step inside it (or none).'
    }
    default:
      return 'Figures are heatmap, local, comparison, corpus or forecast.'
  }
}

export function figureFileName(view: string, format: string): string {
  return `attention-lens-${view}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${format}`
}
