/**
 * Where the texts and markers of a figure's SVG are: each text's box from its position, anchor,
 * rotation and size, measured with the figure's fonts. The fitter (fit.ts) reads a candidate
 * layout back with it to see whether every label has room; tests read exported files back with
 * an independent reader (poppler) instead.
 */
import { ASCENT, CENTRE_TO_BASELINE, DESCENT, type Measure } from './frame'

type Matrix = [number, number, number, number, number, number]
export type Point = [number, number]

export interface TextBox {
  text: string
  size: number
  bold: boolean
  /** The corners of the text's box on the page (a rotated text has a rotated box). */
  corners: Point[]
}

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0]

function multiply(a: Matrix, b: Matrix): Matrix {
  return [
    a[0] * b[0] + a[2] * b[1],
    a[1] * b[0] + a[3] * b[1],
    a[0] * b[2] + a[2] * b[3],
    a[1] * b[2] + a[3] * b[3],
    a[0] * b[4] + a[2] * b[5] + a[4],
    a[1] * b[4] + a[3] * b[5] + a[5],
  ]
}

/** An SVG transform attribute as one matrix. */
export function parseTransform(t: string | undefined): Matrix {
  let m = IDENTITY
  for (const [, fn, args] of (t ?? '').matchAll(/(\w+)\(([^)]*)\)/g)) {
    const n = args
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number)
    if (fn === 'matrix') m = multiply(m, n as Matrix)
    else if (fn === 'translate') m = multiply(m, [1, 0, 0, 1, n[0], n[1] ?? 0])
    else if (fn === 'scale') m = multiply(m, [n[0], 0, 0, n[1] ?? n[0], 0, 0])
    else if (fn === 'rotate') {
      const r = (n[0] * Math.PI) / 180
      m = multiply(m, [Math.cos(r), Math.sin(r), -Math.sin(r), Math.cos(r), 0, 0])
    }
  }
  return m
}

const apply = (m: Matrix, [x, y]: Point): Point => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]
const attr = (attrs: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(attrs)?.[1]
const unescape = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|#39|apos);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'", apos: "'" })[e]!)

/** Every text of the SVG with its box, group transforms included. */
export function textBoxes(svg: string, measureText: Measure): TextBox[] {
  const boxes: TextBox[] = []
  const stack: Matrix[] = [IDENTITY]
  for (const [, close, tag, attrs, selfClose, body] of svg.matchAll(/<(\/?)(\w+)([^>]*?)(\/?)>(?:([^<]*)<\/text>)?/g)) {
    if (tag === 'g') {
      if (close) stack.pop()
      else if (!selfClose) stack.push(multiply(stack[stack.length - 1], parseTransform(attr(attrs, 'transform'))))
      continue
    }
    if (tag !== 'text' || close) continue
    const text = unescape(body ?? '')
    if (!text.trim()) continue
    const style = attr(attrs, 'style') ?? ''
    const size = Number(/font-size:\s*([\d.]+)px/.exec(style)?.[1] ?? attr(attrs, 'font-size') ?? 12)
    const bold = /font-weight:\s*(bold|[6-9]00)/.test(style)
    const w = measureText(text, size, bold)
    const anchor = attr(attrs, 'text-anchor') ?? 'start'
    const x = Number(attr(attrs, 'x') ?? 0)
    const y = Number(attr(attrs, 'y') ?? 0)
    const x0 = anchor === 'middle' ? x - w / 2 : anchor === 'end' ? x - w : x
    const m = multiply(stack[stack.length - 1], parseTransform(attr(attrs, 'transform')))
    const corners: Point[] = [
      [x0, y - ASCENT * size],
      [x0 + w, y - ASCENT * size],
      [x0 + w, y + DESCENT * size],
      [x0, y + DESCENT * size],
    ].map((p) => apply(m, p as Point))
    boxes.push({ text, size, bold, corners })
  }
  return boxes
}

/** The points of a path's outline (moves and straight lines, absolute or relative). */
function pathPoints(d: string): Point[] {
  const pts: Point[] = []
  let x = 0
  let y = 0
  for (const [, cmd, args] of d.matchAll(/([MLHVZmlhvz])([^MLHVZmlhvz]*)/g)) {
    const n = args.match(/-?[\d.]+(?:e-?\d+)?/g)?.map(Number) ?? []
    const rel = cmd === cmd.toLowerCase()
    const c = cmd.toUpperCase()
    if (c === 'M' || c === 'L') {
      for (let i = 0; i + 1 < n.length; i += 2) {
        x = rel ? x + n[i] : n[i]
        y = rel ? y + n[i + 1] : n[i + 1]
        pts.push([x, y])
      }
    } else if (c === 'H') for (const v of n) pts.push([(x = rel ? x + v : v), y])
    else if (c === 'V') for (const v of n) pts.push([x, (y = rel ? y + v : v)])
  }
  return pts
}

/** Bounding boxes of the shapes (paths, polygons) drawn with this fill and stroke: the p_t markers. */
export function pathBoxes(svg: string, fill: string, stroke: string): Point[][] {
  const out: Point[][] = []
  for (const [, tag, attrs] of svg.matchAll(/<(path|polygon)\b([^>]*)>/g)) {
    if (attr(attrs, 'fill')?.toLowerCase() !== fill.toLowerCase() || attr(attrs, 'stroke')?.toLowerCase() !== stroke.toLowerCase()) continue
    const local =
      tag === 'polygon'
        ? (attr(attrs, 'points') ?? '')
            .trim()
            .split(/[\s,]+/)
            .map(Number)
            .reduce<Point[]>((acc, v, i, all) => (i % 2 ? acc : [...acc, [v, all[i + 1]]]), [])
        : pathPoints(attr(attrs, 'd') ?? '')
    const m = parseTransform(attr(attrs, 'transform'))
    const pts = local.map((p) => apply(m, p))
    if (!pts.length) continue
    const xs = pts.map((p) => p[0])
    const ys = pts.map((p) => p[1])
    out.push([
      [Math.min(...xs), Math.min(...ys)],
      [Math.max(...xs), Math.min(...ys)],
      [Math.max(...xs), Math.max(...ys)],
      [Math.min(...xs), Math.max(...ys)],
    ])
  }
  return out
}

/** Whether `a` and `b` overlap by at most `eps` along the unit axis (ax, ay): their projections' intervals. */
function apartAlong(a: Point[], b: Point[], ax: number, ay: number, eps: number): boolean {
  let aLo = Infinity
  let aHi = -Infinity
  let bLo = Infinity
  let bHi = -Infinity
  for (const [x, y] of a) {
    const t = x * ax + y * ay
    if (t < aLo) aLo = t
    if (t > aHi) aHi = t
  }
  for (const [x, y] of b) {
    const t = x * ax + y * ay
    if (t < bLo) bLo = t
    if (t > bHi) bHi = t
  }
  return aHi <= bLo + eps || bHi <= aLo + eps
}

/** Whether two convex polygons overlap by more than `eps` (separating axis test). */
export function overlap(a: Point[], b: Point[], eps = 0.05): boolean {
  // The x and y axes first: most pairs a read-back compares lie apart on one of them. The same
  // answer as the edges' axes alone: two convex polygons overlap least along an edge's normal, so
  // a pair within eps of each other along x or y is within eps along one of those.
  if (apartAlong(a, b, 1, 0, eps) || apartAlong(a, b, 0, 1, eps)) return false
  for (const poly of [a, b]) {
    for (let i = 0; i < poly.length; i++) {
      const [x1, y1] = poly[i]
      const [x2, y2] = poly[(i + 1) % poly.length]
      const len = Math.hypot(x2 - x1, y2 - y1) || 1
      if (apartAlong(a, b, -(y2 - y1) / len, (x2 - x1) / len, eps)) return false
    }
  }
  return true
}

/** The page's size from the SVG's viewBox. */
export function pageSize(svg: string): { width: number; height: number } {
  const [, , w, h] = /viewBox="([^"]*)"/.exec(svg)![1].split(/\s+/).map(Number)
  return { width: w, height: h }
}

