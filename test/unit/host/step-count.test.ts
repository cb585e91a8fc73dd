/**
 * One count of steps (issue 40 #3): a step is a decoder step, and the decoder writes one piece a
 * step. For one sentence whose output has words of several pieces (so words and pieces differ),
 * every animation has one frame per decoder step, read back by decoders that are not the encoders
 * (omggif for a GIF; the APNG's own frame-control chunks counted here), whether the heatmap is
 * drawn in words (the app's default) or pieces (the CLI's); the HTML page counts the same steps
 * whichever units its heatmap opens in; and where words are shown the caption names the word by
 * its pieces, "word 5 of 29 (pieces 6–7)".
 */
import { join } from 'node:path'
import { GifReader } from 'omggif'
import { beforeAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { renderAnimation, type AnimatedData } from '../../../src/host/export/animation'
import { inWords } from '../../../src/shared/attention/word-translation'
import { htmlExport } from '../../../src/shared/charts/html-export/page'
import type { Translation } from '../../../src/shared/api'
import { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS, type FigureSpec } from '../../../src/shared/figure'
import { BUNDLED_MODELS } from '../../helpers'

/** Its French output has words of two pieces or more (en-fr-local-p). */
const SENTENCE = 'A firefighter sprays water on a burning building .'
const SPEC: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], dpi: 48, fontSize: FONT_PRESETS.screen }

let pieces: Translation
let words: Translation

beforeAll(async () => {
  const svc = new InferenceService()
  pieces = await svc.translate(join(BUNDLED_MODELS, 'en-fr-local-p.onnx'), SENTENCE)
  await svc.closeAll()
  words = inWords(pieces)
}, 120_000)

const gifFrames = (bytes: Buffer) => new GifReader(new Uint8Array(bytes)).numFrames()

/** An APNG's frames: its fcTL chunks, walked chunk by chunk (and acTL's count, which must agree). */
function apngFrames(bytes: Buffer): number {
  let at = 8
  let fctl = 0
  let actl = -1
  while (at < bytes.length) {
    const len = bytes.readUInt32BE(at)
    const type = bytes.toString('latin1', at + 4, at + 8)
    if (type === 'acTL') actl = bytes.readUInt32BE(at + 8)
    if (type === 'fcTL') fctl++
    at += 12 + len
  }
  expect(actl).toBe(fctl)
  return fctl
}

describe('one count of decoder steps', () => {
  it('the sentence has words of several pieces, so words and pieces differ', () => {
    expect(words.tgtTokens.length).toBeLessThan(pieces.tgtTokens.length)
  })

  it('every animation has one frame per decoder step, in words or pieces', async () => {
    const steps = pieces.tgtTokens.length
    const cases: [string, AnimatedData, 'gif' | 'apng'][] = [
      ['heatmap in words (the app)', { view: 'heatmap', translation: words }, 'gif'],
      ['heatmap in words (the app), APNG (and so MP4/WebM)', { view: 'heatmap', translation: words }, 'apng'],
      ['heatmap in pieces (the CLI)', { view: 'heatmap', translation: pieces }, 'gif'],
      ['step-through', { view: 'step', translation: pieces, step: 0, attention: 'local-p' }, 'gif'],
      ['step-through, APNG', { view: 'step', translation: pieces, step: 0, attention: 'local-p' }, 'apng'],
      ['local spotlight', { view: 'local', translation: pieces, step: 0, windowD: 3 } as AnimatedData, 'gif'],
    ]
    const counts: Record<string, number> = {}
    for (const [name, data, format] of cases) {
      const a = await renderAnimation(data, SPEC, { format })
      counts[name] = format === 'gif' ? gifFrames(a.bytes) : apngFrames(a.bytes)
    }
    expect(counts).toEqual(Object.fromEntries(cases.map(([name]) => [name, steps])))
  }, 300_000)

  it('in words, each frame names its step and the word by its pieces', async () => {
    const a = await renderAnimation({ view: 'heatmap', translation: words }, SPEC, { format: 'gif' })
    const spans = words.words!.tgt
    const k = spans.findIndex(([x, y]) => y > x)
    const [first, last] = spans[k]
    const caption = a.plan.frames[first].caption!
    expect(caption).toContain(`step ${first + 1} · word ${k + 1} of ${words.tgtTokens.length} (pieces ${first + 1}–${last + 1})`)
    expect(a.plan.frames[last].caption).toContain(`step ${last + 1} · word ${k + 1} of`)
    expect(a.plan.frames.at(-1)!.caption).toContain(`step ${pieces.tgtTokens.length} ·`)
  }, 120_000)

  it('the HTML page counts decoder steps whichever dialog wrote it (words or pieces)', () => {
    const steps = (html: string) => {
      const d = JSON.parse(/<script type="application\/json" id="data">(.*?)<\/script>/s.exec(html)![1]) as { pieces: { tgt: string[] } }
      return d.pieces.tgt.length
    }
    const opts = { lang: 'en' as const, colormap: 'viridis' as const }
    // The heatmap's dialog draws words, and hands the page the decoder steps they came from.
    expect(steps(htmlExport({ view: 'heatmap', translation: words }, { ...opts, pieces }))).toBe(pieces.tgtTokens.length)
    expect(steps(htmlExport({ view: 'step', translation: pieces, step: 0, attention: 'local-p' }, opts))).toBe(pieces.tgtTokens.length)
  })
})
