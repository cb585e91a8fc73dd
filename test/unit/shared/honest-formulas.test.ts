/**
 * Honest formulas (issue 40 #5), read from the rendered text. A Bahdanau model masks its source's
 * </s>: the model computes a score for it (often the highest) and sets it to −∞ before the
 * softmax, so its weight is 0. The step-through figure must say −∞ and "masked" there, not draw a
 * high score under α = exp(e)/Σ exp(e) with a weight of 0 and no word. And local-p's rows sum to
 * less than 1 (the softmax times the Gaussian): the units note must give the real sums, not "each
 * row still sums to 1".
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { renderSvg } from '../../../src/host/export/figure'
import { unitsNote } from '../../../src/shared/attention/word-figure'
import { inWords } from '../../../src/shared/attention/word-translation'
import { maskedPositions, softmax } from '../../../src/shared/charts/step'
import type { Translation } from '../../../src/shared/api'
import { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS, type FigureSpec } from '../../../src/shared/figure'
import { BUNDLED_MODELS } from '../../helpers'

const SENTENCE = 'A young man in a red jacket is standing on the corner of a busy street .'
const SPEC: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], dpi: 96, fontSize: FONT_PRESETS.screen }

let bahdanau: Translation
let localP: Translation

beforeAll(async () => {
  const svc = new InferenceService()
  bahdanau = await svc.translate(join(BUNDLED_MODELS, 'en-fr-bahdanau.onnx'), SENTENCE)
  localP = await svc.translate(join(BUNDLED_MODELS, 'en-fr-local-p.onnx'), SENTENCE)
  await svc.closeAll()
}, 120_000)

const texts = (svg: string) => Array.from(svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g), (m) => m[1]).join(' ')

describe("Bahdanau's masked </s>", () => {
  it('is masked in the data: weight 0, although its score would give it weight', () => {
    const S = bahdanau.srcTokens.length
    expect(bahdanau.srcTokens[S - 1]).toBe('</s>')
    expect(bahdanau.attention[0][S - 1]).toBe(0)
    expect(softmax(bahdanau.scores[0])[S - 1]).toBeGreaterThan(0.01)
    expect(maskedPositions(bahdanau.scores[0], bahdanau.attention[0])).toEqual(bahdanau.srcTokens.map((_, j) => j === S - 1))
  })

  it('the step-through figure labels it −∞ and says "masked"', () => {
    const svg = renderSvg({ view: 'step', translation: bahdanau, step: 0, attention: 'bahdanau' }, SPEC)
    const text = texts(svg)
    expect(text).toContain('−∞')
    expect(text).toMatch(/masked/)
  })

  it('a local-p step masks nothing (its zeros are outside the window)', () => {
    const svg = renderSvg({ view: 'step', translation: localP, step: 3, attention: 'local-p' }, SPEC)
    expect(texts(svg)).not.toContain('−∞')
  })
})

describe("local-p's row sums in the units note", () => {
  it('gives the sums the rows have, and never "sums to 1", in words and in pieces', () => {
    for (const t of [inWords(localP), localP]) {
      const sums = t.attention.map((r) => r.reduce((a, b) => a + b, 0))
      expect(Math.min(...sums)).toBeLessThan(0.99)
      const note = unitsNote({ view: 'heatmap', translation: t }, 'en')!
      expect(note).not.toMatch(/sums to 1\b/)
      expect(note).toContain(`here ${Math.min(...sums).toFixed(2)} to ${Math.max(...sums).toFixed(2)}`)
    }
  })

  it("still says a Bahdanau model's word rows sum to 1, which they do", () => {
    expect(unitsNote({ view: 'heatmap', translation: inWords(bahdanau) }, 'en')).toMatch(/each row still sums to 1/)
  })
})
