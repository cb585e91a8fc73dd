import type { Alternative, Translation } from '../../../shared/api'

/** One token of a reference forced through the model. */
export interface ReferenceStep {
  index: number
  token: string
  /** P(token) under the model, given the reference so far. */
  p: number
  /** The model's own first choice at this step, when it is not the reference's token. */
  modelChoice: Alternative | null
  unknown: boolean
}

/** Where the model agrees with a forced reference, and where it would have chosen otherwise. */
export function referenceSteps(forced: Translation): ReferenceStep[] {
  return forced.tgtTokens.map((token, index) => {
    const best = forced.alternatives[index]?.[0]
    return {
      index,
      token,
      p: Math.exp(forced.tokenLogProbs[index] ?? -Infinity),
      modelChoice: best && best.token !== token ? best : null,
      unknown: forced.tgtUnknown?.[index] ?? false,
    }
  })
}
