import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import {
  buildContributionHeatmapOption,
  buildResidualShareOption,
  buildSourceShareOption,
  contributionFigure,
  contributionView,
  fromPrefix,
  residualShares,
} from '../../../../src/shared/charts/contributions'
import { CONTRIBUTION_METHODS, methodResult, type Contributions } from '../../../../src/shared/contributions'
import { ROOT } from '../../../helpers'

/**
 * The Contributions tab's builders on real numbers: the independent PyTorch reference's output for
 * the first en→fr test sentence (test/fixtures/contributions, training/contributions_reference.py).
 */
interface Case {
  src_tokens: string[]
  tgt_tokens: string[]
  encoder: { alti: number[][][] }
  decoder: { self_alti: number[][][]; cross_alti: number[][][]; cross_norms: number[][][][]; cross_norm_total: number[][][] }
  alti_plus: Contributions['altiPlus']
  rollout: Contributions['rollout']
  norm_source_share: number[]
}
const FIXTURE = JSON.parse(gunzipSync(readFileSync(join(ROOT, 'test/fixtures/contributions/en-fr-transformer.json.gz'))).toString('utf8')) as {
  heads: number
  cases: Case[]
}

function fromReference(c: Case): Contributions & { raw: number[][] } {
  const T = c.tgt_tokens.length
  const S = c.src_tokens.length
  // The raw weights are not in the reference: a matrix of distinct numbers to follow through.
  const raw = Array.from({ length: T }, (_, t) => Array.from({ length: S }, (_, s) => (t * S + s) / (T * S)))
  return {
    srcTokens: c.src_tokens,
    tgtTokens: c.tgt_tokens,
    prefixTokens: ['<s>', ...c.tgt_tokens.slice(0, -1)],
    layers: { encoder: c.encoder.alti.length, decoder: c.decoder.cross_alti.length, heads: FIXTURE.heads },
    encoderAlti: c.encoder.alti,
    selfAlti: c.decoder.self_alti,
    crossAlti: c.decoder.cross_alti,
    crossNorms: c.decoder.cross_norms,
    crossNormTotal: c.decoder.cross_norm_total,
    normSourceShare: c.norm_source_share,
    altiPlus: c.alti_plus,
    rollout: c.rollout,
    raw,
  }
}

const ref = FIXTURE.cases[0]
const c = fromReference(ref)
const heatValues = (o: ReturnType<typeof buildContributionHeatmapOption>) => {
  const s = (o.series as { type: string; data: { value: number[] }[] }[]).find((x) => x.type === 'heatmap')!
  const T = Math.max(...s.data.map((d) => d.value[1])) + 1
  const S = Math.max(...s.data.map((d) => d.value[0])) + 1
  const m = Array.from({ length: T }, () => new Array<number>(S).fill(NaN))
  for (const d of s.data) m[d.value[1]][d.value[0]] = d.value[3]
  return m
}

describe('contributionView', () => {
  it.each(CONTRIBUTION_METHODS)('%s in pieces, usual step: the reference matrix and share, row for row', (method) => {
    const v = contributionView(c, method, { units: 'pieces', step: 'usual' })
    const r = methodResult(c, method)
    expect(v.tgt).toEqual(ref.tgt_tokens)
    expect(v.src).toEqual(ref.src_tokens)
    expect(v.matrix).toEqual(r.matrix)
    expect(v.sourceShare).toEqual(r.sourceShare)
    expect(v.raw).toEqual(c.raw)
  })

  it('ALTI+ source share is the reference sourceShare; norm the norm share', () => {
    expect(contributionView(c, 'alti+', { units: 'pieces', step: 'usual' }).sourceShare).toEqual(ref.alti_plus.sourceShare)
    expect(contributionView(c, 'norm', { units: 'pieces', step: 'usual' }).sourceShare).toEqual(ref.norm_source_share)
  })

  it('shifted: output piece t is read at row t + 1, and </s> (never an input) has no row', () => {
    const v = contributionView(c, 'alti+', { units: 'pieces', step: 'shifted' })
    expect(v.tgt).toEqual(ref.tgt_tokens.slice(0, -1))
    expect(v.matrix).toEqual(ref.alti_plus.source.slice(1))
    expect(v.sourceShare).toEqual(ref.alti_plus.sourceShare.slice(1))
    expect(v.raw).toEqual(c.raw.slice(1))
  })

  it('words: a source word sums its pieces, an output word averages its pieces (rows keep their sums)', () => {
    // A sentence with pieces: glue the first two source pieces and the first two output pieces.
    const glued = { ...c, srcTokens: [c.srcTokens[0] + '@@', ...c.srcTokens.slice(1)], tgtTokens: [c.tgtTokens[0] + '@@', ...c.tgtTokens.slice(1)] }
    const v = contributionView(glued, 'alti+', { units: 'words', step: 'usual' })
    const m = ref.alti_plus.source
    expect(v.src).toHaveLength(ref.src_tokens.length - 1)
    expect(v.tgt).toHaveLength(ref.tgt_tokens.length - 1)
    expect(v.src[0]).toBe(ref.src_tokens[0] + ref.src_tokens[1])
    const expected00 = (m[0][0] + m[0][1] + m[1][0] + m[1][1]) / 2
    expect(v.matrix[0][0]).toBeCloseTo(expected00, 12)
    expect(v.sourceShare[0]).toBeCloseTo((ref.alti_plus.sourceShare[0] + ref.alti_plus.sourceShare[1]) / 2, 12)
    v.matrix.forEach((row, w) => expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(v.sourceShare[w], 5))
  })
})

