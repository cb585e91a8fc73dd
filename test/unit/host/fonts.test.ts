import { describe, expect, it } from 'vitest'
import { textRuns } from '../../../src/host/export/fonts'

describe('figure fonts', () => {
  it('curly quotes and apostrophes come from the Latin font, even next to Chinese (never full-width from Noto CJK)', () => {
    const runs = textRuns('the model’s “output” 模型的输出')
    expect(runs[0]).toEqual({ text: 'the model’s “output” ', script: 'latin' })
    expect(runs[1]).toEqual({ text: '模型的输出', script: 'cjk' })
  })

  it('subscripts (pₜ, αₜⱼ, c₁₂) are set in DejaVu Sans, which has them', () => {
    for (const t of ['pₜ', 'αₜⱼ', 'Σⱼ aₜⱼ hⱼ', 'c₁₂']) expect(textRuns(t).map((r) => r.script)).toEqual(['latin'])
  })
})
