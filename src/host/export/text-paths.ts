/**
 * An SVG's texts as the outlines of their glyphs, for the animated exports (issue 40 #8): resvg
 * lays out every <text> again in every frame (two thirds of the time it takes to read a frame of
 * the step-through), while an animation's frames repeat the same labels. Each text becomes one
 * <path> of its glyphs' outlines, from the same font file resvg would use (fontkit's layout, with
 * the kerning the figure was measured with), each text's outline made once and kept.
 *
 * Only what it can draw as resvg would is changed: a text with no other attributes than the
 * exporter writes (anchor, font style, transform, fill, x, y), in DejaVu Sans regular or bold, and
 * every character in that font. Anything else (a CJK run, an italic) stays a <text> for resvg.
 */
import { face } from './fonts'

const KNOWN = new Set(['text-anchor', 'style', 'xml:space', 'transform', 'fill', 'fill-opacity', 'x', 'y'])

const unescape = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|#39|apos|#x([0-9a-f]+)|#(\d+));/gi, (m, e: string, hex?: string, dec?: string) =>
    hex
      ? String.fromCodePoint(parseInt(hex, 16))
      : dec
        ? String.fromCodePoint(Number(dec))
        : (({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'", apos: "'" } as Record<string, string>)[e] ?? m),
  )

interface Outline {
  /** The glyphs' outlines in font units, y up. */
  d: string
  advance: number
  unitsPerEm: number
}

const outlines = new Map<string, Outline | null>()

function outline(text: string, bold: boolean): Outline | null {
  const key = `${bold ? 'b' : 'r'}${text}`
  let o = outlines.get(key)
  if (o === undefined) {
    const f = face('latin', bold ? 'bold' : 'regular')
    if (!f || [...text].some((ch) => !f.font.hasGlyphForCodePoint(ch.codePointAt(0)!))) o = null
    else {
      const run = f.font.layout(text)
      let x = 0
      const parts: string[] = []
      run.glyphs.forEach((g, i) => {
        const p = run.positions[i]
        parts.push(g.path.translate(x + p.xOffset, p.yOffset).toSVG())
        x += p.xAdvance
      })
      o = { d: parts.join(''), advance: run.advanceWidth, unitsPerEm: f.font.unitsPerEm }
    }
    if (outlines.size > 20_000) outlines.clear()
    outlines.set(key, o)
  }
  return o
}

/** One <text> as a <path>, or null where it is left to resvg. */
function textPath(attrs: string, body: string): string | null {
  const a = new Map<string, string>()
  for (const m of attrs.matchAll(/\s([\w:-]+)="([^"]*)"/g)) a.set(m[1], m[2])
  if ([...a.keys()].some((k) => !KNOWN.has(k))) return null
  const style = new Map(
    (a.get('style') ?? '')
      .split(';')
      .map((d) => d.split(':').map((x) => x.trim()))
      .filter((d) => d.length === 2 && d[0]) as [string, string][],
  )
  const size = Number(/^([\d.]+)px$/.exec(style.get('font-size') ?? '')?.[1])
  if (!(size > 0)) return null
  if (!/^\s*"?DejaVu Sans"?\s*(,|$)/.test(style.get('font-family') ?? '')) return null
  if ((style.get('font-style') ?? 'normal') !== 'normal') return null
  const weight = style.get('font-weight') ?? 'normal'
  if (!/^(normal|bold|[1-9]00)$/.test(weight)) return null
  const bold = weight === 'bold' || Number(weight) >= 600
  let text = unescape(body)
  if (a.get('xml:space') !== 'preserve') text = text.replace(/\s+/g, ' ').trim()
  if (text === '') return ''
  const o = outline(text, bold)
  if (!o) return null
  const k = size / o.unitsPerEm
  const width = o.advance * k
  const anchor = a.get('text-anchor') ?? 'start'
  const x = Number(a.get('x') ?? 0) - (anchor === 'middle' ? width / 2 : anchor === 'end' ? width : 0)
  const y = Number(a.get('y') ?? 0)
  if (!Number.isFinite(x) || !Number.isFinite(y)) return null
  const transform = `${a.get('transform') ?? ''} translate(${+x.toFixed(4)} ${+y.toFixed(4)}) scale(${+k.toPrecision(6)} ${-k.toPrecision(6)})`.trim()
  const opacity = a.has('fill-opacity') ? ` fill-opacity="${a.get('fill-opacity')}"` : ''
  return `<path transform="${transform}" fill="${a.get('fill') ?? '#000'}"${opacity} d="${o.d}"/>`
}

/** The SVG with every text it can draw as glyph outlines (the rest left as texts). */
export function textsAsPaths(svg: string): string {
  return svg.replace(/<text\b([^>]*)>([^<]*)<\/text>/g, (m, attrs: string, body: string) => textPath(attrs, body) ?? m)
}
