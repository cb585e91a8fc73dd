import { describe, expect, it } from 'vitest'
import { assignDropped, lineCount } from '../../../src/renderer/src/lib/test-set'

describe("the user's test set in the corpus view", () => {
  it('tells source from reference by the language code the file names end in, whatever the drop order', () => {
    const de = { name: 'newstest2014.de' }
    const en = { name: 'newstest2014.en' }
    expect(assignDropped([de, en], 'en', 'de')).toEqual({ source: en, reference: de })
    expect(assignDropped([{ name: 'ref-de.txt' }, { name: 'src-en.txt' }], 'en', 'de')).toEqual({
      source: { name: 'src-en.txt' },
      reference: { name: 'ref-de.txt' },
    })
  })

  it('falls back to the drop order, and a single file fills the source first', () => {
    expect(assignDropped([{ name: 'a.txt' }, { name: 'b.txt' }], 'en', 'de')).toEqual({ source: { name: 'a.txt' }, reference: { name: 'b.txt' } })
    expect(assignDropped([{ name: 'only.de' }], 'en', 'de')).toEqual({ reference: { name: 'only.de' }, source: undefined })
    expect(assignDropped([{ name: 'x.txt' }], 'en', 'de')).toEqual({ source: { name: 'x.txt' }, reference: undefined })
  })

  it('counts lines as the host splits them (a final newline, CRLF and a BOM do not add lines)', () => {
    expect(lineCount('a\nb\n')).toBe(2)
    expect(lineCount('\uFEFFa\r\nb')).toBe(2)
    expect(lineCount('')).toBe(0)
  })
})
