import { describe, expect, it } from 'vitest'
import type { CorpusResult, Translation } from '../../../src/shared/api'
import { buildComparisonOption } from '../../../src/shared/charts/comparison'
import { buildCorpusOption } from '../../../src/shared/charts/corpus'
import { estimateWidth, INKS, type Frame } from '../../../src/shared/charts/frame'
import { translation as fakeTranslation } from '../renderer/fake-api'
import { KIND_COLOURS, kindOfName, modelColours, modelLooks } from '../../../src/shared/charts/model-colours'

const BUNDLED = ['none', 'bahdanau', 'luong-dot', 'luong-general', 'luong-concat', 'local-m', 'local-p', 'transformer'].map((k) => `en-fr-${k}`)
const frame: Frame = { x: 0, y: 0, width: 700, height: 420, fontSize: 12, measure: estimateWidth, lang: 'en', ink: INKS.light, highlightRow: null }

/** A translation by model `modelId`; the no-attention model's has no attention. */
const translation = (modelId: string): Translation => ({ ...fakeTranslation(modelId, 'a dog'), ...(modelId.endsWith('none') ? { attention: [] } : {}) })

function corpus(names: string[]): CorpusResult {
  return {
    pair: 'en-fr',
    testSet: 't',
    results: names.map((model) => ({
      model,
      modelId: model,
      fileName: `${model}.onnx`,
      attention: kindOfName(model) ?? 'bahdanau',
      sentences: 1,
      bleu: 30,
      bleuCased: 30,
      byLength: [{ bucket: '1-10', sentences: 1, bleu: 30 }],
      seconds: 1,
      sentencesPerSecond: 1,
      attentionEntropy: null,
      diagonality: null,
      cached: false,
      hypotheses: [],
    })),
  }
}

type Lines = { color?: string[]; series: { name: string; color?: string }[] }
/** The colour each named line is drawn in: its own, or the option's palette by series index (ECharts' rule). */
const colourOf = (o: Lines, name: string) => {
  const k = o.series.findIndex((s) => s.name.startsWith(name))
  return o.series[k].color ?? o.color![k]
}

describe('one colour per model', () => {
  it('reads the kind from a model name', () => {
    expect(BUNDLED.map(kindOfName)).toEqual(['none', 'bahdanau', 'luong-dot', 'luong-general', 'luong-concat', 'local-m', 'local-p', 'transformer'])
    expect(kindOfName('zh-en-local-p')).toBe('local-p')
    expect(kindOfName('en-fr-bahdanau · beam 4')).toBe('bahdanau')
    expect(kindOfName('my-model')).toBeNull()
  })

  it('gives a model the same colour wherever it stands in the list, and distinct colours within a chart', () => {
    const forward = modelColours(BUNDLED)
    const backward = modelColours([...BUNDLED].reverse()).reverse()
    expect(forward).toEqual(backward)
    expect(new Set(forward).size).toBe(8)
    expect(modelColours(['en-fr-bahdanau'])).toEqual([KIND_COLOURS.bahdanau])
    // A second model of a kind, and a model of no known kind, take spare colours, chosen by name.
    const two = modelColours(['en-fr-bahdanau', 'zh-en-bahdanau', 'my-model'])
    expect(new Set(two).size).toBe(3)
    expect(modelColours(['my-model'])).toEqual(modelColours(['my-model']))
    // A variant listed before its kind's plain model does not take the kind's colour from it.
    const guided = modelColours(['en-fr-luong-general-guided', 'en-fr-luong-general · beam 5'])
    expect(guided[1]).toBe(KIND_COLOURS['luong-general'])
    expect(guided[0]).not.toBe(KIND_COLOURS['luong-general'])
    expect(modelColours(['en-fr-luong-general-guided'])).toEqual([KIND_COLOURS['luong-general']])
  })

  it('changes the marker only once every colour is taken', () => {
    const looks = modelLooks(Array.from({ length: 30 }, (_, k) => ({ name: `m${k}` })))
    expect(new Set(looks.map((l) => `${l.color} ${l.symbol}`)).size).toBe(30)
    expect(looks.slice(0, 14).every((l) => l.symbol === 'circle')).toBe(true)
  })

  it('With / without and BLEU by length, in the app and in the figure, draw a model in one colour', () => {
    const cmpNames = ['en-fr-none', 'en-fr-local-p', 'en-fr-bahdanau']
    const translations = cmpNames.map(translation)
    const app = buildComparisonOption({ translations, names: cmpNames }) as unknown as Lines
    const fig = buildComparisonOption({ translations, names: cmpNames, frame }) as unknown as Lines
    const corpusNames = [...BUNDLED].reverse()
    const appCorpus = buildCorpusOption(corpus(corpusNames)) as unknown as Lines
    const figCorpus = buildCorpusOption(corpus(corpusNames), undefined, frame) as unknown as Lines
    for (const name of cmpNames) {
      const c = KIND_COLOURS[kindOfName(name)!]
      expect([colourOf(app, name), colourOf(fig, name), colourOf(appCorpus, name), colourOf(figCorpus, name)]).toEqual([c, c, c, c])
    }
  })
})
