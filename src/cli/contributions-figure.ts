/**
 * `attention-lens export --view contributions` (issue 41): the Contributions tab's figure for one
 * sentence, as the app's Export dialog gets it. A Transformer's: one method's matrix (--method,
 * the tab's ALTI+ by default); an RNN with attention's: its weights with the context-norm share
 * beside each row. Built in the units asked (the engine's pieces, or words as the tab makes them).
 */
import type { InferenceService } from '../engine/service'
import type { Units } from '../shared/attention/word-translation'
import { contextNormFigure, contextNormView } from '../shared/charts/context-norm'
import { contributionFigure, contributionView } from '../shared/charts/contributions'
import { CONTEXT_NORM } from '../shared/context-norm'
import { CONTRIBUTION_METHODS, RNN_NOT_APPLICABLE, type ContributionMethod } from '../shared/contributions'
import type { FigureData } from '../shared/figure'
import { UsageError } from './options'

export async function contributionsFigureData(
  service: InferenceService,
  model: string,
  o: { src: string; target?: string; method?: string; units: Units },
): Promise<FigureData> {
  const method = o.method ?? null
  if (method !== null && method !== CONTEXT_NORM && !CONTRIBUTION_METHODS.includes(method as ContributionMethod))
    throw new UsageError(`--method must be one of ${CONTRIBUTION_METHODS.join(', ')}, ${CONTEXT_NORM}`)
  // The reference forced through where --target gives one, as the tab attributes the output on show.
  const pieces = o.target !== undefined ? (await service.forced(model, o.src, o.target)).tgtTokens : undefined
  const r = await service.contributions(model, { text: o.src, ...(pieces ? { pieces } : {}) })
  if (r.method === 'transformer') {
    if (method === CONTEXT_NORM) throw new UsageError(`--method context-norm is the RNN analogue; a Transformer has ${CONTRIBUTION_METHODS.join(', ')}`)
    const view = contributionView(r, (method ?? 'alti+') as ContributionMethod, { units: o.units, step: 'usual' })
    return contributionFigure(view, { modelId: model, source: o.src, text: view.tgt.join(' ') })
  }
  if (method !== null && method !== CONTEXT_NORM)
    throw new UsageError(
      `the model is an RNN: --method ${method} needs a Transformer (${RNN_NOT_APPLICABLE[method as ContributionMethod]}); its method is context-norm`,
    )
  const view = contextNormView(r, { units: o.units })
  return contextNormFigure(view, { modelId: model, source: o.src, text: view.tgt.join(' ') })
}
