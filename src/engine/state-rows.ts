import type * as ort from 'onnxruntime-node'

/**
 * A step state whose rows stand for data kept outside the tensor. A Hugging Face decoder's state
 * is its key/value cache, megabytes a row at opus-mt's size: copying it into one flat tensor and
 * out again every step cost more than the decoder's own work on short steps. So the step part
 * keeps the cache as the session gave it and returns a [B, 1] state of row numbers into it, with
 * the cache attached; row pickers (beam back-pointers, tiling) keep the attachment, and the cache
 * lives exactly as long as some state refers to it.
 */
const BEHIND = Symbol('state rows stand for')

export function attachRows<T>(state: ort.Tensor, behind: T): ort.Tensor {
  Object.defineProperty(state, BEHIND, { value: behind, enumerable: false })
  return state
}

export function rowsBehind<T>(state: ort.Tensor): T | undefined {
  return (state as unknown as Record<symbol, T | undefined>)[BEHIND]
}

/** `picked`, made from `from` by choosing rows, keeps what `from`'s rows stand for. */
export function keepRows(from: ort.Tensor, picked: ort.Tensor): ort.Tensor {
  const behind = rowsBehind(from)
  return behind === undefined || picked === from ? picked : attachRows(picked, behind)
}
