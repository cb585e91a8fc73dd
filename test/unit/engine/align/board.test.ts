import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pairAttentions, wordMatrix } from '../../../../src/engine/align/attention'
import { boardModel, buildBoard, goldSet, scored } from '../../../../src/engine/align/board'
import { extractLinks } from '../../../../src/engine/align/extract'
import { LoadedModel } from '../../../../src/engine/model'
import { buildGoldLinksOption } from '../../../../src/shared/charts/gold-links'
import { ROOT, tiny } from '../../../helpers'

const FIX = join(ROOT, 'test', 'fixtures', 'align')
const text = (f: string) => readFileSync(join(FIX, f), 'utf8')
const names = { pairs: 'x.src-tgt', gold: 'x.gold' }

describe('a gold set as the panel loads it', () => {
  it('reads pairs and 1-based gold, and says when they do not belong together', () => {
    const g = goldSet(text('tiny.src-tgt'), text('tiny.gold'), names)
    expect(g.pairs).toHaveLength(3)
    expect(g.gold[1]).toEqual([
      { i: 0, j: 0, sure: true },
      { i: 1, j: 1, sure: true },
      { i: 2, j: 2, sure: true },
    ])
    expect(() => goldSet(text('tiny.src-tgt'), '1-1\n', names)).toThrow('x.src-tgt has 3 pairs but x.gold has 1 lines; they must match line by line.')
    // A gold counted from 0 reads as a word 0 in a file counted from 1.
    expect(() => goldSet(text('tiny.src-tgt'), text('tiny.hyp'), names)).toThrow(/word 0 in a file counted from 1/)
    expect(() => goldSet(text('tiny.src-tgt'), '1-1\n1-9\n1-1\n', names)).toThrow(/pair 2 has 3 source and 3 target words, but a link 0-8/)
  })
})

describe('the scoreboard', () => {
  let model: LoadedModel
  beforeAll(async () => {
    model = await LoadedModel.open(tiny('transformer'))
  })
  afterAll(async () => {
    await model.release()
  })

  it("gives a Transformer's every head the AER of that head's own links", async () => {
    const { pairs, gold } = goldSet(text('tiny.src-tgt'), text('tiny.gold'), names)
    const row = await boardModel(model, pairs, gold)
    const pa = await pairAttentions(model, pairs)
    expect(row.heads!.aer).toHaveLength(2)
    for (let layer = 0; layer < 2; layer++)
      for (let head = 0; head < 2; head++) {
        const links = pa.map((p) => extractLinks(wordMatrix(p, { reading: { kind: 'head', layer, head } })))
        expect(row.heads!.aer[layer][head]).toBeCloseTo(scored(gold, links).score.aer, 10)
        expect(row.heads!.entropy[layer][head]).toBeGreaterThan(0)
        expect(row.heads!.diagonality[layer][head]).toBeLessThanOrEqual(1)
      }
    expect(row.matrices.map((m) => m.length)).toEqual([8, 3, 4])
    expect(row.sentenceAer).toHaveLength(3)
  })

  it('reports each head as it is scored and stops at a cancel between heads (192 heads × 200 pairs take seconds)', async () => {
    const { pairs, gold } = goldSet(text('tiny.src-tgt'), text('tiny.gold'), names)
    const steps: string[] = []
    await boardModel(model, pairs, gold, { onStep: (s) => steps.push(`${s.what} ${s.done}/${s.total}`) })
    expect(steps.filter((s) => s.startsWith('heads'))).toEqual(['heads 1/4', 'heads 2/4', 'heads 3/4', 'heads 4/4'])
    expect(steps[0]).toMatch(/^pairs \d+\/3$/)
    expect(steps.indexOf('heads 1/4')).toBeGreaterThan(steps.lastIndexOf('pairs 3/3'))

    const stop = new AbortController()
    const seen: string[] = []
    const run = boardModel(model, pairs, gold, {
      signal: stop.signal,
      onStep: (s) => {
        seen.push(`${s.what} ${s.done}`)
        if (s.what === 'heads' && s.done === 2) stop.abort()
      },
    })
    await expect(run).rejects.toMatchObject({ name: 'CancelledError', message: 'The alignment was cancelled.' })
    expect(seen.filter((s) => s.startsWith('heads'))).toEqual(['heads 1', 'heads 2'])
  })

  it('scores awesome-align’s file and the statistical aligner beside the models, with progress', async () => {
    const progress: number[] = []
    const steps: string[] = []
    const board = await buildBoard(
      [tiny('transformer')],
      {
        pair: 'en-fr',
        pairs: { name: 'p', text: text('tiny.src-tgt') },
        gold: { name: 'g', text: text('tiny.gold') },
        awesome: { name: 'a', text: text('tiny.hyp') },
        corpus: null,
      },
      (_p, work) => work(model),
      { onProgress: (p) => (p.step ? steps.push(`${p.done} ${p.step.what} ${p.step.done}`) : progress.push(p.done)) },
    )
    expect(board.awesome!.score.aer).toBeCloseTo(100 * (1 - 28 / 29), 10)
    expect(board.statistical.corpus).toBe('the 3 gold pairs alone')
    expect(board.sentences[2].gold).toHaveLength(4)
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    // Inside the one model (0 done): its pairs forced, its four heads scored, then its contribution methods' pass over the 3 pairs.
    expect(steps.slice(-7)).toEqual(['0 heads 1', '0 heads 2', '0 heads 3', '0 heads 4', '0 methods 1', '0 methods 2', '0 methods 3'])
  })
})

describe('the gold-links chart', () => {
  it('puts each kind of link on its cell, and keeps the colour scale to the heatmap', () => {
    const o = buildGoldLinksOption({
      srcWords: ['a', 'b'],
      tgtWords: ['x', 'y', 'z'],
      matrix: [[0.9, 0.1], null, [0.2, 0.8]],
      gold: [
        { i: 0, j: 0, sure: true },
        { i: 1, j: 2, sure: false },
      ],
      extracted: [
        { i: 0, j: 0, sure: true },
        { i: 1, j: 2, sure: true },
      ],
      statistical: [{ i: 1, j: 1, sure: true }],
      names: { sure: 'S', possible: 'P', extracted: 'E', statistical: 'X' },
    })
    const series = o.series as { type: string; name?: string; data: unknown[] }[]
    expect(series[0].type).toBe('heatmap')
    const byName = Object.fromEntries(series.slice(1).map((s) => [s.name, s.data]))
    expect(byName).toEqual({
      S: [[0, 0]],
      P: [[1, 2]],
      E: [
        [0, 0],
        [1, 2],
      ],
      X: [[1, 1]],
    })
    expect((o.visualMap as { seriesIndex: number }).seriesIndex).toBe(0)
    // The row the decoder never reached is drawn empty, not left out.
    expect((series[0].data as { value: number[] }[]).filter((c) => c.value[1] === 1).map((c) => c.value[3])).toEqual([0, 0])
  })
})
