import { describe, expect, it } from 'vitest'
import { scoreFormula } from '../../../src/shared/attention-kinds'

const DOT = 'e<sub>tj</sub> = s<sub>t</sub><sup>⊤</sup> h<sub>j</sub>'
const GENERAL = 'e<sub>tj</sub> = s<sub>t</sub><sup>⊤</sup> W h<sub>j</sub>'

describe('the Step-through score formula', () => {
  it("is the kind's own for global attention: dot for luong-dot, none for none", () => {
    expect(scoreFormula('luong-dot')).toBe(DOT)
    expect(scoreFormula('luong-general')).toBe(GENERAL)
    expect(scoreFormula('bahdanau')).toMatch(/tanh\(W s<sub>t−1<\/sub> \+ U h<sub>j<\/sub>\)/)
    expect(scoreFormula('none')).toBe('')
  })

  it('is the declared al.score for local attention, general when the model declares none', () => {
    expect(scoreFormula('local-p', 'dot')).toBe(DOT)
    expect(scoreFormula('local-m', 'concat')).toMatch(/\[s<sub>t<\/sub>; h<sub>j<\/sub>\]/)
    expect(scoreFormula('local-p')).toBe(GENERAL)
  })
})
