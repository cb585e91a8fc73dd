import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Translation } from '../../../src/shared/api'
import { DEFAULT_FIGURE, type FigureData } from '../../../src/shared/figure'
import { defaultCaption, modelNameOf, singleModel } from '../../../src/shared/figure-context'
import { animationCaption } from '../../../src/shared/animation'
import { renderSvg } from '../../../src/host/export/figure'
import { InferenceService } from '../../../src/engine/service'
import { textBoxes } from '../host/figure-geometry'
import { tiny } from '../../helpers'

// Context on every figure (issue 33): the model's name on a single-model figure, and the step and
// its output word on a figure of one step.
const service = new InferenceService()
afterAll(() => service.closeAll())
let local: Translation
let bahdanau: Translation
beforeAll(async () => {
  local = { ...(await service.translate(tiny('local-p'), 'A man in a blue shirt is standing on a ladder.')), modelId: 'bundled:tiny-local-p.onnx' }
  bahdanau = { ...(await service.translate(tiny('bahdanau'), 'A man in a blue shirt is standing on a ladder.')), modelId: 'bundled:tiny-bahdanau.onnx' }
})

describe('the default caption of a figure', () => {
  it('names the model from its id', () => {
    expect(modelNameOf('bundled:en-fr-bahdanau.onnx')).toBe('en-fr-bahdanau')
    expect(modelNameOf('file:/home/me/models/my-model.onnx')).toBe('my-model')
    expect(modelNameOf('/home/me/models/opus-mt-en-fr/')).toBe('opus-mt-en-fr')
    expect(modelNameOf('/models/m2m100_418M?src_lang=en&tgt_lang=fr')).toBe('m2m100_418M')
  })

  it('a single-model figure: the model; one step: the step (from 1) and its output word', () => {
    expect(defaultCaption({ view: 'heatmap', translation: local }, 'en')).toBe('tiny-local-p')
    expect(defaultCaption({ view: 'lines', translation: local, threshold: 0.1 }, 'en')).toBe('tiny-local-p')
    const word = local.tgtTokens[2]
    expect(defaultCaption({ view: 'local', translation: local, windowD: 2, step: 2 }, 'en')).toBe(`tiny-local-p · step 3: « ${word} »`)
    expect(defaultCaption({ view: 'step', translation: local, step: 2, attention: 'local-p' }, 'zh')).toBe(`tiny-local-p · 第 3 步：« ${word} »`)
    // A name given (the CLI's, whose translations carry no id) wins.
    expect(defaultCaption({ view: 'heatmap', translation: { ...local, modelId: '' } }, 'en', 'en-fr-local-p')).toBe('en-fr-local-p')
  })

  it('the step names its output word without subword marks (a Hugging Face folder’s SentencePiece ▁, BPE’s @@): « en », not « ▁en »', () => {
    const sp = { ...local, tgtTokens: ['▁Un', '▁en', 'fant', '@@', '</s>'], modelId: 'file:/models/opus-mt-en-fr' }
    expect(defaultCaption({ view: 'step', translation: sp, step: 1, attention: 'local-p' }, 'en')).toBe('opus-mt-en-fr · step 2: « en »')
    expect(defaultCaption({ view: 'step', translation: { ...sp, tgtTokens: ['lit@@', 'tle'] }, step: 0, attention: 'local-p' }, 'en')).toBe(
      'opus-mt-en-fr · step 1: « lit »',
    )
  })

  it("an animation's default caption leaves out the step on show: each frame names its own", () => {
    const step: FigureData = { view: 'step', translation: local, step: 2, attention: 'local-p' }
    expect(animationCaption(step, 'en', defaultCaption(step, 'en'))).toBe('tiny-local-p')
    expect(animationCaption(step, 'zh', defaultCaption(step, 'zh'))).toBe('tiny-local-p')
    expect(animationCaption({ ...step, translation: { ...local, modelId: '' } }, 'en', `step 3: « ${local.tgtTokens[2]} »`)).toBeUndefined()
    // A caption the user wrote, and a heatmap's (no step), are kept.
    expect(animationCaption(step, 'en', 'my caption · step 3')).toBe('my caption · step 3')
    expect(animationCaption({ view: 'heatmap', translation: local }, 'en', 'tiny-local-p')).toBe('tiny-local-p')
  })

  it('a figure of several models names none of them', () => {
    const data: FigureData = { view: 'sidebyside', a: bahdanau, b: local, names: ['a', 'b'] }
    expect(singleModel(data)).toBe(false)
    expect(defaultCaption(data, 'en')).toBe('')
  })

  it('drawn on the page: the local-p figure says which step and word its p_t belongs to, and which model', () => {
    const data: FigureData = { view: 'local', translation: local, windowD: 2, step: 2 }
    const caption = defaultCaption(data, 'en')
    const text = textBoxes(renderSvg(data, { ...DEFAULT_FIGURE, format: 'svg', caption }))
      .map((b) => b.text)
      .join(' ')
    expect(text).toContain('tiny-local-p')
    expect(text).toContain('step 3')
  })
})
