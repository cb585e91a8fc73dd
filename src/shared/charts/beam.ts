/**
 * The beam tree on a page, laid out as the Beam view lays it out (beam-layout.ts): one column per
 * output step, the winning hypothesis in the accent colour along the top, finished ones green,
 * pruned ones faded, and a key of the four.
 */
import type { BeamTree } from '../teaching'
import { layoutBeam, type BeamLayout } from './beam-layout'
import { FIGURE_TEXT } from './figure-text'
import { keyElements, keyHeight, linePitch, textElement, type Frame, type KeyItem } from './frame'

const FINISHED = '#059669'

export function buildBeamFigure(tree: BeamTree, f: Frame): Record<string, unknown> {
  const L = FIGURE_TEXT[f.lang]
  const fs = f.fontSize
  const pad = fs * 0.15
  const color = { chosen: f.ink.accent, kept: f.ink.text, finished: FINISHED, pruned: f.ink.axis }
  // The key names the kinds of node drawn; pruned ones are left out when the page has no room.
  const keyFor = (pruned: boolean): KeyItem[] =>
    (['chosen', 'kept', 'finished', 'pruned'] as const)
      .filter((s) => tree.nodes.some((n) => n.status === s) && (pruned || s !== 'pruned'))
      .map((s) => ({ label: L.beam[s], symbol: s === 'pruned' ? 'dashed' : 'line', color: color[s] }))
  const roomFor = (key: KeyItem[]) => ({ width: f.width, height: f.height - keyHeight(key, f.width, fs, f.measure) - fs * 0.6 })
  const lay = (pruned: boolean): BeamLayout =>
    layoutBeam(tree, { pruned, row: linePitch(fs) * 1.1, prunedRow: linePitch(fs), measure: (tok) => f.measure(tok, fs) + 2 * pad, gap: fs * 0.9, start: fs })
  const fits = (l: BeamLayout, pruned: boolean) => {
    const room = roomFor(keyFor(pruned))
    return l.width <= room.width && l.height <= room.height
  }
  // Pruned branches when the view would show them (narrow beams) and the page has room for them.
  let pruned = tree.width <= 4
  let layout = lay(pruned)
  if (pruned && !fits(layout, true)) layout = lay((pruned = false))
  const key = keyFor(pruned)
  const keyH = keyHeight(key, f.width, fs, f.measure)
  const room = roomFor(key)
  // Centred in the room above the key.
  const x0 = f.x + Math.max(0, (room.width - layout.width) / 2)
  const y0 = f.y + Math.max(0, (room.height - layout.height) / 2)
  const half = (i: number) => (i < 0 ? fs * 0.25 : f.measure(tree.nodes[i].token, fs) / 2 + pad)
  const elements: Record<string, unknown>[] = []
  for (const e of layout.edges) {
    const status = e.to.node!.status
    const [x1, y1] = [x0 + e.from.x + half(e.from.index), y0 + e.from.y]
    const [x2, y2] = [x0 + e.to.x - half(e.to.index), y0 + e.to.y]
    elements.push({
      type: 'bezierCurve',
      silent: true,
      shape: { x1, y1, x2, y2, cpx1: (x1 + x2) / 2, cpy1: y1, cpx2: (x1 + x2) / 2, cpy2: y2 },
      style: {
        fill: 'none',
        stroke: color[status],
        lineWidth: status === 'chosen' ? Math.max(1, fs / 8) : Math.max(0.5, fs / 20),
        lineDash: status === 'pruned' ? [fs * 0.3, fs * 0.2] : null,
        opacity: status === 'pruned' ? 0.7 : 1,
      },
    })
  }
  elements.push({ type: 'circle', silent: true, shape: { cx: x0 + layout.nodes[0].x, cy: y0 + layout.nodes[0].y, r: fs * 0.25 }, style: { fill: f.ink.text } })
  for (const p of layout.nodes) {
    if (!p.node) continue
    elements.push(textElement(p.node.token, x0 + p.x, y0 + p.y, f, { align: 'center', color: color[p.node.status] }))
  }
  elements.push(...keyElements(key, f.x, f.y + f.height - keyH, f.width, f).elements)
  return { animation: false, graphic: { elements }, cramped: !fits(layout, pruned) }
}
