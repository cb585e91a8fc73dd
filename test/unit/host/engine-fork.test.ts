import { describe, expect, it } from 'vitest'
import { tuningFlags } from '../../../src/host/engine-fork'

describe("the engine takes the host's V8 tuning", () => {
  it('passes on the JIT budget and the heap sizes, nothing else (no inspector, no loader, no flag without a number)', () => {
    const host = [
      '--inspect=9229',
      '--interrupt-budget=1081344',
      '--import',
      'tsx',
      '--max-old-space-size=8192',
      '--max-semi-space-size=64',
      '--max-old-space-size=',
    ]
    expect(tuningFlags(host)).toEqual(['--interrupt-budget=1081344', '--max-old-space-size=8192', '--max-semi-space-size=64'])
    expect(tuningFlags([])).toEqual([])
  })
})
