/**
 * The figure renderer's thread. ECharts' server-side rendering, resvg and PDFKit are synchronous,
 * and a 4× PNG takes seconds: on Electron's main thread that freezes the window, in browser mode
 * it stalls every other call. Here they block only this thread. The data is checked here as well,
 * so a large matrix is not walked on the main thread a second time.
 */
import { parentPort } from 'node:worker_threads'
import { rpcServer, type Request, type Response } from '../../shared/rpc'
import { parseFigure } from '../../shared/figure'
import { renderFigure } from './figure'

/** The calls the figure worker answers (src/shared/rpc.ts, as the engine's). */
export type FigureMethods = {
  /** One figure file's bytes; data and spec are checked against the figure schema first (a RefusedError). */
  render(data: unknown, spec: unknown): Promise<Uint8Array>
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
  },
  (msg: Response, transfer) => port.postMessage(msg, transfer),
  { transfer: (bytes) => [(bytes as Uint8Array).buffer as ArrayBuffer] },
)
port.on('message', (req: FigureRequest) => serve(req))
