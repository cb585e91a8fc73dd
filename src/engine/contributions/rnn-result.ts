import { CancelledError } from '../../shared/errors'
import { RNN_NOT_APPLICABLE } from '../../shared/contributions'
import type { ContextNormResult, ContributionsRequest } from '../../shared/contributions'
import { forcedIds } from './pieces'
import type { RnnContextModel } from './rnn'

/** `contributions:run` for an RNN with attention: the context-norm analogue of one forward pass, its weights as the raw map. */
export async function contextNormResult(
  cm: RnnContextModel,
  req: Omit<ContributionsRequest, 'modelId'>,
  t0: number,
  signal?: AbortSignal,
): Promise<Omit<ContextNormResult, 'modelId'>> {
  const src = cm.encodeSource(req.text)
  const target = forcedIds(cm.spec, req.pieces)
  const pass = await cm.run(src.ids, target)
  if (signal?.aborted) throw new CancelledError('The contributions were cancelled.')
  const c = cm.contextNorm(pass)
  return {
    ...c,
    forced: target !== null,
    raw: c.weights,
    notApplicable: { ...RNN_NOT_APPLICABLE },
    seconds: { run: pass.runSeconds, total: (performance.now() - t0) / 1000 },
  }
}
