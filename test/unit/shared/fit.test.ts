import { describe, expect, it } from 'vitest'
import { floorsFor, growsWithContent, NUMBER, PAPER_MAX_HEIGHT } from '../../../src/shared/charts/fit'
import { tickText } from '../../../src/shared/charts/frame'
import { SIZE_PRESETS } from '../../../src/shared/figure'

describe('fitting: floors, pages that grow, numbers, ticks', () => {
  it('paper text shrinks to 7 pt (numbers 5.25 pt), slide text to 14 pt, never above the size asked', () => {
    expect(floorsFor(8)).toEqual({ label: 7, number: 5.25 })
    expect(floorsFor(20).label).toBeCloseTo(14, 10)
    expect(floorsFor(5).label).toBe(5)
  })

  it('paper presets grow with their content (up to a page of text), slides and custom sizes do not', () => {
    expect(growsWithContent(SIZE_PRESETS['paper-single'])).toBe(true)
    expect(growsWithContent(SIZE_PRESETS['paper-double'])).toBe(true)
    expect(growsWithContent(SIZE_PRESETS['slide-16x9'])).toBe(false)
    expect(growsWithContent({ width: 252, height: 300 })).toBe(false)
    expect(PAPER_MAX_HEIGHT).toBe(648)
  })

  it("numbers are set like cell values (a head's stats line too); words are not", () => {
    for (const t of ['.25', '1.00', '14', '−0.5', '1.2k', '1.04 b · d .80']) expect(NUMBER.test(t), t).toBe(true)
    for (const t of ['bad', 'b', 'un', '</s>', 'p = 0.08x']) expect(NUMBER.test(t), t).toBe(false)
  })

  it('ticks are rounded: 14.1822 reads 14.2, round steps stay as they are', () => {
    expect(tickText(14.1822)).toBe('14.2')
    expect(tickText(0.25)).toBe('0.25')
    expect(tickText(1.5)).toBe('1.5')
    expect(tickText(40)).toBe('40')
    expect(tickText(0.125)).toBe('0.125')
    expect(tickText(12_500)).toBe('12.5k')
  })
})
