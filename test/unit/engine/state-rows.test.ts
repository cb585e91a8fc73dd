import * as ort from '../../../src/engine/onnxruntime'
import { describe, expect, it } from 'vitest'
import { attachRows, rowsBehind } from '../../../src/engine/state-rows'
import { gatherRows, tileRows } from '../../../src/engine/steps'

const rows = (n: number) =>
  new ort.Tensor(
    'float32',
    Float32Array.from({ length: n }, (_, i) => i),
    [n, 1],
  )

describe('state rows that stand for a cache kept beside them', () => {
  it('keep the cache through beam back-pointers and tiling, and pick the rows asked for', () => {
    const cache = { name: 'kv' }
    const state = attachRows(rows(3), cache)
    const picked = gatherRows(state, [2, 2, 0])
    expect(Array.from(picked.data as Float32Array)).toEqual([2, 2, 0])
    expect(rowsBehind(picked)).toBe(cache)
    const tiled = tileRows(attachRows(rows(1), cache), 4)
    expect(tiled.dims).toEqual([4, 1])
    expect(rowsBehind(tiled)).toBe(cache)
  })

  it('attach nothing to a state that had nothing behind it', () => {
    expect(rowsBehind(gatherRows(rows(2), [1, 0]))).toBeUndefined()
  })
})
