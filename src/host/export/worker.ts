/**
 * The figure renderer's thread. ECharts' server-side rendering, resvg and PDFKit are synchronous,
 * and a 4× PNG takes seconds: on Electron's main thread that freezes the window, in browser mode
 * it stalls every other call. Here they block only this thread. The data is checked here as well,
 * so a large matrix is not walked on the main thread a second time.
 */
import { parentPort } from 'node:worker_threads'
import { rpcServer, type Request, type Response } from '../../shared/rpc'
import { parseFigure } from '../../shared/figure'
import { AnimationSettingsSchema, isAnimated } from '../../shared/animation'
import { RefusedError } from '../../shared/errors'
import * as v from 'valibot'
import { renderFigure, renderFigureFiles } from './figure'
import { renderAnimation } from './animation'

/** The calls the figure worker answers (src/shared/rpc.ts, as the engine's). */
export type FigureMethods = {
  /** One figure file's bytes; data and spec are checked against the figure schema first (a RefusedError). */
  render(data: unknown, spec: unknown): Promise<Uint8Array>
  /** A figure's files (a split PNG or SVG: one per part, with its suffix), checked as render's. */
  renderFiles(data: unknown, spec: unknown): Promise<{ suffix: string; bytes: Uint8Array }[]>
  /** An animated GIF or APNG of a view over its decoder steps (issue 34); checked as render's, and the settings too. */
  animate(data: unknown, spec: unknown, settings: unknown): Promise<Uint8Array>
}
export type FigureRequest = Request<FigureMethods>

const port = parentPort!
const serve = rpcServer<FigureMethods>(
  {
    render: async (_ctx, rawData, rawSpec) => {
      const { data, spec } = parseFigure(rawData, rawSpec)
      // A copy with an ArrayBuffer of its own (Buffers of a few KB share a pool), so it can be moved, not cloned.
      return new Uint8Array(await renderFigure(data, spec))
    },
    renderFiles: async (_ctx, rawData, rawSpec) => {
      const { data, spec } = parseFigure(rawData, rawSpec)
      return (await renderFigureFiles(data, spec)).map(({ suffix, bytes }) => ({ suffix, bytes: new Uint8Array(bytes) }))
    },
    animate: async (ctx, rawData, rawSpec, rawSettings) => {
      const { data, spec } = parseFigure(rawData, rawSpec)
      const settings = v.safeParse(AnimationSettingsSchema, rawSettings)
      if (!settings.success) throw new RefusedError(`The animation settings were refused: ${settings.issues[0].message}.`)
      if (!isAnimated(data)) throw new RefusedError(`The ${data.view} view does not animate: heatmap, step-through and local attention do.`)
      // Progress a frame at a time; a cancel stops it between frames (an AbortError).
      const onProgress = (done: number, total: number) => ctx.progress({ done, total })
      return new Uint8Array((await renderAnimation(data, spec, { ...settings.output, onProgress, signal: ctx.signal })).bytes)
    },
  },
  (msg: Response, transfer) => port.postMessage(msg, transfer),
  {
    transfer: (result) =>
      Array.isArray(result) ? result.map((f: { bytes: Uint8Array }) => f.bytes.buffer as ArrayBuffer) : [(result as Uint8Array).buffer as ArrayBuffer],
  },
)
port.on('message', (req: FigureRequest) => serve(req))
