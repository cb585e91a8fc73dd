import { describe, expect, it } from 'vitest'
import { enlargeText, isTyping, MIN_LABEL_PX, smallestFont } from '../../../src/renderer/src/lib/presentation.svelte'
import { layoutBeam, pathTo } from '../../../src/shared/charts/beam-layout'
import { referenceSteps } from '../../../src/renderer/src/lib/reference'
import { defaultSides, parseSide, sideChoices, sideKey } from '../../../src/renderer/src/state/sides'
import { attentionDifference } from '../../../src/shared/charts/difference'
import type { BeamTree } from '../../../src/shared/teaching'
import { summary, translation } from './fake-api'

describe('presentation mode: chart text', () => {
  const formatter = (v: string) => v
  const option = {
    xAxis: { axisLabel: { fontSize: 13, formatter, rich: { sel: { fontSize: 13 } } } },
    yAxis: [{ name: 'y', axisLabel: {} }],
    legend: { textStyle: { fontSize: 11 } },
    series: [{ type: 'heatmap', data: [{ value: 1, label: { fontSize: 9 } }], label: { fontSize: 9 } }],
  }

  it('grows every font size to at least 20 px, keeps formatters and leaves series data alone', () => {
    const big = enlargeText(option)
    expect(big.xAxis.axisLabel.fontSize).toBeGreaterThanOrEqual(MIN_LABEL_PX)
    expect(big.xAxis.axisLabel.rich.sel.fontSize).toBe(big.xAxis.axisLabel.fontSize)
    expect(big.legend.textStyle.fontSize).toBeGreaterThanOrEqual(MIN_LABEL_PX)
    expect(big.series[0].label.fontSize).toBeGreaterThanOrEqual(MIN_LABEL_PX)
    expect(big.xAxis.axisLabel.formatter).toBe(formatter)
    expect(big.series[0].data).toBe(option.series[0].data)
    // Labels with no size of their own fall back to the global text style.
    expect((big as unknown as { textStyle: { fontSize: number } }).textStyle.fontSize).toBeGreaterThanOrEqual(MIN_LABEL_PX)
    expect(smallestFont(big)).toBeGreaterThanOrEqual(MIN_LABEL_PX)
    expect(smallestFont(option)).toBe(9)
    // The original is untouched.
    expect(option.xAxis.axisLabel.fontSize).toBe(13)
  })

  it('grows the room left for the text and the markers with it, and draws every category label', () => {
    const plot = {
      grid: { left: 40, top: 16, bottom: 28, width: 100, containLabel: false },
      xAxis: [
        { type: 'category', data: ['a', 'b'] },
        { type: 'value', axisLabel: { interval: 2 } },
      ],
      yAxis: { type: 'value', nameGap: 10 },
      series: [{ type: 'line', symbolSize: 6, lineStyle: { width: 1.5 }, data: [1, 2] }],
    }
    const big = enlargeText(plot) as unknown as typeof plot & { xAxis: { axisLabel: { interval: number; fontSize: number } }[] }
    expect(big.grid).toEqual({ left: 64, top: 25.6, bottom: 44.8, width: 160, containLabel: false })
    expect(big.yAxis.nameGap).toBe(16)
    expect(big.series[0].symbolSize).toBe(9.6)
    expect(big.series[0].lineStyle.width).toBe(2.4)
    // An axis with no label style gets one at the floor, with no interval skipping; an interval asked for stays.
    expect(big.xAxis[0].axisLabel).toMatchObject({ fontSize: MIN_LABEL_PX, interval: 0 })
    expect(big.xAxis[1].axisLabel.interval).toBe(2)
  })

  it('a key typed into a text field is not a shortcut', () => {
    expect(isTyping({ tagName: 'TEXTAREA' } as unknown as EventTarget)).toBe(true)
    expect(isTyping({ tagName: 'INPUT' } as unknown as EventTarget)).toBe(true)
    expect(isTyping({ tagName: 'DIV', isContentEditable: false } as unknown as EventTarget)).toBe(false)
    expect(isTyping(null)).toBe(false)
  })
})

