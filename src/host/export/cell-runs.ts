/**
 * A heatmap's cells joined, row by row, into one rectangle per run of the same colour, for the
 * PDF. ECharts draws a cell as its own path: a forecast's attention over four weeks of history is
 * 18 800 of them, 16 000 the same dark colour, and svg-to-pdfkit parses and lays out each one
 * (2 to 3 CPU s of a forecast's PDF, a third of that after; issue 40, "Performance"). A run is
 * only cells that follow each other in the SVG, on the same row, of the same opaque fill with no
 * stroke, each touching or overlapping the one before: their union is the one rectangle, painted
 * where the first was and under everything painted after. Rasterised at 300 dpi the forecast's
 * pixels are the same but along a row's top and bottom edge, where two overlapping cells had
 * painted the antialiased edge twice.
 */

/** A cell as ECharts' SVG renderer writes it: a closed rectangle path, its other attributes. */
const CELL = /<path d="M([-\d.]+) ([-\d.]+)l([\d.]+) 0l0 ([\d.]+)l-([\d.]+) 0Z"([^>]*)><\/path>/y

/** A gap this small between two cells is a rounding of their coordinates, not a gap. */
const TOUCH = 0.05

interface Cell {
  x: number
  y: string
  w: number
  h: string
  /** Its attributes but the data index ECharts tags it with. */
  look: string
  attrs: string
}

/** Whether a cell's look can join others: an opaque fill and no outline. */
const joinable = (look: string) => /\sfill="(#[\da-f]{3,6}|rgb\([\d,]+\))"/i.test(look) && !/stroke|opacity|url\(/.test(look)

const num = (v: number) => String(Math.round(v * 1000) / 1000)

export function joinCellRuns(svg: string): string {
  const out: string[] = []
  let run: { first: Cell; end: number } | null = null
  const flush = () => {
    if (!run) return
    const { first, end } = run
    const w = num(end - first.x)
    out.push(`<path d="M${num(first.x)} ${first.y}l${w} 0l0 ${first.h}l-${w} 0Z"${first.attrs}></path>`)
    run = null
  }
  let at = 0
  let copied = 0
  while (at < svg.length) {
    const next = svg.indexOf('<path d="M', at)
    if (next < 0) break
    CELL.lastIndex = next
    const m = CELL.exec(svg)
    if (!m || m[3] !== m[5]) {
      at = next + 1
      continue
    }
    const attrs = m[6]
    const cell: Cell = { x: Number(m[1]), y: m[2], w: Number(m[3]), h: m[4], look: attrs.replace(/\secmeta_data_index="\d+"/, ''), attrs }
    const between = svg.slice(copied, next)
    const follows = run !== null && between.trim() === ''
    if (
      follows &&
      run!.first.y === cell.y &&
      run!.first.h === cell.h &&
      run!.first.look === cell.look &&
      cell.x >= run!.first.x &&
      cell.x <= run!.end + TOUCH
    ) {
      run!.end = Math.max(run!.end, cell.x + cell.w)
    } else {
      flush()
      out.push(between)
      if (joinable(cell.look)) run = { first: cell, end: cell.x + cell.w }
      else out.push(m[0])
    }
    at = copied = CELL.lastIndex
  }
  flush()
  out.push(svg.slice(copied))
  return out.join('')
}
