/**
 * The GIF's colours against the APNG's (issue 40 #8): the GIF has one palette of at most 255
 * colours, the APNG is lossless, and a lecturer sees the two side by side. Both are read back by
 * decoders that are not the encoders (omggif for the GIF, pngjs for the APNG's first frame, which
 * is its default image) and compared pixel by pixel: the step-through's encoder panel (pale blue
 * and red cells, the states faded by their weights) must keep its tints, not turn white or grey.
 *
 * Every frame too (issue 40 #8: the GIF is built from what changed between frames, the APNG from
 * whole frames): Pillow composes both files' frames as a viewer shows them and counts, frame by
 * frame, the pixels further apart than the tolerance.
 */
import { spawnSync } from '../../spawn-sync'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GifReader } from 'omggif'
import { PNG } from 'pngjs'
import { beforeAll, describe, expect, it } from 'vitest'
import { renderAnimation, type AnimatedData } from '../../../src/host/export/animation'
import type { Translation } from '../../../src/shared/api'
import { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS, type FigureSpec } from '../../../src/shared/figure'
import { tempDir } from '../../helpers'
import { localPTranslation } from './figure-data'

const SENTENCE = 'Two young men in red jackets are waiting for the bus .'
const SPEC: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], dpi: 96, fontSize: FONT_PRESETS.screen }
/** A difference a viewer does not see: at most this much on any channel (of 255). */
const TOLERANCE = 12
interface FramesApart {
  frames: [number, number]
  off: number[]
  far: number[]
  pixels: number
}

const PILLOW = existsSync('/usr/bin/python3') && spawnSync('/usr/bin/python3', ['-c', 'import PIL']).status === 0

/**
 * Each frame of the GIF against the APNG's, both composed by Pillow (the APNG over white): the
 * frame counts, and per frame the pixels off by more than the tolerance on some channel (`off`)
 * and by more than 32 (`far`: a part of the frame missed or left from the frame before, not the
 * palette's nearest colour for an anti-aliased edge).
 */
function framesApart(gif: Buffer, apng: Buffer): FramesApart {
  const dir = tempDir()
  writeFileSync(join(dir, 'a.gif'), gif)
  writeFileSync(join(dir, 'a.png'), apng)
  const script = [
    'import json, sys',
    'from PIL import Image, ImageChops',
    'g = Image.open(sys.argv[1]); p = Image.open(sys.argv[2]); off = []; far = []',
    'for i in range(min(g.n_frames, p.n_frames)):',
    '    g.seek(i); p.seek(i)',
    '    a = g.convert("RGB"); b = p.convert("RGBA")',
    '    b = Image.alpha_composite(Image.new("RGBA", b.size, (255, 255, 255, 255)), b).convert("RGB")',
    '    r, gr, bl = ImageChops.difference(a, b).split()',
    '    h = ImageChops.lighter(ImageChops.lighter(r, gr), bl).histogram()',
    '    off.append(sum(h[int(sys.argv[3]) + 1:])); far.append(sum(h[33:]))',
    'print(json.dumps({"frames": [g.n_frames, p.n_frames], "off": off, "far": far, "pixels": g.size[0] * g.size[1]}))',
  ].join('\n')
  const r = spawnSync('/usr/bin/python3', ['-c', script, join(dir, 'a.gif'), join(dir, 'a.png'), String(TOLERANCE)], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout) as FramesApart
}

let t: Translation

beforeAll(async () => {
  t = await localPTranslation(SENTENCE)
}, 120_000)

/** The APNG's first frame over white (a GIF has no partial transparency), by pngjs. */
function apngFirst(bytes: Buffer): { width: number; height: number; px: Uint8Array } {
  const png = PNG.sync.read(bytes)
  const px = new Uint8Array(png.data.length)
  for (let i = 0; i < px.length; i += 4) {
    const a = png.data[i + 3] / 255
    for (let k = 0; k < 3; k++) px[i + k] = Math.round(png.data[i + k] * a + 255 * (1 - a))
    px[i + 3] = 255
  }
  return { width: png.width, height: png.height, px }
}

function gifFirst(bytes: Buffer): { width: number; height: number; px: Uint8Array } {
  const r = new GifReader(new Uint8Array(bytes))
  const px = new Uint8Array(r.width * r.height * 4)
  r.decodeAndBlitFrameRGBA(0, px)
  return { width: r.width, height: r.height, px }
}

describe('GIF colours match the APNG', () => {
  it.each(['step', 'heatmap'] as const)(
    '%s: every pixel of the first frame within the tolerance, tinted pixels kept tinted',
    async (view) => {
      const data: AnimatedData = view === 'step' ? { view, translation: t, step: 0, attention: 'local-p' } : { view, translation: t }
      const gifBytes = (await renderAnimation(data, SPEC, { format: 'gif' })).bytes
      const apngBytes = (await renderAnimation(data, SPEC, { format: 'apng' })).bytes
      const gif = gifFirst(gifBytes)
      const png = apngFirst(apngBytes)
      expect([gif.width, gif.height]).toEqual([png.width, png.height])
      let off = 0
      let worst = 0
      let tinted = 0
      let lostTint = 0
      for (let i = 0; i < png.px.length; i += 4) {
        const d = Math.max(...[0, 1, 2].map((k) => Math.abs(gif.px[i + k] - png.px[i + k])))
        worst = Math.max(worst, d)
        if (d > TOLERANCE) off++
        // A tint: a pale colour whose channels differ (not white, not a grey).
        const c = [png.px[i], png.px[i + 1], png.px[i + 2]]
        if (Math.min(...c) > 180 && Math.max(...c) - Math.min(...c) >= 12) {
          tinted++
          const g = [gif.px[i], gif.px[i + 1], gif.px[i + 2]]
          if (Math.max(...g) - Math.min(...g) < 6) lostTint++
        }
      }
      const pixels = png.px.length / 4
      // Anti-aliased text edges may land a little further off; no more than 1 pixel in 1000.
      expect(off / pixels, `${off} pixels off by more than ${TOLERANCE} (worst ${worst})`).toBeLessThan(0.001)
      expect(lostTint, `${lostTint} of ${tinted} tinted pixels turned white or grey`).toBeLessThanOrEqual(tinted * 0.01)
      if (!PILLOW) return
      // Every frame, as a viewer composes it: one per decoder step in both files. The palette is
      // chosen over all frames, so a later frame's anti-aliased edges may sit a little further
      // off than the first's (up to 0.11 % of pixels in the 25-word step-through); a frame that
      // missed a change is off by far more, in thousands of pixels (a frame shown one step late:
      // 11,000 pixels off by more than 32; a right frame: at most 2).
      const apart = framesApart(gifBytes, apngBytes)
      expect(apart.frames).toEqual([t.tgtTokens.length, t.tgtTokens.length])
      apart.off.forEach((n, i) => expect(n / apart.pixels, `frame ${i + 1}: ${n} pixels off by more than ${TOLERANCE}`).toBeLessThan(0.0025))
      apart.far.forEach((n, i) => expect(n, `frame ${i + 1}: ${n} pixels off by more than 32`).toBeLessThan(50))
    },
    180_000,
  )
})
