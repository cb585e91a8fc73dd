/**
 * An exported PDF read back by an independent reader, poppler's `pdftotext -bbox-layout`: each
 * page's size and its words with their boxes. Poppler sets a word's box from the font's ascent
 * and descent, so across the line it is (ASCENT + DESCENT) × size; along it, the advance of its
 * text. Noto Sans CJK's ascent and descent (1.16 and 0.288 em) hold a line gap its glyphs never
 * reach: a word that starts in Chinese is taken at its ideographic em box (0.88 above the baseline,
 * 0.12 below) joined with DejaVu's, so two rows of Chinese labels one line apart do not read as
 * overlapping. Many PDFs are read with one call: `pdfunite` puts them into one file first.
 */
import { execFileSync, spawnSync } from '../../spawn-sync'
import { join } from 'node:path'
import { ASCENT, DESCENT } from '../../../src/shared/charts/frame'
import { measureText, textRuns } from '../../../src/host/export/fonts'
import { floorsFor, NUMBER } from '../../../src/shared/charts/fit'
import type { Translation } from '../../../src/shared/api'
import { partExtent } from '../../../src/shared/charts/local'
import { partSource } from '../../../src/shared/charts/views/lines'
import { sideCols, sideRows } from '../../../src/shared/charts/views/sidebyside'
import { originalRows } from '../../../src/shared/charts/views/whatif'
import type { FigureData } from '../../../src/shared/figure'

export interface ReadWord {
  text: string
  x0: number
  y0: number
  x1: number
  y1: number
  /** The text size, from the box's extent across the line; the box is where the glyphs are. */
  size: number
  vertical: boolean
}

export interface ReadPage {
  width: number
  height: number
  words: ReadWord[]
}

const unescape = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|#39|apos);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'", apos: "'" })[e]!)

const CJK = { ascent: 1.16, descent: 0.288, emTop: 0.88, emBottom: 0.12 }

/**
 * A word's size, direction and drawn box from poppler's box: across a line the box is the font's
 * ascent + descent times the size. Which side is "across" is the one that makes the other side
 * the word's advance at that size (a turned word is tall and thin, but so is an upright "."; the
 * advance tells them apart). A turned word reads upwards, its top to the left.
 */
function sized(text: string, x0: number, y0: number, x1: number, y1: number): Omit<ReadWord, 'text'> {
  // Poppler takes a word's ascent and descent from the font its first character is set in.
  const cjk = textRuns(text)[0]?.script === 'cjk'
  const em = cjk ? CJK.ascent + CJK.descent : ASCENT + DESCENT
  const [w, h] = [x1 - x0, y1 - y0]
  const asUpright = Math.abs(measureText(text, h / em) - w)
  const asTurned = Math.abs(measureText(text, w / em) - h)
  const vertical = asTurned < asUpright
  const size = (vertical ? w : h) / em
  // Across the line, from the box's top (its left when turned): where the glyphs really are.
  const [from, to] = cjk ? [CJK.ascent - Math.max(ASCENT, CJK.emTop), CJK.ascent + Math.max(DESCENT, CJK.emBottom)] : [0, em]
  return vertical ? { x0: x0 + from * size, x1: x0 + to * size, y0, y1, size, vertical } : { x0, x1, y0: y0 + from * size, y1: y0 + to * size, size, vertical }
}

export function parseBboxLayout(xhtml: string): ReadPage[] {
  const pages: ReadPage[] = []
  for (const [, w, h, body] of xhtml.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)) {
    const words: ReadWord[] = []
    for (const [, x0, y0, x1, y1, t] of body.matchAll(/<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)<\/word>/g)) {
      const text = unescape(t)
      const [a, b, c, d] = [x0, y0, x1, y1].map(Number)
      words.push({ text, ...sized(text, a, b, c, d) })
    }
    pages.push({ width: Number(w), height: Number(h), words })
  }
  return pages
}

/** The pages of several PDFs (one or more pages each), in order, through one pdfunite and one pdftotext. */
export function readPdfs(files: string[], dir: string): ReadPage[] {
  if (!files.length) return []
  const all = join(dir, 'all.pdf')
  if (files.length === 1) execFileSync('cp', [files[0], all])
  else execFileSync('pdfunite', [...files, all])
  return parseBboxLayout(execFileSync('pdftotext', ['-bbox-layout', all, '-'], { maxBuffer: 1 << 30 }).toString('utf8'))
}

