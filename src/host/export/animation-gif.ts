/**
 * The animated GIF (issue 34, issue 40 #8): one palette from every frame's colours, each frame
 * after the first only the pixels that changed (the rest index 0, transparent), LZW by gifenc.
 *
 * Frames come in one at a time as resvg draws them (GifFrames.add) and only what changed is kept:
 * the first frame whole, then each frame's changed pixels, with the colour counts the palette is
 * chosen by kept up to date. A 27-frame step-through at 1280×720 changes about a tenth of its
 * pixels a frame, so this holds and scans a fraction of the 27 full frames the GIF used to keep,
 * and the file is byte for byte the one those gave.
 */
import { GIFEncoder, type Palette } from 'gifenc'
import { COLORMAPS, colorAt } from '../../shared/charts/colormaps'
import { INKS } from '../../shared/charts/frame'
import { PT_MARKER, WINDOW_STROKE } from '../../shared/charts/heatmap'
import type { FigureSpec } from '../../shared/figure'

export const hex = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))

/** The colours a figure is drawn in, as the view's builders name them: they go into the GIF's palette exactly. */
function viewColours(spec: Pick<FigureSpec, 'colormap' | 'theme'>): number[][] {
  const ink = INKS[spec.theme === 'dark' ? 'dark' : 'light']
  const own: number[][] = []
  for (let i = 0; i < 64; i++) own.push(colorAt(spec.colormap, i / 63))
  const [bg, fg] = [hex(ink.background), hex(ink.text)]
  for (let i = 0; i < 16; i++) own.push(bg.map((b, k) => Math.round(b + ((fg[k] - b) * i) / 15)))
  for (const c of [
    ink.muted,
    ink.axis,
    ink.grid,
    ink.accent,
    WINDOW_STROKE,
    PT_MARKER.fill,
    PT_MARKER.stroke,
    '#ffffff',
    '#000000',
    ...COLORMAPS[spec.colormap],
  ])
    own.push(hex(c))
  return own
}

/** A colour as one number, 0xRRGGBB. */
const rgbKey = (r: number, g: number, b: number) => (r << 16) | (g << 8) | b
/** How far apart two colours look, roughly: channels weighted as the eye weighs them (green most). */
function distance(a: number, b: number): number {
  const dr = ((a >> 16) & 255) - ((b >> 16) & 255)
  const dg = ((a >> 8) & 255) - ((b >> 8) & 255)
  const db = (a & 255) - (b & 255)
  return 2 * dr * dr + 4 * dg * dg + 3 * db * db
}

/**
 * The GIF's one palette, built from the colours the frames hold (issue 40: the old palette, the
 * colour map plus a few clusters of the first and last frames, turned the step-through's pale
 * encoder cells white). Index 0 is the "unchanged" colour and is never chosen for a pixel. Where
 * the frames hold at most 255 colours, they are the palette and the GIF is exact. Otherwise, in
 * this order: the view's own colours (the colour map, a ramp from background to text, the inks,
 * the local window and p_t) where the frames use them; then, one at a time, the colour the frames
 * hold whose pixels are worst served (its count times its distance to the nearest colour already
 * in), until 255. A pixel then takes its nearest colour.
 */
export function gifPalette(spec: Pick<FigureSpec, 'colormap' | 'theme'>, colours: Uint32Array, counts: Uint32Array): Palette {
  const bg = hex(INKS[spec.theme === 'dark' ? 'dark' : 'light'].background)
  const palette: number[] = []
  const inPalette = new Set<number>()
  const add = (c: number) => {
    if (palette.length < 255 && !inPalette.has(c)) {
      inPalette.add(c)
      palette.push(c)
    }
  }
  if (colours.length <= 255) colours.forEach(add)
  else {
    // Each colour's distance to its nearest palette entry, kept up to date as entries come in.
    const near = new Float64Array(colours.length).fill(Infinity)
    const take = (c: number) => {
      if (palette.length >= 255 || inPalette.has(c)) return
      add(c)
      for (let i = 0; i < colours.length; i++) {
        const d = distance(colours[i], c)
        if (d < near[i]) near[i] = d
      }
    }
    const used = new Set(colours)
    for (const [r, g, b] of viewColours(spec)) {
      const c = rgbKey(r, g, b)
      if (used.has(c)) take(c)
    }
    // Then, one at a time, the colour whose pixels are worst served: its count times its distance to the nearest entry.
    while (palette.length < 255) {
      let worst = -1
      let cost = 0
      for (let i = 0; i < colours.length; i++) {
        const e = counts[i] * near[i]
        if (e > cost) [worst, cost] = [i, e]
      }
      if (worst < 0) break
      take(colours[worst])
    }
  }
  return [bg, ...palette.map((c) => [(c >> 16) & 255, (c >> 8) & 255, c & 255])]
}

