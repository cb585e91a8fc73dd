import { describe, expect, it } from 'vitest'
import { estimateWidth, INKS, textHeight, type Frame } from '../../../src/shared/charts/frame'
import { buildHeadsGridOption, headsGridLayout } from '../../../src/shared/charts/heads'
import { makeCross } from './heads-fixture'

// The heads grid as the app draws it (a 12 px page, a box a few pixels a row high): labels that
// would overlap are thinned, never drawn on top of each other.
const ZH = [
  '一个',
  '穿',
  '粉红色',
  '裙子',
  '的',
  '小',
  '女孩',
  '正在',
  '海滩',
  '上',
  '跑步',
  '，',
  '她',
  '很',
  '开心',
  '因为',
  '今天',
  '天气',
  '很',
  '好',
  '。',
  '</s>',
]
const FR = [
  'une',
  'petite',
  'fille',
  'en',
  'robe',
  'rose',
  'court',
  'sur',
  'la',
  'plage',
  'de',
  'sécurité',
  'avec',
  'son',
  'chien',
  'et',
  'sa',
  'mère',
  ',',
  'qui',
  'rit',
  'beaucoup',
  '.',
  '</s>',
]

const frame = (p: Partial<Frame> = {}): Frame => ({
  x: 4,
  y: 4,
  width: 1180,
  height: 712,
  fontSize: 12,
  measure: estimateWidth,
  lang: 'en',
  ink: INKS.light,
  highlightRow: null,
  ...p,
})

type Text = { type: string; x: number; y: number; rotation: number; style: { text: string; fontSize: number; align: string } }

describe('the heads grid never draws one label over another', () => {
  for (const [name, src, tgt] of [
    ['zh→en', ZH, FR.slice(0, 20)],
    ['en→fr', FR.slice(0, 18), FR],
  ] as const) {
    it(`${name}: labelled rows are at least a line apart, turned source labels too`, () => {
      const input = { srcTokens: [...src], tgtTokens: [...tgt], crossAttention: makeCross(3, 4, tgt.length, src.length), frame: frame() }
      const lay = headsGridLayout(input)
      const lh = textHeight(12)
      const rowPitch = lay.cells[0].height / tgt.length
      // The rows labelled (ECharts' interval: every rowStep-th) sit a line apart at least.
      expect(rowPitch * lay.rowStep).toBeGreaterThanOrEqual(lh * 0.95)
      const option = buildHeadsGridOption(input)
      const yAxis = option.yAxis as { axisLabel: { show?: boolean; interval?: number } }[]
      expect(yAxis[0].axisLabel.interval).toBe(lay.rowStep - 1)
      // The source labels under the first map of the last row: no two overlap along the axis.
      const c = lay.cells[lay.cells.length - lay.heads]
      const texts = ((option.graphic as { elements: Text[] }).elements ?? []).filter(
        (e) => e.type === 'text' && e.style.text && e.y > c.y + c.height && e.x >= c.x && e.x <= c.x + c.width && src.includes(e.style.text),
      )
      expect(texts.length).toBeGreaterThan(1)
      const spans = texts
        .map((e) => {
          const w = e.rotation ? lh : estimateWidth(e.style.text, 12)
          return [e.x - w / 2, e.x + w / 2]
        })
        .sort((a, b) => a[0] - b[0])
      for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1] + 1)
    })
  }
})
