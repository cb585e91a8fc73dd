/**
 * Each view's figure on a page: the view's data and the export settings handed to that view's
 * own chart builder (the one the app draws with), with a frame to lay out on.
 */
import type { FigureData, FigureSpec } from '../figure'
import { buildAlignmentFigure } from './alignment'
import { buildComparisonOption, differing } from './comparison'
import { comparableTokens } from '../end-token'
import { buildCorpusOption } from './corpus'
import { buildForecastOption } from './forecast'
import { keyElements, keyHeight, tokenRowElements, type Frame, type KeyItem } from './frame'
import { FIGURE_TEXT } from './figure-text'
import { buildHeatmapOption } from './heatmap'
import { buildPositionPlotOption, buildSpotlightOption } from './local'
import { buildStepFigure } from './step'
import { buildSideBySideFigure } from './sidebyside'
import { buildBeamFigure } from './beam'
import { buildHeadFigure, buildHeadsGridOption, buildStepHeadsFigure } from './heads'

export function buildFigureParts(data: FigureData, spec: FigureSpec, frame: Frame): Record<string, unknown> {
  switch (data.view) {
    case 'heatmap': {
      const t = data.translation
      return buildHeatmapOption({
        srcTokens: t.srcTokens,
        tgtTokens: t.tgtTokens,
        attention: t.attention,
        positions: spec.localOverlay ? t.positions : null,
        windows: spec.localOverlay ? t.windows : null,
        colormap: spec.colormap,
        colorScale: spec.legend,
        labels: 'auto',
        frame,
      })
    }
    case 'local': {
      const t = data.translation
      const i = data.step
      return buildSpotlightOption({
        srcTokens: t.srcTokens,
        align: t.align![i],
        gaussian: t.gaussian![i],
        attention: t.attention[i],
        position: t.positions![i],
        window: t.windows![i],
        windowD: data.windowD,
        kind: t.gaussian![i].some((g) => g > 0 && g < 1) ? 'local-p' : 'local-m',
        frame,
      })
    }
    case 'positions': {
      const t = data.translation
      const T = t.tgtTokens.length
      return buildPositionPlotOption({
        srcTokens: t.srcTokens,
        tgtTokens: t.tgtTokens,
        positions: t.positions!.slice(0, T),
        windows: t.windows!.slice(0, T),
        frame,
      })
    }
    case 'step': {
      const t = data.translation
      const i = data.step
      // A Transformer has no raw scores and no single context vector: its step is its heads' weights.
      if (data.attention === 'transformer' && t.crossAttention?.[i])
        return buildStepHeadsFigure({
          srcTokens: t.srcTokens,
          tgtTokens: t.tgtTokens,
          step: i,
          heads: t.crossAttention[i],
          average: t.attention[i] ?? [],
          colormap: spec.colormap,
          colorScale: spec.legend,
          frame,
        })
      const local = t.align !== null && (data.attention === 'local-m' || data.attention === 'local-p')
      return buildStepFigure({
        srcTokens: t.srcTokens,
        tgtTokens: t.tgtTokens,
        step: i,
        scores: t.scores[i] ?? [],
        alpha: local ? (t.align![i] ?? []) : (t.attention[i] ?? []),
        final: t.attention[i] ?? [],
        gaussian: data.attention === 'local-p' ? (t.gaussian?.[i] ?? null) : null,
        window: local ? (t.windows?.[i] ?? null) : null,
        position: local ? (t.positions?.[i] ?? null) : null,
        states: t.encoderStates,
        dims: 48,
        frame,
      })
    }
    case 'lines': {
      const t = data.translation
      return buildAlignmentFigure({ srcTokens: t.srcTokens, tgtTokens: t.tgtTokens, attention: t.attention, threshold: data.threshold, frame })
    }
    case 'whatif':
      return whatIfFigure(data, spec, frame)
    case 'comparison':
      return buildComparisonOption({ translations: data.translations, names: data.names, frame })
    case 'corpus':
      return buildCorpusOption(data.corpus, undefined, frame)
    case 'sidebyside':
      return buildSideBySideFigure({ a: data.a, b: data.b, names: data.names, colormap: spec.colormap, colorScale: spec.legend, frame })
    case 'beam':
      return buildBeamFigure(data.translation.beamTree!, frame)
    case 'heads': {
      const t = data.translation
      const common = { srcTokens: t.srcTokens, tgtTokens: t.tgtTokens, crossAttention: t.crossAttention!, reference: data.reference ?? null }
      return data.head
        ? buildHeadFigure({ ...common, head: data.head, colormap: spec.colormap, colorScale: spec.legend, frame })
        : buildHeadsGridOption({ ...common, colormap: spec.colormap, colorScale: spec.legend, frame })
    }
    case 'forecast':
      return buildForecastOption({ result: data.forecast, width: spec.width, selectedStep: data.step, colormap: spec.colormap, colorScale: spec.legend, frame })
  }
}

/**
 * What-if on a page: the output before and after the override (changed words marked), and under
 * them the weights the new decoding used, as a heatmap.
 */
function whatIfFigure(data: Extract<FigureData, { view: 'whatif' }>, spec: FigureSpec, f: Frame): Record<string, unknown> {
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
  const rows = [
    { head: L.before, tokens: original.tgtTokens.map((text, i) => ({ text, mark: marks.original[i] })) },
    { head: L.after, tokens: modified.tgtTokens.map((text, i) => ({ text, mark: marks.modified[i] })) },
  ]
  const key: KeyItem[] = [{ label: `${L.override(mode, at)} · ${L.changed(marks.modified.filter(Boolean).length)}`, symbol: 'underline', color: f.ink.accent }]
  const keyH = keyHeight(key, f.width, fs, f.measure)
  const words = tokenRowElements(rows, f.x, f.y, f.width, f.height * 0.5 - keyH, f)
  const below = words.height + fs * 0.2 + keyH + fs * 0.6
  const k = keyElements(key, f.x, f.y + words.height + fs * 0.2, f.width, f, 'left')
  const t = modified
  const heat = buildHeatmapOption({
    srcTokens: t.srcTokens,
    tgtTokens: t.tgtTokens,
    attention: t.attention,
    colormap: spec.colormap,
    colorScale: spec.legend,
    labels: 'auto',
    frame: { ...f, y: f.y + below, height: f.height - below },
  })
  const own = (heat.graphic as { elements: Record<string, unknown>[] }).elements
  return { ...heat, cramped: !!heat.cramped || words.overflow, graphic: { elements: [...words.elements, ...k.elements, ...own] } }
}
