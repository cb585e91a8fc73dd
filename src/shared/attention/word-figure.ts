/**
 * Figures in words or pieces. The views that draw a whole sentence (heatmap, heads, alignment
 * lines, with/without, side by side) are drawn in words unless pieces are asked for; the views
 * that show one decoder step at a time (local attention, p_t, step-through, what-if, the beam
 * tree) draw pieces, since a decoder step writes one piece, and say so. The figure's metadata
 * carries the line `unitsNote` gives.
 */
import type { FigureData, FigureLang } from '../figure'
import { inUnits, type Units } from './word-translation'

type View = FigureData['view']

/** Views drawn over decoder steps: a step writes one piece, so they show pieces in either mode. */
export const STEP_VIEWS: ReadonlySet<View> = new Set<View>(['local', 'positions', 'step', 'whatif', 'beam'])

/** The figure's data in the units asked for (the step views and the forecast keep theirs). */
export function figureInUnits(data: FigureData, units: Units): FigureData {
  if (units === 'pieces' || STEP_VIEWS.has(data.view)) return data
  const w = (t: Parameters<typeof inUnits>[0]) => inUnits(t, units)
  switch (data.view) {
    case 'heatmap':
    case 'lines':
    case 'heads':
      return { ...data, translation: w(data.translation) }
    case 'comparison':
      return { ...data, translations: data.translations.map(w) }
    case 'sidebyside':
      return { ...data, a: w(data.a), b: w(data.b) }
    default:
      return data
  }
}

/** What a figure's labels are: words, pieces by choice, or pieces because the view shows decoder steps; null without tokens (corpus, forecast). */
export function figureUnits(data: FigureData): 'words' | 'pieces' | 'steps' | null {
  const ts =
    data.view === 'comparison'
      ? data.translations
      : data.view === 'sidebyside'
        ? [data.a, data.b]
        : data.view === 'whatif'
          ? [data.result.modified]
          : 'translation' in data
            ? [data.translation]
            : []
  if (ts.length === 0) return null
  if (STEP_VIEWS.has(data.view)) return 'steps'
  return ts.every((t) => t.words) ? 'words' : 'pieces'
}

const NOTES: Record<FigureLang, Record<'words' | 'pieces' | 'steps', string>> = {
  en: {
    words:
      "Units: words. A source word receives the sum of the weights of its subword pieces; an output word's row is the mean of its pieces' rows, so each row still sums to 1.",
    pieces: 'Units: subword pieces, as the model reads and writes them.',
    steps: 'Units: subword pieces. This view shows one decoder step at a time, and each step writes one piece.',
  },
  zh: {
    words: '单位：词。源语言词得到其各子词片段权重之和；输出词的一行是其各片段行的平均，因此每行之和仍为 1。',
    pieces: '单位：子词片段（模型实际读写的单位）。',
    steps: '单位：子词片段。该视图一次显示一个解码步，每步生成一个片段。',
  },
}

/**
 * What the rows of the figure's weights sum to, where that is not 1 (issue 40 #5): local-p
 * multiplies the softmax by a Gaussian, so its rows sum to less (0.32–0.99 on a 25-word sentence).
 * Null where every row sums to 1 (within 0.01), or the figure has no single matrix of weights.
 */
function rowSums(data: FigureData): [number, number] | null {
  const t = 'translation' in data ? data.translation : data.view === 'whatif' ? data.result.modified : null
  if (!t || t.attention.length === 0) return null
  const sums = t.attention.map((r) => r.reduce((a, b) => a + b, 0))
  const [lo, hi] = [Math.min(...sums), Math.max(...sums)]
  return lo < 0.99 || hi > 1.01 ? [lo, hi] : null
}

const SUMS: Record<FigureLang, { words: string; other: (lo: string, hi: string) => string }> = {
  en: {
    words: "Units: words. A source word receives the sum of the weights of its subword pieces; an output word's row is the mean of its pieces' rows.",
    other: (lo, hi) => ` The weights are the softmax times local-p's Gaussian, so a row sums to less than 1: here ${lo} to ${hi}.`,
  },
  zh: {
    words: '单位：词。源语言词得到其各子词片段权重之和；输出词的一行是其各片段行的平均。',
    other: (lo, hi) => `权重是 softmax 乘以 local-p 的高斯因子，因此每行之和小于 1：这里为 ${lo} 到 ${hi}。`,
  },
}

/** One sentence for the figure's metadata (PDF subject, SVG description, PNG text): what its rows and columns are, and what a row sums to. */
export function unitsNote(data: FigureData, lang: FigureLang = 'en'): string | null {
  const u = figureUnits(data)
  if (!u) return null
  const sums = rowSums(data)
  if (!sums) return NOTES[lang][u]
  const [lo, hi] = sums.map((x) => x.toFixed(2))
  return (u === 'words' ? SUMS[lang].words : NOTES[lang][u]) + SUMS[lang].other(lo, hi)
}
