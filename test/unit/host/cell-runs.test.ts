import { describe, expect, it } from 'vitest'
import { joinCellRuns } from '../../../src/host/export/cell-runs'

const cell = (x: number, y: number, w: number, h: number, look = 'fill="rgb(68,1,84)"', i = 0) =>
  `<path d="M${x} ${y}l${w} 0l0 ${h}l-${w} 0Z" ${look} ecmeta_data_index="${i}"></path>`

describe('joinCellRuns: a row of heatmap cells of one colour as one rectangle, for the PDF', () => {
  it('joins touching or overlapping cells of a row, keeping the first cell at its place among the others', () => {
    const svg = `<svg><text>a</text>${cell(10, 5, 2.4, 3, undefined, 0)}\n${cell(11.9, 5, 2.4, 3, undefined, 1)}${cell(14.3, 5, 2, 3, undefined, 2)}<text>b</text></svg>`
    expect(joinCellRuns(svg)).toBe(`<svg><text>a</text><path d="M10 5l6.3 0l0 3l-6.3 0Z" fill="rgb(68,1,84)" ecmeta_data_index="0"></path><text>b</text></svg>`)
  })

  it('breaks a run at another colour, another row, a gap, or anything drawn between', () => {
    const other = cell(12, 5, 2, 3, 'fill="rgb(1,2,3)"')
    for (const next of [other, cell(12, 8, 2, 3), cell(12.5, 5, 2, 3)]) {
      const svg = cell(10, 5, 2, 3) + next
      expect(joinCellRuns(svg)).toBe(svg)
    }
    const between = `${cell(10, 5, 2, 3)}<text>x</text>${cell(12, 5, 2, 3)}`
    expect(joinCellRuns(between)).toBe(between)
  })

  it('leaves cells with an outline, a gradient or some transparency as they are', () => {
    for (const look of ['fill="#fff" stroke="#000"', 'fill="url(#g)"', 'fill="#fff" fill-opacity="0.5"']) {
      const svg = cell(10, 5, 2, 3, look) + cell(12, 5, 2, 3, look)
      expect(joinCellRuns(svg)).toBe(svg)
    }
  })
})