describe('reference steps', () => {
  it('marks the steps where the model’s first choice is not the reference’s token', () => {
    const t = { ...translation('m', 'a b', 3), tgtTokens: ['un', 'chat', '</s>'], tokenLogProbs: [Math.log(0.9), Math.log(0.2), Math.log(0.8)] }
    t.alternatives = [
      [{ token: 'un', p: 0.9 }],
      [
        { token: 'chien', p: 0.7 },
        { token: 'chat', p: 0.2 },
      ],
      [{ token: '</s>', p: 0.8 }],
    ]
    t.tgtUnknown = [false, true, false]
    const steps = referenceSteps(t)
    expect(steps.map((s) => s.modelChoice?.token ?? null)).toEqual([null, 'chien', null])
    expect(steps[1].p).toBeCloseTo(0.2, 9)
    expect(steps.map((s) => s.unknown)).toEqual([false, true, false])
  })
})

describe('side by side', () => {
  const models = [
    summary('a', { attention: 'bahdanau' }),
    summary('b', { attention: 'none' }),
    summary('c', { attention: 'bahdanau' }),
    summary('d', { attention: 'local-p' }),
    summary('z', { srcLang: 'zh', tgtLang: 'en' }),
  ]

  it('offers each model of the pair greedy and with the beam, and the reference when there is one', () => {
    const keys = sideChoices(models, models[0], 1, true).map(sideKey)
    expect(keys.slice(0, 3)).toEqual(['m:1:a', 'm:5:a', 'r:a'])
    expect(keys).toHaveLength(12)
    expect(keys.some((k) => k.endsWith(':z'))).toBe(false)
    expect(sideChoices(models, models[0], 8, false).map(sideKey).slice(0, 2)).toEqual(['m:1:a', 'm:8:a'])
  })

  it('starts with the open model against another kind of attention, else the reference, else the beam', () => {
    expect(defaultSides(models, models[0], 1, false).map(sideKey)).toEqual(['m:1:a', 'm:1:d'])
    const alone = [models[0], models[1]]
    expect(defaultSides(alone, models[0], 1, true).map(sideKey)).toEqual(['m:1:a', 'r:a'])
    expect(defaultSides(alone, models[0], 3, false).map(sideKey)).toEqual(['m:1:a', 'm:3:a'])
  })

  it('keys round-trip, ids with colons included', () => {
    for (const s of [
      { kind: 'model', modelId: 'file:abc:1', beam: 4 },
      { kind: 'reference', modelId: 'bundled:x.onnx' },
    ] as const)
      expect(parseSide(sideKey(s))).toEqual(s)
    expect(parseSide('nonsense')).toBeNull()
  })

  it('the difference map is A − B over the steps both have, labelled where the outputs differ', () => {
    const d = attentionDifference({
      srcTokens: ['x', 'y'],
      aTokens: ['le', 'chat', '</s>'],
      bTokens: ['le', 'chien'],
      a: [
        [0.9, 0.1],
        [0.2, 0.8],
        [0.5, 0.5],
      ],
      b: [
        [0.6, 0.4],
        [0.3, 0.7],
      ],
    })
    expect(d.rows).toEqual(['le', 'chat / chien'])
    expect(d.d[0][0]).toBeCloseTo(0.3, 9)
    expect(d.d[1][1]).toBeCloseTo(0.1, 9)
    expect(d.range).toBe(0.3)
  })
})

