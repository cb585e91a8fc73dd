import type { ForecastResult } from '../shared/api'
import { KINDS } from '../shared/attention-kinds'
import type { ForecastWhatIfRequest, ForecastWhatIfResult } from '../shared/teaching'
import { ContractError } from './contract'
import { forecastAt, type AttentionOverride, type SeriesInput } from './forecast'
import type { LoadedModel } from './model'

/**
 * "What if the forecaster's attention were …": uniform over the history, all on one lag, or
 * hand-set weights at chosen lags, at one forecast step or all of them. Lags count back from the
 * step being forecast (lag 48 is the same time the day before it), so the column a lag names moves
 * with the step: for step t (0-based) over H history steps, lag L is column H + t − L.
 */
export function forecastOverride(req: Pick<ForecastWhatIfRequest, 'steps' | 'mode' | 'lag' | 'lags'>): AttentionOverride {
  const chosen = req.steps === 'all' ? null : new Set(req.steps)
  const lags = req.mode === 'onehot' ? [{ lag: req.lag ?? NaN, weight: 1 }] : (req.lags ?? [])
  if (req.mode !== 'uniform') {
    if (lags.length === 0) throw new Error('Give at least one lag to put the attention on.')
    for (const l of lags) {
      if (!(Number.isInteger(l.lag) && l.lag >= 1)) throw new Error(`A lag must be a whole number of steps, 1 or more (not ${l.lag}).`)
      if (!(Number.isFinite(l.weight) && l.weight >= 0)) throw new Error('Lag weights must be numbers, 0 or more.')
    }
  }
  return (t, H) => {
    if (chosen && !chosen.has(t)) return null
    const w = new Float32Array(H)
    if (req.mode === 'uniform') return w.fill(1 / H)
    let sum = 0
    for (const { lag, weight } of lags) {
      const j = H + t - lag
      if (j >= 0 && j < H) {
        w[j] += weight
        sum += weight
      }
    }
    if (sum <= 0) throw new Error(`At forecast step +${t + 1}, none of the lags falls inside the ${H} history steps with a weight above 0.`)
    for (let j = 0; j < H; j++) w[j] /= sum
    return w
  }
}

/** The forecast with the model's own attention and with the override, from one origin. */
export async function forecastWhatIf(
  model: LoadedModel,
  s: SeriesInput,
  origin: number,
  req: Pick<ForecastWhatIfRequest, 'steps' | 'mode' | 'lag' | 'lags'>,
): Promise<ForecastWhatIfResult<ForecastResult>> {
  if (!KINDS[model.spec.attention].attends) throw new ContractError(`${model.spec.name} has no attention to override.`)
  if (!model.stepInputs.has('attn_override') || !model.stepInputs.has('override_on')) {
    throw new ContractError(`${model.spec.name}'s step has no attn_override/override_on inputs, so its attention cannot be overridden.`)
  }
  const override = forecastOverride(req)
  const original = await forecastAt(model, s, origin)
  const modified = await forecastAt(model, s, origin, override)
  return { original, modified }
}
