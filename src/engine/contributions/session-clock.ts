import type * as ort from 'onnxruntime-node'

/**
 * onnxruntime's share of a contribution pass (the answer's `seconds.run`): every session run made
 * through `run` is timed, and `seconds` is their sum so far.
 */
export function sessionClock(): {
  run: (s: ort.InferenceSession, feeds: Record<string, ort.Tensor>) => Promise<ort.InferenceSession.OnnxValueMapType>
  seconds: () => number
} {
  let seconds = 0
  return {
    async run(s, feeds) {
      const t0 = performance.now()
      const r = await s.run(feeds)
      seconds += (performance.now() - t0) / 1000
      return r
    },
    seconds: () => seconds,
  }
}