describe('beam tree layout', () => {
  const node = (parent: number, step: number, token: string, score: number, status: 'chosen' | 'kept' | 'finished' | 'pruned') => ({
    parent,
    step,
    token,
    logProb: 0,
    score,
    attention: [],
    status,
  })
  const tree: BeamTree = {
    width: 2,
    nodes: [
      node(-1, 0, 'a', -0.5, 'chosen'),
      node(-1, 0, 'b', -1, 'kept'),
      node(-1, 0, 'c', -3, 'pruned'),
      node(0, 1, '</s>', -0.7, 'chosen'),
      node(1, 1, 'd', -1.2, 'pruned'),
    ],
  }
  const measure = (t: string) => t.length * 8

  it('puts each step in its own column, best first, and the chosen path in order', () => {
    const l = layoutBeam(tree, { pruned: true, row: 20, measure })
    expect(l.chosen).toEqual([0, 3])
    const at = (i: number) => l.nodes.find((n) => n.index === i)!
    expect(at(0).x).toBe(at(1).x)
    expect(at(3).x).toBeGreaterThan(at(0).x)
    expect(at(0).y).toBeLessThan(at(1).y)
    expect(at(1).y).toBeLessThan(at(2).y)
    expect(l.edges.map((e) => [e.from.index, e.to.index])).toEqual([
      [-1, 0],
      [-1, 1],
      [-1, 2],
      [0, 3],
      [1, 4],
    ])
    expect(l.height).toBe(3 * 20)
  })

  /** A tree laid out on rows of 20 (pruned shown), and the row each node is on. */
  const rowsOf = (t: BeamTree) => {
    const l = layoutBeam(t, { pruned: true, row: 20, measure })
    return { l, row: (i: number) => (l.nodes.find((n) => n.index === i)!.y - 10) / 20 }
  }

  it('packs rows: a branch that ends early sits on the first row free in its columns, not below every longer branch', () => {
    const packed: BeamTree = {
      width: 2,
      nodes: [
        node(-1, 0, 'a', -0.5, 'chosen'),
        node(-1, 0, 'b', -2, 'kept'),
        node(0, 1, 'c', -0.7, 'chosen'),
        node(0, 1, 'd', -1, 'kept'),
        node(3, 2, 'e', -1.1, 'kept'),
        node(3, 2, 'f', -1.3, 'kept'),
        node(2, 2, 'g', -0.8, 'kept'),
      ],
    }
    const { l, row } = rowsOf(packed)
    // a, c, g on the top row; d level with e, f under e; b (step 0 only) beside d, not under f.
    expect([0, 2, 6].map(row)).toEqual([0, 0, 0])
    expect([3, 4, 5].map(row)).toEqual([1, 1, 2])
    expect(row(1)).toBe(1)
    expect(l.height).toBe(3 * 20)
  })

  it("packs without crossings: a branch goes below the rows where another parent's curves run in its gap", () => {
    // c (step 1) continues to g (row 0) and h, which its own continuation pushes to row 2; d's
    // continuation e would find free cells on row 1, but its curve would run between c's two.
    const crossing: BeamTree = {
      width: 3,
      nodes: [
        node(-1, 0, 'a', -0.5, 'chosen'),
        node(0, 1, 'c', -0.6, 'chosen'),
        node(0, 1, 'd', -2, 'kept'),
        node(1, 2, 'g', -0.7, 'chosen'),
        node(1, 2, 'h', -0.9, 'kept'),
        node(3, 3, 'g2', -0.8, 'chosen'),
        node(3, 3, 'g3', -1, 'kept'),
        node(4, 3, 'h2', -1.1, 'kept'),
        node(2, 2, 'e', -2.1, 'kept'),
      ],
    }
    const { row } = rowsOf(crossing)
    expect([0, 1, 3, 5, 6, 4, 7].map(row)).toEqual([0, 0, 0, 0, 1, 2, 2])
    expect([row(2), row(8)]).toEqual([3, 3])
  })

  it('hides pruned hypotheses on request', () => {
    const l = layoutBeam(tree, { pruned: false, row: 20, measure })
    expect(l.nodes.map((n) => n.index)).toEqual([-1, 0, 1, 3])
  })

  it('a node’s hypothesis runs from the first step to it', () => {
    expect(pathTo(tree, 3)).toEqual([0, 3])
    expect(pathTo(tree, 4)).toEqual([1, 4])
  })
})

describe('local attention facts', async () => {
  const { localFacts, ON_DIAGONAL } = await import('../../../src/renderer/src/lib/local-notes')

  it('local-m at a fixed pace that runs ahead of the corner-to-corner diagonal: above it, capped at the end', () => {
    // S = 6 source positions (0…5), T = 6 steps, pace 1.5: 0, 1.5, 3, 4.5, 5, 5 (capped at 5).
    const f = localFacts('monotonic', [0, 1.5, 3, 4.5, 5, 5], 6, 2)
    expect(f.pace).toBeCloseTo(1.5, 9)
    expect(f.offset).toBeGreaterThan(0)
    expect(f.distance).toBeGreaterThan(ON_DIAGONAL)
    expect(f.capped).toBe(2)
    expect(f.odd).toEqual([])
  })

  it('p_t on the diagonal is said to sit on it', () => {
    const f = localFacts('monotonic', [0, 1, 2, 3, 4, 5], 6, 2)
    expect(f.distance).toBeLessThan(ON_DIAGONAL)
    expect(f.capped).toBe(0)
  })

  it('local-p: a first step that looks at the end of the sentence and a last step far off are pointed out', () => {
    const f = localFacts('predictive', [9, 1, 2, 3, 4, 0.5], 10, 2)
    expect(f.odd.map((o) => [o.step, o.where])).toEqual([
      [0, 'first'],
      [5, 'last'],
    ])
    expect(localFacts('predictive', [0.5, 1.8, 3.6, 5.4, 7.2, 9], 10, 2).odd).toEqual([])
  })
})
