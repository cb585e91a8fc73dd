/**
 * The beam tree on a page, laid out as the Beam view lays it out (beam-layout.ts): one column per
 * output step, the winning hypothesis in the accent colour along the top, finished ones green,
 * pruned ones faded, and a key of the four. A tree wider than the page wraps into bands.
 */
import type { BeamTree } from '../teaching'
import { layoutBeam, type BeamLayout } from './beam-layout'
import { FIGURE_TEXT } from './figure-text'
import { keyElements, keyHeight, linePitch, textElement, type Frame, type KeyItem } from './frame'
import type { FigureOption, GraphicElement } from './echarts-parts'

const FINISHED = '#059669'

export function buildBeamFigure(tree: BeamTree, f: Frame): FigureOption {
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const pad = fs * 0.15
  const color = { chosen: f.ink.accent, kept: f.ink.text, finished: FINISHED, pruned: f.ink.axis }
  // The key names the kinds of node drawn (pruned ones are left out when the page has no room) and,
  // where the tree wraps into rows, the hollow circle a row starts a branch again from.
  const keyFor = (pruned: boolean): KeyItem[] => [
    ...(['chosen', 'kept', 'finished', 'pruned'] as const)
      .filter((s) => tree.nodes.some((n) => n.status === s) && (pruned || s !== 'pruned'))
      .map((s): KeyItem => ({ label: L.beam[s], symbol: s === 'pruned' ? 'dashed' : 'line', color: color[s] })),
    ...(bandsOf(lay(pruned)).length > 1 ? [{ label: L.beam.continued, symbol: 'dot' as const, color: f.ink.axis, fill: 'none' }] : []),
  ]
  const roomFor = (key: KeyItem[]) => ({ width: f.width, height: f.height - keyHeight(key, f.width, fs, f.measure) - fs * 0.6 })
  const gap = fs * 0.9
  const lay = (pruned: boolean): BeamLayout =>
    layoutBeam(tree, { pruned, row: linePitch(fs) * 1.1, measure: (tok) => f.measure(tok, fs) + 2 * pad, gap, start: fs })
  const bandGap = fs
  // Steps cut into bands no wider than the page, one under another (the tree wrapped like text):
  // a band after the first starts each branch again from a small circle level with its parent.
  const bandsOf = (l: BeamLayout): number[][] => {
    const bands: number[][] = [[]]
    let used = fs + gap
    l.columns.forEach((c, t) => {
      const w = c.width + gap
      if (bands[bands.length - 1].length && used + w + fs / 2 > f.width) {
        bands.push([])
        used = fs + gap
      }
      bands[bands.length - 1].push(t)
      used += w
    })
    return bands
  }
  const row = linePitch(fs) * 1.1
  /**
   * Each band keeps only the rows its nodes use (and those of the branches it starts again),
   * in their order, no further apart than a row: a later band is not as tall as the whole tree.
   */
  const rowsOf = (l: BeamLayout, bands: number[][]) =>
    bands.map((b, k) => {
      const steps = new Set(b)
      const ys = new Set<number>()
      if (k === 0) ys.add(l.nodes[0].y)
      for (const e of l.edges) {
        if (!steps.has(e.to.node!.step)) continue
        ys.add(e.to.y)
        ys.add(e.from.y)
      }
      const sorted = [...ys].sort((a, c) => a - c)
      const at = new Map<number, number>()
      let y = row / 2
      sorted.forEach((v, i) => {
        if (i) y += Math.min(v - sorted[i - 1], row)
        at.set(v, y)
      })
      return { at, height: y + row / 2 }
    })
  const size = (l: BeamLayout) => {
    const bands = bandsOf(l)
    const rows = rowsOf(l, bands)
    const widths = bands.map((b) => fs + gap + b.reduce((a, t) => a + l.columns[t].width + gap, 0) + fs / 2)
    const tops = rows.map((_, k) => rows.slice(0, k).reduce((a, r) => a + r.height + bandGap, 0))
    return { bands, rows, tops, width: Math.max(...widths), height: tops[tops.length - 1] + rows[rows.length - 1].height }
  }
  const fits = (l: BeamLayout, pruned: boolean) => {
    const room = roomFor(keyFor(pruned))
    const z = size(l)
    return z.width <= room.width && z.height <= room.height
  }
  // Pruned branches when the view would show them (narrow beams) and the page has room for them.
  let pruned = tree.width <= 4
  let layout = lay(pruned)
  if (pruned && !fits(layout, true)) layout = lay((pruned = false))
  const key = keyFor(pruned)
  const keyH = keyHeight(key, f.width, fs, f.measure)
  const room = roomFor(key)
  const { bands, rows, tops, width, height } = size(layout)
  // Centred in the room above the key.
  const left = f.x + Math.max(0, (room.width - width) / 2)
  const top = f.y + Math.max(0, (room.height - height) / 2)
  const bandOf = new Map<number, number>()
  bands.forEach((b, k) => b.forEach((t) => bandOf.set(t, k)))
  /** Where a step's column moves in its band: its x shift and its band's top. */
  const shift = (t: number) => {
    const k = bandOf.get(t) ?? 0
    const first = layout.columns[bands[k][0]]
    return { dx: left + fs + gap - (first.x - first.width / 2), y: (v: number) => top + tops[k] + rows[k].at.get(v)!, k }
  }
  const half = (i: number) => (i < 0 ? fs * 0.25 : f.measure(tree.nodes[i].token, fs) / 2 + pad)
  const elements: GraphicElement[] = []
  const dot = (cx: number, cy: number, hollow: boolean) => ({
    type: 'circle',
    silent: true,
    shape: { cx, cy, r: fs * 0.25 },
    style: hollow ? { fill: 'none', stroke: f.ink.axis, lineWidth: Math.max(0.5, fs / 16) } : { fill: f.ink.text },
  })
  const stubs = new Set<string>()
  for (const e of layout.edges) {
    const status = e.to.node!.status
    const to = shift(e.to.node!.step)
    const from = e.from.node ? shift(e.from.node.step) : null
    let x1: number
    let y1: number
    if (!from || from.k === to.k) {
      x1 = from ? from.dx + e.from.x + half(e.from.index) : left + fs / 2 + fs * 0.25
      y1 = (from ?? to).y(e.from.y)
    } else {
      // The parent is in the band above: start again from a circle at the band's left edge.
      x1 = left + fs / 2 + fs * 0.25
      y1 = to.y(e.from.y)
      const id = `${to.k} ${e.from.index}`
      if (!stubs.has(id)) elements.push(dot(left + fs / 2, y1, true))
      stubs.add(id)
    }
    const [x2, y2] = [to.dx + e.to.x - half(e.to.index), to.y(e.to.y)]
    elements.push({
      type: 'bezierCurve',
      silent: true,
      shape: { x1, y1, x2, y2, cpx1: (x1 + x2) / 2, cpy1: y1, cpx2: (x1 + x2) / 2, cpy2: y2 },
      style: {
        fill: 'none',
        stroke: color[status],
        lineWidth: status === 'chosen' ? Math.max(1, fs / 8) : Math.max(0.5, fs / 20),
        lineDash: status === 'pruned' ? [fs * 0.3, fs * 0.2] : undefined,
        opacity: status === 'pruned' ? 0.7 : 1,
      },
    })
  }
  elements.push(dot(left + fs / 2, top + rows[0].at.get(layout.nodes[0].y)!, false))
  for (const p of layout.nodes) {
    if (!p.node) continue
    const at = shift(p.node.step)
    elements.push(textElement(p.node.token, at.dx + p.x, at.y(p.y), f, { align: 'center', color: color[p.node.status] }))
  }
  elements.push(...keyElements(key, f.x, f.y + f.height - keyH, f.width, f).elements)
  return { animation: false, graphic: { elements }, series: [], cramped: !fits(layout, pruned) }
}
