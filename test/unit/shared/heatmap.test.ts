import { describe, expect, it } from 'vitest'
import { colorAt, COLORMAPS, textColorOn } from '../../../src/shared/charts/colormaps'
import { buildHeatmapOption, displayValue, windowCells } from '../../../src/shared/charts/heatmap'
import { pieceGroups } from '../../../src/shared/attention/pieces'

type Opt = {
  series: { type: string; data: { value: number[] }[]; label: { show: boolean } }[]
  xAxis: { axisLabel: { interval: number | string } }
  visualMap: { inRange: { color: string[] }; text: string[] }
}

describe('heatmap option', () => {
  const input = {
    srcTokens: ['a', 'dog', '</s>'],
    tgtTokens: ['un', 'chien', '</s>'],
    attention: [
      [0.9, 0.1, 0],
      [0.2, 0.7, 0.1],
      [0, 0.25, 0.75],
    ],
  }

  it('greys language tags and forced first tokens (issue 39 #4): M2M100’s __en__/__fr__, NLLB’s eng_Latn, BART’s <s>; not the words', () => {
    type Labels = { xAxis: { axisLabel: { formatter: (v: string) => string } }; yAxis: { axisLabel: { formatter: (v: string) => string } } }
    const o = buildHeatmapOption({
      srcTokens: ['__en__', '▁a', '▁dog', '</s>'],
      tgtTokens: ['__fr__', '▁un', '▁chien', '</s>'],
      attention: [
        [0.5, 0.2, 0.2, 0.1],
        [0.1, 0.7, 0.1, 0.1],
        [0.1, 0.1, 0.7, 0.1],
        [0.1, 0.1, 0.1, 0.7],
      ],
    }) as unknown as Labels
    expect(['0', '1', '3'].map(o.xAxis.axisLabel.formatter)).toEqual(['{tag|__en__}', '▁a', '</s>'])
    expect(['0', '1'].map(o.yAxis.axisLabel.formatter)).toEqual(['{tag|__fr__}', '▁un'])
    const n = buildHeatmapOption({
      srcTokens: ['eng_Latn', '▁a'],
      tgtTokens: ['<s>', 'un'],
      attention: [
        [0.5, 0.5],
        [0.5, 0.5],
      ],
    }) as unknown as Labels
    expect([n.xAxis.axisLabel.formatter('0'), n.yAxis.axisLabel.formatter('0'), n.yAxis.axisLabel.formatter('1')]).toEqual([
      '{tag|eng_Latn}',
      '{tag|<s>}',
      'un',
    ])
    // A bundled model's tokens have none.
    expect((buildHeatmapOption(input) as unknown as Labels).xAxis.axisLabel.formatter('0')).toBe('a')
  })

  it('one cell per (output, source) pair carrying the raw weight', () => {
    const o = buildHeatmapOption(input) as unknown as Opt
    const cells = o.series.find((s) => s.type === 'heatmap')!.data
    expect(cells).toHaveLength(9)
    expect(cells[1].value).toEqual([1, 0, 0.1, 0.1])
  })

  it('per-row scaling divides by the row maximum; log scale maps 10⁻⁴..1 onto 0..1', () => {
    expect(displayValue(0.35, 0.7, { norm: 'row' })).toBeCloseTo(0.5)
    expect(displayValue(0.35, 0.7, { norm: 'fixed' })).toBeCloseTo(0.35)
    expect(displayValue(1, 1, { scale: 'log' })).toBeCloseTo(1)
    expect(displayValue(0.01, 1, { scale: 'log' })).toBeCloseTo(0.5)
    expect(displayValue(0, 1, { scale: 'log' })).toBe(0)
    const o = buildHeatmapOption({ ...input, scale: 'log' }) as unknown as Opt
    expect(o.visualMap.text).toEqual(['1', '10⁻⁴'])
  })

  it('uses the chosen colour map and shows value labels only when cells fit', () => {
    const grey = buildHeatmapOption({ ...input, colormap: 'greys' }) as unknown as Opt
    expect(grey.visualMap.inRange.color).toEqual([...COLORMAPS.greys])
    expect((buildHeatmapOption(input) as unknown as Opt).series[0].label.show).toBe(true)
    const big = Array.from({ length: 300 }, (_, i) => `w${i}`)
    const large = buildHeatmapOption({ srcTokens: big, tgtTokens: big, attention: big.map(() => big.map(() => 1 / 300)) }) as unknown as Opt
    expect(large.series[0].label.show).toBe(false)
    expect(large.series[0].data).toHaveLength(90_000)
    expect(large.xAxis.axisLabel.interval).toBe('auto')
  })

  it('colour lookup matches the map ends and picks readable text', () => {
    expect(colorAt('viridis', 0)).toEqual([0x44, 0x01, 0x54])
    expect(colorAt('viridis', 1)).toEqual([0xfd, 0xe7, 0x25])
    expect(textColorOn(colorAt('viridis', 0))).toBe('#ffffff')
    expect(textColorOn(colorAt('viridis', 1))).toBe('#111827')
  })

  it('local windows cover the whole positions within D of p_t, clipped to the sentence', () => {
    expect(windowCells([-1.3, 6.7], 10)).toEqual([0, 6])
    expect(windowCells([5.2, 13.2], 10)).toEqual([6, 9])
    const o = buildHeatmapOption({
      ...input,
      positions: [0.4, 1.2, 1.9],
      windows: [
        [-3.6, 4.4],
        [-2.8, 5.2],
        [-2.1, 5.9],
      ],
    }) as unknown as Opt
    expect(o.series.find((s) => s.type === 'custom')!.data).toHaveLength(3)
  })
})

describe('sub-word pieces', () => {
  it('groups subword-nmt, SentencePiece and WordPiece pieces of one word', () => {
    expect(pieceGroups(['the', 'unbe@@', 'liev@@', 'able', 'cat'])).toEqual([[1, 3]])
    expect(pieceGroups(['▁the', '▁unbe', 'liev', 'able', '▁cat', '</s>'])).toEqual([[1, 3]])
    expect(pieceGroups(['the', 'un', '##believ', '##able'])).toEqual([[1, 3]])
    expect(pieceGroups(['a', 'dog', '</s>'])).toEqual([])
  })
})