/** Each colour's palette index: the nearest entry, index 0 never. */
function paletteIndex(palette: Palette, colours: ArrayLike<number>): Uint8Array {
  const keys = palette.map(([r, g, b]) => rgbKey(r, g, b))
  const index = new Uint8Array(colours.length)
  for (let i = 0; i < colours.length; i++) {
    const c = colours[i]
    let best = 1
    let bestD = Infinity
    for (let k = 1; k < keys.length; k++) {
      const d = distance(c, keys[k])
      if (d < bestD) [best, bestD] = [k, d]
      if (d === 0) break
    }
    index[i] = best
  }
  return index
}

/**
 * The colours the frames hold, numbered 0, 1, 2, … as first seen, each with its count: a small
 * open-addressed hash (12.5k colours in the 25-word step-through), where the GIF used to keep a
 * 64 MB count table and a 16 MB index table over every 24-bit colour.
 */
class ColourIds {
  private bits = 12
  private keys = new Int32Array(1 << this.bits).fill(-1)
  private ids = new Int32Array(1 << this.bits)
  /** Each id's colour (0xRRGGBB) and count. */
  colours = new Uint32Array(1 << 11)
  counts = new Float64Array(1 << 11)
  size = 0

  /** Where colour c's probe starts: the high bits of a multiplicative hash (its low bits are as uneven as the colours'). */
  private slot(c: number): number {
    return Math.imul(c, 0x9e3779b1) >>> (32 - this.bits)
  }

  /** The id of colour c, numbering it if new. */
  id(c: number): number {
    const mask = this.keys.length - 1
    for (let s = this.slot(c); ; s = (s + 1) & mask) {
      const k = this.keys[s]
      if (k === c) return this.ids[s]
      if (k === -1) return this.insert(c, s)
    }
  }

  private insert(c: number, slot: number): number {
    const id = this.size++
    this.keys[slot] = c
    this.ids[slot] = id
    if (id >= this.colours.length) {
      const colours = new Uint32Array(2 * this.colours.length)
      colours.set(this.colours)
      this.colours = colours
      const counts = new Float64Array(2 * this.counts.length)
      counts.set(this.counts)
      this.counts = counts
    }
    this.colours[id] = c
    // Kept at most half full, so a probe ends soon.
    if (2 * this.size > this.keys.length) this.grow()
    return id
  }

  private grow(): void {
    const { keys, ids } = this
    this.bits++
    this.keys = new Int32Array(1 << this.bits).fill(-1)
    this.ids = new Int32Array(1 << this.bits)
    const mask = this.keys.length - 1
    for (let k = 0; k < keys.length; k++) {
      if (keys[k] === -1) continue
      let s = this.slot(keys[k])
      while (this.keys[s] !== -1) s = (s + 1) & mask
      this.keys[s] = keys[k]
      this.ids[s] = ids[k]
    }
  }
}

/** Pixel i/4 of RGBA pixels, not fully opaque, over the background: 0xRRGGBB. */
function over(px: Uint8Array, i: number, bg: readonly number[]): number {
  const a = px[i + 3]
  const u = 255 - a
  return rgbKey(Math.round((px[i] * a + bg[0] * u) / 255), Math.round((px[i + 1] * a + bg[1] * u) / 255), Math.round((px[i + 2] * a + bg[2] * u) / 255))
}

/** One frame after the first: the pixels that changed (their indices, rising) and their new colours' ids. */
interface Change {
  at: Uint32Array
  ids: Uint32Array
}

/**
 * An animation's frames gathered for the GIF, one at a time. The counts the palette is chosen by
 * are each colour's pixels summed over every frame (a pixel that keeps its colour for ten frames
 * counts ten times), kept up to date from the changes alone: frame 0's pixels count `total` times,
 * and a pixel that changes at frame i moves total − i from its old colour to its new one.
 */
