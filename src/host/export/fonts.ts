/**
 * The fonts figures are set in, read with fontkit (PDFKit's own font reader): DejaVu Sans for
 * Latin text, Noto Sans CJK SC for Chinese. Text is measured with their real advance widths, and
 * each run of text goes to the same font in the PNG (resvg), the SVG and the PDF (PDFKit), so a
 * label lands in the same place in all three and the layout's room for it is the room it takes.
 */
import { existsSync } from 'node:fs'
import * as fontkit from 'fontkit'
import { estimateWidth } from '../../shared/charts/frame'

export const LATIN_FAMILY = 'DejaVu Sans'
export const CJK_FAMILY = 'Noto Sans CJK SC'
/** Latin first: resvg and browsers take each character from the first family that has it. */
export const FONT_FAMILY = `${LATIN_FAMILY}, ${CJK_FAMILY}, sans-serif`

export type Script = 'latin' | 'cjk'
export type Weight = 'regular' | 'bold'

interface FaceFile {
  path: string
  /** The face inside a collection (.ttc). */
  postscriptName?: string
}

// Debian/Ubuntu (fonts-dejavu-core, fonts-noto-cjk), Fedora, Arch.
const FILES: Record<Script, Record<Weight, FaceFile[]>> = {
  latin: {
    regular: [
      '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
      '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf',
      '/usr/share/fonts/TTF/DejaVuSans.ttf',
    ].map((path) => ({ path })),
    bold: [
      '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
      '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans-Bold.ttf',
      '/usr/share/fonts/TTF/DejaVuSans-Bold.ttf',
    ].map((path) => ({ path })),
  },
  cjk: {
    regular: [
      '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
      '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc',
      '/usr/share/fonts/google-noto-sans-cjk-fonts/NotoSansCJK-Regular.ttc',
    ].map((path) => ({ path, postscriptName: 'NotoSansCJKsc-Regular' })),
    bold: [
      '/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc',
      '/usr/share/fonts/noto-cjk/NotoSansCJK-Bold.ttc',
      '/usr/share/fonts/google-noto-sans-cjk-fonts/NotoSansCJK-Bold.ttc',
    ].map((path) => ({ path, postscriptName: 'NotoSansCJKsc-Bold' })),
  },
}

export interface Face extends FaceFile {
  font: fontkit.Font
}

const faces = new Map<string, Face | null>()

function open(file: FaceFile): Face | null {
  try {
    const f = fontkit.openSync(file.path, file.postscriptName)
    return 'fonts' in f ? null : { ...file, font: f }
  } catch {
    return null
  }
}

/** The face for a script and weight (bold falls back to regular), or null when it is not installed. */
export function face(script: Script, weight: Weight = 'regular'): Face | null {
  const key = `${script} ${weight}`
  if (!faces.has(key)) {
    const file = FILES[script][weight].find((f) => existsSync(f.path))
    faces.set(key, file ? open(file) : null)
  }
  return faces.get(key)! ?? (weight === 'bold' ? face(script, 'regular') : null)
}

/** Every installed font file, for resvg to load. */
export function fontFiles(): string[] {
  return (['latin', 'cjk'] as const)
    .flatMap((s) => (['regular', 'bold'] as const).map((w) => face(s, w)?.path))
    .filter((p, i, all): p is string => !!p && all.indexOf(p) === i)
}

/**
 * The text cut where its font changes: each character from DejaVu Sans when it has a glyph, else
 * from Noto Sans CJK (resvg and browsers make the same choice from the font-family list).
 */
export function textRuns(text: string): { text: string; script: Script }[] {
  const latin = face('latin')
  const cjk = face('cjk')
  const runs: { text: string; script: Script }[] = []
  for (const ch of text) {
    const cp = ch.codePointAt(0)!
    const script: Script = !latin || latin.font.hasGlyphForCodePoint(cp) || !cjk?.font.hasGlyphForCodePoint(cp) ? 'latin' : 'cjk'
    const last = runs[runs.length - 1]
    // Spaces stay with the run they are in: both fonts have them.
    if (last && (last.script === script || ch === ' ')) last.text += ch
    else runs.push({ text: ch, script })
  }
  return runs
}

const widths = new Map<string, number>()

/** The advance width of one line of text, in the units of `size`, with kerning, as the renderers set it. */
export function measureText(text: string, size: number, bold = false): number {
  const key = `${bold ? 'b' : 'r'}${text}`
  let w = widths.get(key)
  if (w === undefined) {
    w = 0
    for (const run of textRuns(text)) {
      const f = face(run.script, bold ? 'bold' : 'regular')
      w += f ? f.font.layout(run.text).advanceWidth / f.font.unitsPerEm : estimateWidth(run.text, 1)
    }
    if (widths.size > 50_000) widths.clear()
    widths.set(key, w)
  }
  return w * size
}

/** ECharts' measureText hook: a CSS font shorthand ("bold 14px DejaVu Sans, …") and a text. */
export function measureCssFont(text: string, font?: string): number {
  const size = Number(/(\d+(?:\.\d+)?)px/.exec(font ?? '')?.[1] ?? 12)
  return measureText(text, size, /\b(bold|[6-9]00)\b/.test(font ?? ''))
}
