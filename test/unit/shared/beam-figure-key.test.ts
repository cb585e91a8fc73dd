import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildBeamFigure } from '../../../src/shared/charts/beam'
import { estimateWidth, INKS, type Frame } from '../../../src/shared/charts/frame'
import type { BeamTree } from '../../../src/shared/teaching'
import { InferenceService } from '../../../src/engine/service'
import { tiny } from '../../helpers'

// The exported beam wraps into rows where the page is narrower than the tree; a row then starts
// each branch again from a hollow circle, and the key says what that circle is.
const service = new InferenceService()
afterAll(() => service.closeAll())
let tree: BeamTree
beforeAll(async () => {
  const t = await service.translate(tiny('bahdanau'), 'A little girl in a pink dress is running on the beach with her dog.', { beam: 3 })
  tree = t.beamTree!
})

const frame = (width: number, lang: 'en' | 'zh' = 'en'): Frame => ({
  x: 0,
  y: 0,
  width,
  height: 2000,
  fontSize: 12,
  measure: estimateWidth,
  lang,
  ink: INKS.light,
  highlightRow: null,
})

type El = { type: string; style?: { text?: string; fill?: string; stroke?: string } }
const elementsOf = (width: number, lang: 'en' | 'zh' = 'en') => (buildBeamFigure(tree, frame(width, lang)).graphic as { elements: El[] }).elements
const hollow = (els: El[]) => els.filter((e) => e.type === 'circle' && e.style?.fill === 'none')
const texts = (els: El[]) => els.filter((e) => e.type === 'text').map((e) => e.style!.text)

describe('the beam figure: the ○ markers of a wrapped tree have a key', () => {
  it('wrapped into rows: hollow circles, and the key names them', () => {
    const els = elementsOf(260)
    // At least one circle where a branch starts again (besides any in the key).
    expect(hollow(els).length).toBeGreaterThan(1)
    expect(texts(els)).toContain('continued from the row above')
    expect(texts(elementsOf(260, 'zh'))).toContain('接上一行')
  })

  it('on one row: no circle to explain, no key item for it', () => {
    const els = elementsOf(4000)
    expect(hollow(els)).toHaveLength(0)
    expect(texts(els)).not.toContain('continued from the row above')
  })
})