/** A word as poppler boxes it, unadjusted (its box from the font's ascent and descent). */
export type PopplerWord = Pick<ReadWord, 'text' | 'x0' | 'y0' | 'x1' | 'y1'>

/** The first page of one PDF as pdftotext -bbox-layout gives it: its size and its words' boxes, as poppler drew them. */
export function popplerWords(pdf: string): { words: PopplerWord[]; page: { width: number; height: number } } {
  const r = spawnSync('pdftotext', ['-bbox-layout', pdf, '-'], { encoding: 'utf8' })
  if (r.error) throw new Error('pdftotext (poppler-utils) is needed: bash scripts/setup.sh --test installs it')
  const page = /<page width="([\d.]+)" height="([\d.]+)"/.exec(r.stdout)!
  const words = [...r.stdout.matchAll(/<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    text: unescape(m[5]),
    x0: Number(m[1]),
    y0: Number(m[2]),
    x1: Number(m[3]),
    y1: Number(m[4]),
  }))
  return { words, page: { width: Number(page[1]), height: Number(page[2]) } }
}

const HAN = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]/u

/**
 * What is wrong with a figure's page as read back: not the width asked (or, on a page that does
 * not grow, the height), a word off the page, under its floor or over another, a token label
 * drawn fewer times than `labels` says.
 */
export function pageProblems(
  name: string,
  p: ReadPage,
  spec: { width: number; height: number; fontSize: number },
  grows: boolean,
  labels: Map<string, number>,
): string[] {
  const out: string[] = []
  const floors = floorsFor(spec.fontSize)
  if (Math.abs(p.width - spec.width) > 0.01) out.push(`${name}: page ${p.width} wide`)
  if (grows ? p.height < spec.height - 0.01 : Math.abs(p.height - spec.height) > 0.01) out.push(`${name}: page ${p.height} tall`)
  const say = (w: ReadPage['words'][number]) => `"${w.text}" (${w.size.toFixed(2)} pt at ${w.x0.toFixed(1)},${w.y0.toFixed(1)})`
  for (const w of p.words) {
    if (w.x0 < -0.5 || w.y0 < -0.5 || w.x1 > p.width + 0.5 || w.y1 > p.height + 0.5) out.push(`${name}: ${say(w)} leaves the page`)
    // A head's stats line ("1.04 b · d .80") reads back as numbers and their one-letter names.
    const floor = NUMBER.test(w.text) || /^[bda·]$/.test(w.text) ? floors.number : floors.label
    if (w.size < floor - 0.05) out.push(`${name}: ${say(w)} is under ${floor} pt`)
  }
  const ws = [...p.words].sort((a, b) => a.x0 - b.x0)
  for (let i = 0; i < ws.length; i++)
    for (let j = i + 1; j < ws.length && ws[j].x0 < ws[i].x1 - 0.3; j++) {
      const [a, b] = [ws[i], ws[j]]
      if (Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0.3 && Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.3)
        out.push(`${name}: ${say(a)} overlaps ${say(b)}`)
    }
  const have = new Map<string, number>()
  const add = (t: string) => have.set(t, (have.get(t) ?? 0) + 1)
  // Poppler joins characters set close together into one word, and Chinese has no spaces:
  // each Chinese character of a word counts on its own as well.
  for (const w of p.words) {
    add(w.text)
    if (HAN.test(w.text) && [...w.text].length > 1) for (const ch of w.text) if (HAN.test(ch)) add(ch)
  }
  for (const [label, k] of labels) {
    // A label of several words (a word-mode label with a space) is there when its words are;
    // a Chinese one when its characters are.
    const parts = (HAN.test(label) ? [...label].filter((ch) => HAN.test(ch)) : label.split(/\s+/)).filter(Boolean)
    if (!parts.length) continue
    const found = Math.min(...parts.map((t) => have.get(t) ?? 0))
    if (found < k) out.push(`${name}: label "${label}" drawn ${found} of ${k} times`)
  }
  return out
}

