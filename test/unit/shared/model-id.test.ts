import { describe, expect, it } from 'vitest'
import { modelDtype, modelFile, modelLanguages, withDtype, withLanguages } from '../../../src/shared/model-id'

/** A model's path carries its language pair and its precision (the app's picker chooses both). */
describe('model paths with a language pair and a precision', () => {
  it('a dtype rides with the language pair, each kept when the other changes', () => {
    const dir = '/models/m2m100_418M'
    const q8 = withDtype(dir, 'q8')
    expect(q8).toBe(`${dir}?dtype=q8`)
    expect([modelFile(q8), modelDtype(q8), modelLanguages(q8)]).toEqual([dir, 'q8', {}])
    const both = withLanguages(q8, 'en', 'de')
    expect(both).toBe(`${dir}?src_lang=en&tgt_lang=de&dtype=q8`)
    expect([modelFile(both), modelDtype(both), modelLanguages(both)]).toEqual([dir, 'q8', { srcLang: 'en', tgtLang: 'de' }])
    expect(withDtype(both, 'fp16')).toBe(`${dir}?src_lang=en&tgt_lang=de&dtype=fp16`)
    expect(withDtype(both, undefined)).toBe(`${dir}?src_lang=en&tgt_lang=de`)
    expect(withLanguages(withLanguages(dir, 'en', 'fr'), 'fr', 'en')).toBe(`${dir}?src_lang=fr&tgt_lang=en`)
  })

  it('a path without them, or with a question mark of its own, is the file', () => {
    expect([modelFile('/m/a.onnx'), modelDtype('/m/a.onnx'), modelLanguages('/m/a.onnx')]).toEqual(['/m/a.onnx', undefined, {}])
    expect(modelFile('/m/what?.onnx')).toBe('/m/what?.onnx')
    expect(modelFile('/m/dir?dtype=q8&rm=-rf')).toBe('/m/dir?dtype=q8&rm=-rf')
  })
})
