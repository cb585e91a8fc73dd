/**
 * A chart's texts as its SVG would write them, and nothing else of it: the text elements that
 * renderToSVGString writes, each by the painter's own code (zrender's brushSVGTSpan), without
 * drawing the shapes, which were most of the writing. What reads only the texts' boxes
 * (layoutProblems: presentation mode's fitting of a slide) reads the same boxes from it.
 */
import type { EChartsType } from 'echarts/core'
import TSpan from 'zrender/lib/graphic/TSpan.js'
import { brushSVGTSpan } from 'zrender/lib/svg/graphic.js'
import { createBrushScope, vNodeToString } from 'zrender/lib/svg/core.js'

/** The `<text>` elements of the chart's SVG (as renderToSVGString writes them), one a line. */
export function textsSvg(chart: EChartsType): string {
  const zr = chart.getZr()
  // The scope renderToSVGString paints with (zrender's SVGPainter.renderToString), so that each
  // text is written as there: its classes and ids differ, its font, place and turn do not.
  const scope = createBrushScope(`zr${zr.id}`)
  Object.assign(scope, { animation: true, emphasis: true, willUpdate: false, compress: true, ssr: true })
  const out: string[] = []
  for (const el of zr.storage.getDisplayList(true)) {
    if (el.invisible || !(el instanceof TSpan)) continue
    const node = brushSVGTSpan(el, scope)
    if (node) out.push(vNodeToString(node))
  }
  return out.join('\n')
}
