/**
 * The export preview's fit, off the page's main thread (issue 40): fitting a figure to its page
 * lays it out and draws it as SVG again and again (as asked, the other way, split into slides,
 * smaller), half a second to a second and a half of CPU for a 25-word sentence, and a refusal's
 * search for what fits instead as much again. Here the dialog stays responsive meanwhile, and only
 * the fitted page's SVG comes back to be shown. Text is measured as the page measures it (the
 * figure font family, by the browser's canvas), so the fit is the one the preview drew before.
 */
import * as echarts from 'echarts/core'
import { SVGRenderer } from 'echarts/renderers'
import { CHART_PARTS } from '../../../shared/charts/echarts-parts'
import { fitFigure, textsFirstRender, type FitAlternative, type RenderSvg } from '../../../shared/charts/fit'
import { FIGURE_FONT, type Measure } from '../../../shared/charts/frame'
import { normaliseText } from '../../../shared/charts/text-boxes'
import type { LensError } from '../../../shared/errors'
import { fittedPages, type FitCancel, type FitReply, type FitRequest } from './figure-fit-pages'
import { fitQueue } from './fit-queue'

echarts.use([...CHART_PARTS, SVGRenderer])

const context = new OffscreenCanvas(1, 1).getContext('2d')!

const measure: Measure = (text, size, bold) => {
  context.font = `${bold ? 'bold ' : ''}${size}px ${FIGURE_FONT}`
  return context.measureText(text).width
}

// ECharts measures its own labels with a canvas it would make from the document, which a worker has not.
echarts.setPlatformAPI({
  measureText: (text: string, font?: string) => {
    context.font = font ?? `12px ${FIGURE_FONT}`
    return { width: context.measureText(text).width }
  },
})

/** The fitter's candidates: their texts alone, and whole where the fit is kept (textsFirstRender). */
const render: RenderSvg = textsFirstRender((option, width, height) => {
  const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width, height })
  try {
    chart.setOption(option)
    return normaliseText(chart.renderToSVGString())
  } finally {
    chart.dispose()
  }
})

const post = (reply: FitReply) => (self as unknown as { postMessage: (m: FitReply) => void }).postMessage(reply)

function fit({ id, data, spec, alternatives }: FitRequest): void {
  try {
    const fit = fitFigure(data, spec, measure, render, { alternatives })
    post({ id, fitted: fittedPages(fit) })
  } catch (err) {
    const e2 = err as LensError
    if (e2?.name !== 'RefusedError') return post({ id, failed: String(e2?.message ?? err) })
    post({ id, refused: { message: e2.message, alternatives: (e2.details as { alternatives?: FitAlternative[] } | undefined)?.alternatives ?? [] } })
  }
}

const queue = fitQueue<FitRequest>(fit, (id) => post({ id, failed: 'cancelled' }))

self.onmessage = (e: MessageEvent<FitRequest | FitCancel>) => {
  if ('cancel' in e.data) queue.cancel(e.data.cancel)
  else queue.push(e.data)
}
