import type { GuardOptions, Translation } from '../../../shared/api'
import { api } from '../lib/api'
import { Latest } from '../lib/latest'

/**
 * The With / without tab's data: one sentence through several models. Asked again whenever the
 * sentence or the models change; the answer to the latest question wins, and nothing is on show
 * while no model is chosen or the sentence is empty.
 */
export class ComparisonState {
  /** The engine's answer for the models and sentence last asked about. */
  results = $state.raw<Translation[]>([])
  error = $state<string | null>(null)
  private requests = new Latest()

  async load(modelIds: string[], text: string, guard: GuardOptions = {}): Promise<void> {
    if (modelIds.length === 0 || !text.trim()) {
      this.requests.cancel()
      this.results = []
      return
    }
    // The same question again (an $effect re-running) joins the one in flight.
    const { noRepeatNgram, maxRepeat } = guard
    const o = await this.requests.run(
      () => api.compare({ modelIds, text, noRepeatNgram, maxRepeat }),
      JSON.stringify([modelIds, text, noRepeatNgram, maxRepeat]),
    )
    if (!o.current) return
    if ('error' in o) this.error = o.error.message
    else {
      this.results = o.value
      this.error = null
    }
  }
}
