/**
 * Each view's figure on a page: the view's data and the export settings handed to that view's
 * own chart builder (the one the app draws with), with a frame to lay out on.
 */
import type { FigureData, FigureSpec } from '../figure'
import { buildComparisonOption } from './comparison'
import { buildCorpusOption } from './corpus'
import { buildForecastOption } from './forecast'
import type { Frame } from './frame'
import { buildHeatmapOption } from './heatmap'
import { buildSpotlightOption } from './local'

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
      })
    }
    case 'comparison':
      return buildComparisonOption({ translations: data.translations, names: data.names })
    case 'corpus':
      return buildCorpusOption(data.corpus)
    case 'forecast':
      return buildForecastOption({ result: data.forecast, width: spec.width, selectedStep: data.step, colormap: spec.colormap, fontSize: spec.fontSize, dark: spec.theme === 'dark' })
    default:
      throw new Error(`no figure for ${data.view}`)
  }
}