export class GifFrames {
  /** Frame 0, a colour id a pixel. */
  private readonly first: Uint32Array
  /** The frame as it stands, 0xRRGGBB a pixel. */
  private readonly canvas: Uint32Array
  private readonly changes: Change[] = []
  private readonly table = new ColourIds()
  /** A frame's changed pixels and their colours' ids as they are found. */
  private readonly at: Uint32Array
  private readonly ids: Uint32Array
  private readonly bg: readonly number[]
  private frames = 0

  constructor(
    readonly width: number,
    readonly height: number,
    /** How many frames will come: the weight of the first frame's pixels. */
    private readonly total: number,
    /** The page's background, under any pixel not fully opaque (a GIF has no partial transparency). */
    background: readonly number[],
  ) {
    const n = width * height
    this.first = new Uint32Array(n)
    this.canvas = new Uint32Array(n)
    this.at = new Uint32Array(n)
    this.ids = new Uint32Array(n)
    this.bg = background.slice(0, 3)
  }

  /** The next frame, as resvg's RGBA pixels. */
  add(rgba: Uint8Array): void {
    const n = this.width * this.height
    if (rgba.length !== 4 * n) throw new Error(`a frame of ${rgba.length / 4} pixels, not ${n}`)
    if (this.frames >= this.total) throw new Error(`more than the ${this.total} frames announced`)
    // Plain loops with the counting written out: a closure per pixel made this ten times slower.
    const { canvas, table, at, ids, bg } = this
    const weight = this.total - this.frames
    // Neighbouring pixels mostly share a colour: the last one's id is kept at hand.
    let last = -1
    let lastId = -1
    if (this.frames === 0) {
      const { first } = this
      for (let j = 0, i = 0; j < n; j++, i += 4) {
        const c = rgba[i + 3] === 255 ? (rgba[i] << 16) | (rgba[i + 1] << 8) | rgba[i + 2] : over(rgba, i, bg)
        if (c !== last) {
          lastId = table.id(c)
          last = c
        }
        table.counts[lastId] += weight
        canvas[j] = c
        first[j] = lastId
      }
    } else {
      let changed = 0
      for (let j = 0, i = 0; j < n; j++, i += 4) {
        const c = rgba[i + 3] === 255 ? (rgba[i] << 16) | (rgba[i + 1] << 8) | rgba[i + 2] : over(rgba, i, bg)
        const was = canvas[j]
        if (c === was) continue
        table.counts[table.id(was)] -= weight
        if (c !== last) {
          lastId = table.id(c)
          last = c
        }
        table.counts[lastId] += weight
        canvas[j] = c
        at[changed] = j
        ids[changed++] = lastId
      }
      this.changes.push({ at: at.slice(0, changed), ids: ids.slice(0, changed) })
    }
    this.frames++
  }

  /** The colours the frames hold, most pixels first (ties by colour, so the same frames give the same palette), each with its count. */
  colourCounts(): { colours: Uint32Array; counts: Uint32Array } {
    const { colours, counts, size } = this.table
    const order = Array.from({ length: size }, (_, id) => id).sort((a, b) => counts[b] - counts[a] || colours[a] - colours[b])
    return { colours: Uint32Array.from(order, (id) => colours[id]), counts: Uint32Array.from(order, (id) => counts[id]) }
  }

  /**
   * The GIF: the palette (gifPalette), each colour's nearest entry found once; from the second
   * frame on, a pixel that did not change since the last frame is index 0, transparent, so the
   * frame is mostly long runs that LZW packs to little.
   */
  encode(delays: readonly number[], spec: Pick<FigureSpec, 'colormap' | 'theme'>): Buffer {
    if (this.frames !== this.total) throw new Error(`${this.frames} frames of the ${this.total} announced`)
    const { colours, counts } = this.colourCounts()
    const palette = gifPalette(spec, colours, counts)
    const { table } = this
    const index = paletteIndex(palette, table.colours.subarray(0, table.size))
    const { width, height, first } = this
    const gif = GIFEncoder()
    const out = new Uint8Array(width * height)
    for (let j = 0; j < out.length; j++) out[j] = index[first[j]]
    gif.writeFrame(out, width, height, { palette, delay: delays[0], repeat: 0, dispose: 1 })
    this.changes.forEach(({ at, ids }, k) => {
      out.fill(0)
      for (let j = 0; j < at.length; j++) out[at[j]] = index[ids[j]]
      gif.writeFrame(out, width, height, { delay: delays[k + 1], transparent: true, transparentIndex: 0, dispose: 1 })
    })
    gif.finish()
    return Buffer.from(gif.bytes())
  }
}
