import { FORECAST_LABELS_EN } from '../shared/charts/forecast'
import { seasonalNaiveLag } from '../shared/series'

/**
 * The seasonal-naive baseline as the CLI names it, from the model's own lag: "same time last
 * week (lag 336)" for half-hourly data, "same time yesterday (lag 96)" for quarter-hourly.
 */
export function naiveBaselineLabel(seasonalLags: number[], periodMinutes: number): string | null {
  const lag = seasonalNaiveLag(seasonalLags)
  return lag > 0 ? `${FORECAST_LABELS_EN.naive(lag * periodMinutes)} (lag ${lag})` : null
}