const counted = (...lists: string[][]) => {
  const out = new Map<string, number>()
  for (const list of lists) {
    const here = new Map<string, number>()
    for (const t of list) here.set(t, (here.get(t) ?? 0) + 1)
    // A label drawn in several maps of one figure must be there at least as often as in the fullest.
    for (const [t, k] of here) out.set(t, Math.max(out.get(t) ?? 0, k))
  }
  return out
}
const both = (t: Translation) => [...t.srcTokens, ...t.tgtTokens]

/** The token labels a figure must carry, with how often each occurs. */
export function labelsOf(data: FigureData): Map<string, number> {
  // A part of a split figure (issue 40): its own output steps.
  const cut = <T extends { tgtTokens: string[] }>(t: T): T => ('rows' in data && data.rows ? { ...t, tgtTokens: t.tgtTokens.slice(...data.rows) } : t)
  // A part across the source: its own source positions.
  const cols = 'cols' in data ? data.cols : undefined
  const src = <T extends { srcTokens: string[] }>(t: T): T => (cols ? { ...t, srcTokens: t.srcTokens.slice(...cols) } : t)
  switch (data.view) {
    case 'heatmap':
      return counted([...src(data.translation).srcTokens, ...cut(data.translation).tgtTokens])
    case 'lines': {
      // A part of the lines draws its stretch of the source and the words its lines reach.
      const t = data.translation
      const shown = data.rows ? partSource(t.attention, t.srcTokens.length, data.rows, data.threshold) : t.srcTokens.map((_, s) => s)
      return counted([...shown.map((s) => t.srcTokens[s]), ...cut(t).tgtTokens])
    }
    case 'positions': {
      // A part has its output steps, and the sentence's source words or at least those its steps look at.
      if (!data.rows) return counted(both(data.translation))
      const t = data.translation
      const S = t.srcTokens.length
      const [lo, hi] = partExtent(t.positions!, t.windows!, data.rows, S, [-1, S])
      return counted([...t.srcTokens.slice(Math.max(0, lo), hi + 1), ...cut(t).tgtTokens])
    }
    case 'heads':
      // The grid of small maps split off a long sentence's average carries no token labels (read on the average's axes).
      return data.panel === 'grid' ? new Map() : counted(both(cut(data.translation)))
    case 'local':
    case 'step':
      return counted(src(data.translation).srcTokens)
    case 'comparison':
      return counted(...data.translations.map((t) => t.tgtTokens))
    case 'whatif': {
      // A part shows the new run's steps and the same stretch of the original run, scaled to its length.
      const before = data.rows ? data.result.original.tgtTokens.slice(...originalRows(data.result, data.rows)) : data.result.original.tgtTokens
      return counted(before, cut(data.result.modified).tgtTokens, both(src(cut(data.result.modified))))
    }
    case 'sidebyside': {
      // A part shows the same stretch of both outputs: the longer one's steps, scaled to the shorter.
      const steps = Math.max(data.a.tgtTokens.length, data.b.tgtTokens.length)
      const sources = Math.max(data.a.srcTokens.length, data.b.srcTokens.length)
      const side = (t: Translation) => ({
        ...t,
        tgtTokens: data.rows ? t.tgtTokens.slice(...sideRows(t, data.rows, steps)) : t.tgtTokens,
        srcTokens: data.cols ? t.srcTokens.slice(...sideCols(t, data.cols, sources)) : t.srcTokens,
      })
      return counted(both(side(data.a)), both(side(data.b)))
    }
    case 'contributions':
      return counted([...src(data.translation).srcTokens, ...cut(data.translation).tgtTokens])
    case 'occlusion':
      return counted([...data.occlusion.srcWords, ...(data.rows ? data.occlusion.tgtTokens.slice(...data.rows) : data.occlusion.tgtTokens)])
    case 'goldlinks':
      return counted([...(data.cols ? data.srcWords.slice(...data.cols) : data.srcWords), ...(data.rows ? data.tgtWords.slice(...data.rows) : data.tgtWords)])
    case 'beam':
      // Pruned hypotheses are drawn only where the page has room for them.
      return counted(data.translation.beamTree!.nodes.filter((n) => n.status !== 'pruned').map((n) => n.token))
    default:
      return new Map()
  }
}