/** The parts of a box outside the page, by more than `eps`. */
export function outside(corners: Point[], page: { width: number; height: number }, eps = 0.5): boolean {
  return corners.some(([x, y]) => x < -eps || y < -eps || x > page.width + eps || y > page.height + eps)
}

/**
 * ECharts writes some labels with the CSS `font` shorthand, which resvg ignores (it then draws
 * them at 12px); spell it out as longhand properties for the rasteriser and the PDF path.
 */
export function expandFontShorthand(svg: string): string {
  return svg.replace(
    /style="font:\s*(normal|italic|oblique)\s+(normal|bold|bolder|lighter|\d{3})\s+([\d.]+)px\s+([^";]+);?"/g,
    (_m, style: string, weight: string, size: string, family: string) =>
      `style="font-style:${style};font-weight:${weight};font-size:${size}px;font-family:${family.trim()};"`,
  )
}

/**
 * ECharts centres text on `y` with dominant-baseline="central", which each renderer resolves with
 * other font metrics (PDFKit from the font's bounding box, so its labels sat lower than resvg's).
 * Every text moves to its alphabetic baseline instead, computed once from DejaVu Sans' ascent and
 * descent, so PNG, SVG and PDF put it in the same place.
 */
export function normaliseText(svg: string): string {
  return expandFontShorthand(svg).replace(/<text\b([^>]*)>/g, (tag, attrs: string) => {
    if (!/dominant-baseline="central"/.test(attrs)) return tag
    const size = Number(/font-size:\s*([\d.]+)px/.exec(attrs)?.[1] ?? 12)
    const y = Number(/\sy="(-?[\d.e+-]+)"/.exec(attrs)?.[1] ?? 0)
    const baseline = +(y + CENTRE_TO_BASELINE * size).toFixed(3)
    const rest = attrs.replace(/\s*dominant-baseline="central"/, '').replace(/\sy="[^"]*"/, '')
    return `<text${rest} y="${baseline}">`
  })
}
