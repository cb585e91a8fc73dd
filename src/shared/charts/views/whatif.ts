import { comparableTokens } from '../../end-token'
import type { FigureSpec } from '../../figure'
import { differing } from '../../differing'
import { FIGURE_TEXT } from '../figure-text'
import { keyElements, keyHeight, tokenRowElements, type Frame, type KeyItem } from '../frame'
import { buildHeatmapOption } from '../heatmap'
import { always, colsTitle, defineView, scaledPart, someCols, someRowsClamped, type ViewData } from './view'
import { graphicElements, type FigureOption } from '../echarts-parts'

/** What-if: the sentence decoded again with forced weights, before and after. */
export const whatif = defineView({
  id: 'whatif',
  names: { en: 'What-if', zh: '假如注意力…' },
  needs: ['translation', 'attention'],
  tab: { selection: 'keep' },
  cli: 'whatif',
  export: { colormap: always, translation: (d) => d.result.modified },
  // A part of a long sentence: those steps of the run after and their weights, and the same stretch of the run before.
  steps: (d) => d.result.modified.tgtTokens.length,
  // A source too wide for the page: the weights' columns in parts, the outputs above each in full.
  sources: (d) => d.result.modified.srcTokens.length,
  figure: whatIfFigure,
})

/**
 * The original run's output steps shown with the new run's steps `rows` (a part): the same stretch
 * of the sentence, scaled to its length, so the parts cover both runs once whichever is longer.
 */
export function originalRows(result: ViewData<'whatif'>['result'], rows: readonly [number, number]): [number, number] {
  return scaledPart(result.original.tgtTokens.length, rows, result.modified.tgtTokens.length)
}

/**
 * What-if on a page: the output before and after the override (changed words marked), and under
 * them the weights the new decoding used, as a heatmap.
 */
function whatIfFigure(data: ViewData<'whatif'>, spec: FigureSpec, f: Frame): FigureOption {
  const L = FIGURE_TEXT[f.lang]
  const { original, modified } = data.result
  // Changed words by the view's rule: outside a longest common subsequence of the two outputs.
  const [a, b] = [comparableTokens(original), comparableTokens(modified)]
  const marks = { original: differing(a, b), modified: differing(b, a) }
  const fs = f.fontSize
  const named = data.mode === 'onehot' ? `${L.modes.onehot} ${original.srcTokens[data.sourceIndex ?? 0] ?? ''}` : L.modes[data.mode]
  // A Transformer's override or silence names its head.
  const mode = data.head ? `${named} (${L.heads.name(data.head.layer + 1, data.head.head + 1)})` : named
  const at = data.at === 'all' ? L.everyStep : L.stepN(data.at + 1, original.tgtTokens[data.at] ?? '')
  const [r0, r1] = data.rows ?? [0, Infinity]
  const [o0, o1] = data.rows ? originalRows(data.result, data.rows) : [0, Infinity]
  const rows = [
    { head: L.before, tokens: original.tgtTokens.map((text, i) => ({ text, mark: marks.original[i] })).slice(o0, o1) },
    { head: L.after, tokens: modified.tgtTokens.map((text, i) => ({ text, mark: marks.modified[i] })).slice(r0, r1) },
  ]
  const key: KeyItem[] = [{ label: `${L.override(mode, at)} · ${L.changed(marks.modified.filter(Boolean).length)}`, symbol: 'underline', color: f.ink.accent }]
  const keyH = keyHeight(key, f.width, fs, f.measure)
  const words = tokenRowElements(rows, f.x, f.y, f.width, f.height * 0.5 - keyH, f)
  const below = words.height + fs * 0.2 + keyH + fs * 0.6
  const k = keyElements(key, f.x, f.y + words.height + fs * 0.2, f.width, f, 'left')
  const t = someCols(someRowsClamped(modified, data.rows), data.cols)
  const heat = buildHeatmapOption({
    srcTokens: t.srcTokens,
    tgtTokens: t.tgtTokens,
    attention: t.attention,
    colormap: spec.colormap,
    colorScale: spec.legend,
    labels: 'auto',
    outputTitle: data.rows ? L.outputRows(data.rows[0] + 1, Math.min(data.rows[1], modified.tgtTokens.length), modified.tgtTokens.length) : undefined,
    sourceTitle: colsTitle(f, data.cols, modified.srcTokens.length),
    frame: { ...f, y: f.y + below, height: f.height - below },
  })
  const own = graphicElements(heat)
  return { ...heat, cramped: !!heat.cramped || words.overflow, graphic: { elements: [...words.elements, ...k.elements, ...own] } }
}
