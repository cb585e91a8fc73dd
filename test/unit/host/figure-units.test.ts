/** The units a figure shows, written into each file format's own metadata by the exporter. */
import { PNG } from 'pngjs'
import { describe, expect, it } from 'vitest'
import { figureInUnits } from '../../../src/shared/attention/word-figure'
import { renderFigure } from '../../../src/host/export/figure'
import { DEFAULT_FIGURE, parseFigure, type FigureSpec } from '../../../src/shared/figure'
import { translation } from '../renderer/fake-api'

const spec = (p: Partial<FigureSpec>): FigureSpec => ({ ...DEFAULT_FIGURE, width: 480, height: 300, fontSize: 11, ...p })
const pieces = translation('m', 'a wooden play@@ house')

/** The text of every iTXt chunk of a PNG, by keyword. */
function itxt(png: Buffer): Record<string, string> {
  const out: Record<string, string> = {}
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    if (type === 'iTXt') {
      const body = png.subarray(at + 8, at + 8 + len)
      const key = body.toString('latin1', 0, body.indexOf(0))
      // keyword \0, compression flag and method, language \0, translated keyword \0, text
      let p = body.indexOf(0) + 3
      p = body.indexOf(0, p) + 1
      p = body.indexOf(0, p) + 1
      out[key] = body.toString('utf8', p)
    }
    at += len + 12
  }
  return out
}

describe('units in the figure metadata', () => {
  const words = figureInUnits({ view: 'heatmap', translation: pieces }, 'words')

  it('survive the figure schema: a translation in words keeps its piece spans', () => {
    const { data } = parseFigure(words, spec({ format: 'svg' }))
    expect(data.view === 'heatmap' && data.translation.words?.src).toEqual([
      [0, 0],
      [1, 1],
      [2, 3],
      [4, 4],
    ])
  })

  it('PNG: a valid iTXt Description, in the figure language', async () => {
    const en = await renderFigure(words, spec({ format: 'png', dpi: 72 }))
    expect(() => PNG.sync.read(en)).not.toThrow()
    expect(itxt(en).Description).toMatch(/^Units: words\. A source word receives the sum/)
    const zh = await renderFigure(figureInUnits({ view: 'heatmap', translation: pieces }, 'pieces'), spec({ format: 'png', dpi: 72, lang: 'zh' }))
    expect(itxt(zh).Description).toBe('单位：子词片段（模型实际读写的单位）。')
  })

  it('SVG: a <desc> first thing in the file, escaped', async () => {
    const svg = (await renderFigure(words, spec({ format: 'svg' }))).toString('utf8')
    expect(svg).toMatch(/^<svg [^>]*><desc>Units: words\. [^<]*'s row is the mean of its pieces' rows, so each row still sums to 1\.<\/desc>/)
    expect(svg).toContain('>playhouse</text>')
  })
})
