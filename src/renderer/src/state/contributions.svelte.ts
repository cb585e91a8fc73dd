import { CONTRIBUTIONS_NOT_OFFERED, type ContributionMethod, type ContributionsResult } from '../../../shared/contributions'
import { DEFAULT_SHARE_THRESHOLD, type ReadStep } from '../../../shared/charts/contributions'
import { api } from '../lib/api'
import { Latest } from '../lib/latest'

/**
 * The Contributions tab's state (issue 41): the engine's numbers for the sentence on show, and the
 * reader's choices (method, the step a row is read at, the source-share threshold). One request
 * at a time: a newer sentence supersedes the one in flight (the host stops it too).
 */
export class ContributionsState {
  result = $state.raw<ContributionsResult | null>(null)
  /** The engine's error in one sentence; `notOffered`: the model is one the methods cannot read (it says why). */
  error = $state<{ message: string; notOffered: boolean } | null>(null)
  busy = $state(false)
  method = $state<ContributionMethod>('alti+')
  step = $state<ReadStep>('usual')
  threshold = $state(DEFAULT_SHARE_THRESHOLD)
  private latest = new Latest()

  /** The contributions of `text` with `pieces` forced through (the output on show). */
  async load(modelId: string, text: string, pieces: string[]): Promise<void> {
    const key = JSON.stringify([modelId, text, pieces])
    this.busy = true
    // The host stops this client's earlier request when the next one arrives.
    const o = await this.latest.run(() => api.contributions({ modelId, text, pieces }), key)
    if (!o.current) return
    this.busy = false
    if ('value' in o) {
      this.result = o.value
      this.error = null
    } else if (o.error.name !== 'CancelledError') {
      this.result = null
      this.error = { message: o.error.message, notOffered: (o.error as { code?: string }).code === CONTRIBUTIONS_NOT_OFFERED }
    }
  }
}
