import { describe, expect, it } from 'vitest'
import { attentionDestinations } from '../../../../src/shared/attention/destinations'

describe('where attention goes', () => {
  const src = ['__en__', '▁a', '▁cat', '</s>']
  const tgt = ['__fr__', '▁un', '▁chat', '</s>']
  const attention = [
    [1, 0, 0, 0], // the forced language tag: no choice of the model's
    [0.1, 0.6, 0.2, 0.1],
    [0.3, 0.1, 0.4, 0.2],
    [0, 0, 0, 0.5], // a local-p row: the Gaussian leaves it short of 1
  ]

  it("counts the source's tag apart from its words and leaves the forced step out", () => {
    const d = attentionDestinations(attention, src, tgt)
    expect(d.forcedSteps).toBe(1)
    expect(d.steps).toBe(3)
    expect(d.hasTags).toBe(true)
    expect(d.words).toBeCloseTo((0.8 + 0.5 + 0) / 3, 12)
    expect(d.end).toBeCloseTo((0.1 + 0.2 + 1) / 3, 12)
    expect(d.tags).toBeCloseTo((0.1 + 0.3 + 0) / 3, 12)
  })

  it('gives a model without tags words and </s> only', () => {
    const d = attentionDestinations(
      attention.map((r) => r.slice(1)),
      src.slice(1),
      tgt.slice(1),
    )
    // The first row, all on the tag before, is empty without it and not counted.
    expect(d).toMatchObject({ hasTags: false, tags: 0, forcedSteps: 0, steps: 3 })
    expect(d.words + d.end).toBeCloseTo(1, 12)
    expect(d.end).toBeCloseTo((0.1 / 0.9 + 0.2 / 0.7 + 1) / 3, 12)
  })

  it("leaves out the first step only: a tag written again is the model's own choice", () => {
    const d = attentionDestinations(attention, src, ['__fr__', '__fr__', '▁chat', '</s>'])
    expect(d.forcedSteps).toBe(1)
    expect(d.steps).toBe(3)
  })

  it('skips a masked row rather than counting it as attention nowhere', () => {
    const d = attentionDestinations(
      [
        [0, 0, 0],
        [0.5, 0.25, 0.25],
      ],
      ['▁a', '▁b', '</s>'],
      ['▁x', '</s>'],
    )
    expect(d.steps).toBe(1)
    expect(d.end).toBeCloseTo(0.25, 12)
  })
})
