/**
 * The export preview's side of its fit worker (figure-fit.worker.ts): one worker, started on first
 * use, each fit answered by its id. Where no worker can start or it fails, the fit runs on this
 * thread instead, as it did before the worker, so the preview never goes without.
 */
import { fitFigure, textsFirstRender, type FitAlternative } from '../../../shared/charts/fit'
import type { LensError } from '../../../shared/errors'
import type { FigureData, FigureSpec } from '../../../shared/figure'
import { screenMeasure, screenSvg } from './fit-screen'
import { fittedPages, type FitCancel, type FitReply, type FitRequest } from './figure-fit-pages'

export type FittedPage = Extract<FitReply, { fitted: unknown }>['fitted']
export type RefusedPage = Extract<FitReply, { refused: unknown }>['refused']
/** One fit: the page, or the refusal (and, asked, what fits instead). */
export type PreviewFit = { fitted: FittedPage } | { refused: RefusedPage }

let worker: Worker | null = null
let broken = false
let next = 0
const waiting = new Map<number, (fit: PreviewFit | null) => void>()

function start(): Worker | null {
  if (worker || broken) return worker
  try {
    worker = new Worker(new URL('./figure-fit.worker.ts', import.meta.url), { type: 'module' })
  } catch {
    broken = true
    return null
  }
  worker.onmessage = (e: MessageEvent<FitReply>) => {
    const r = e.data
    const done = waiting.get(r.id)
    waiting.delete(r.id)
    done?.('failed' in r ? null : r)
  }
  // A worker that cannot load or fails: every fit in progress runs here instead, and so do the next.
  worker.onerror = () => {
    worker?.terminate()
    worker = null
    broken = true
    for (const done of waiting.values()) done(null)
    waiting.clear()
  }
  return worker
}

/** The fitter's candidates on this thread: their texts alone, and whole where the fit is kept. */
const fitSvg = textsFirstRender((option, width, height) => screenSvg(option, width, height))

/** The fit on this thread: the page's SVG, or the refusal. */
export function fitHere(data: FigureData, spec: FigureSpec, alternatives: boolean): PreviewFit {
  try {
    const fit = fitFigure(data, spec, screenMeasure, fitSvg, { alternatives })
    return { fitted: fittedPages(fit) }
  } catch (e) {
    if ((e as Error).name !== 'RefusedError') throw e
    const details = (e as LensError).details as { alternatives?: FitAlternative[] } | undefined
    return { refused: { message: (e as Error).message, alternatives: details?.alternatives ?? [] } }
  }
}

/**
 * The figure fitted to its page on the worker (plain data: snapshots, not reactive proxies), or here
 * where there is none; null once `signal` aborts (the preview's settings changed): the worker then
 * drops the fit if it has not begun it.
 */
export async function fitPreview(data: FigureData, spec: FigureSpec, alternatives: boolean, signal?: AbortSignal): Promise<PreviewFit | null> {
  const w = start()
  if (!w) return fitHere(data, spec, alternatives)
  const id = ++next
  const got = await new Promise<PreviewFit | null>((resolve) => {
    waiting.set(id, resolve)
    signal?.addEventListener('abort', () => {
      if (!waiting.delete(id)) return
      w.postMessage({ cancel: id } satisfies FitCancel)
      resolve(null)
    })
    w.postMessage({ id, data, spec, alternatives } satisfies FitRequest)
  })
  if (signal?.aborted) return null
  return got ?? fitHere(data, spec, alternatives)
}