describe('source share bars', () => {
  const v = contributionView(c, 'alti+', { units: 'pieces', step: 'usual' })
  const names = { axis: 'source share', threshold: 'threshold' }
  it('one bar per output piece, its value the source share; the ones under the threshold in another colour', () => {
    const threshold = 0.5
    const o = buildSourceShareOption({ labels: v.tgt, sourceShare: v.sourceShare, threshold, names })
    const bars = (o.series as { data: { value: number; itemStyle: { color: string } }[]; markLine: { data: { yAxis: number }[] } }[])[0]
    expect(bars.data.map((d) => d.value)).toEqual(ref.alti_plus.sourceShare)
    const low = fromPrefix(ref.alti_plus.sourceShare, threshold)
    expect(low.some(Boolean) && low.some((x) => !x)).toBe(true) // this sentence has both kinds at 0.5
    const colours = bars.data.map((d) => d.itemStyle.color)
    low.forEach((l, i) => expect(colours[i]).toBe(l ? colours[low.indexOf(true)] : colours[low.indexOf(false)]))
    expect(colours[low.indexOf(true)]).not.toBe(colours[low.indexOf(false)])
    expect(bars.markLine.data[0].yAxis).toBe(threshold)
    expect((o.xAxis as { data: string[] }).data).toEqual(ref.tgt_tokens)
  })
  it('fromPrefix marks exactly the shares under the threshold', () => {
    expect(fromPrefix([0.1, 0.4, 0.39999, 0.9], 0.4)).toEqual([true, false, true, false])
  })
})

describe('heatmaps side by side', () => {
  it("the method's map holds the method's values, the raw map the raw weights", () => {
    for (const method of CONTRIBUTION_METHODS) {
      const v = contributionView(c, method, { units: 'pieces', step: 'usual' })
      expect(heatValues(buildContributionHeatmapOption(v, 'method', { title: method }))).toEqual(v.matrix)
      expect(heatValues(buildContributionHeatmapOption(v, 'raw', { title: 'raw' }))).toEqual(c.raw)
    }
  })
})

describe('residual share per layer', () => {
  it("is ALTI's last column, and the attention's the source columns, mean over the output rows", () => {
    const layers = residualShares(ref.decoder.cross_alti)
    expect(layers).toHaveLength(ref.decoder.cross_alti.length)
    ref.decoder.cross_alti.forEach((l, i) => {
      const S = l[0].length - 1
      const res = l.reduce((a, row) => a + row[S], 0) / l.length
      expect(layers[i].residual).toBeCloseTo(res, 12)
      // ALTI's rows are a distribution over the source and the residual.
      expect(layers[i].residual + layers[i].attention).toBeCloseTo(1, 4)
      expect(layers[i].residual).toBeGreaterThan(0.5) // the README: the residual brings most of each block's output
    })
    const one = residualShares(ref.decoder.cross_alti, [2])
    expect(one[0].residual).toBe(ref.decoder.cross_alti[0][2][ref.src_tokens.length])
    const o = buildResidualShareOption({ layers, names: { residual: 'residual', attention: 'attention', layer: (l) => `layer ${l}` } })
    const series = o.series as { id: string; data: number[] }[]
    expect(series.find((s) => s.id === 'residual')!.data).toEqual(layers.map((l) => l.residual))
    expect(series.find((s) => s.id === 'attention')!.data).toEqual(layers.map((l) => l.attention))
  })
})

describe('the figure', () => {
  it("passes the figure schema and renders the method's matrix as an SVG with its words", async () => {
    const { parseFigure, DEFAULT_FIGURE } = await import('../../../../src/shared/figure')
    const { renderFigure } = await import('../../../../src/host/export/figure')
    const v = contributionView(c, 'alti+', { units: 'pieces', step: 'usual' })
    const { data, spec } = parseFigure(contributionFigure(v, { modelId: 'bundled:en-fr-transformer.onnx', source: 'x', text: 'y' }), {
      ...DEFAULT_FIGURE,
      format: 'svg',
    })
    expect(data.view).toBe('contributions')
    const svg = (await renderFigure(data, spec)).toString('utf8')
    expect(svg).toContain('<svg')
    for (const w of ['homme', 'orange']) expect(svg).toContain(w)
    // A figure whose shares do not match its rows is refused.
    expect(() => parseFigure({ ...contributionFigure(v, { modelId: '', source: '', text: '' }), sourceShare: [0.5] }, DEFAULT_FIGURE)).toThrow(/share/)
  }, 60_000)
})
