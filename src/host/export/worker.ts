/**
 * The figure renderer's thread. ECharts' server-side rendering, resvg and PDFKit are synchronous,
 * and a 4× PNG takes seconds: on Electron's main thread that freezes the window, in browser mode
 * it stalls every other call. Here they block only this thread. The data is checked here as well,
 * so a large matrix is not walked on the main thread a second time.
 */
import { parentPort } from 'node:worker_threads'
import { encodeError, type EncodedError } from '../../shared/errors'
import { parseFigure } from '../../shared/figure'
import { renderFigure } from './figure'

export interface FigureJob {
  id: number
  data: unknown
  spec: unknown
}
export type FigureReply = { id: number; bytes: Uint8Array } | { id: number; error: EncodedError }

const port = parentPort!
port.on('message', async (job: FigureJob) => {
  let reply: FigureReply
  try {
    const { data, spec } = parseFigure(job.data, job.spec)
    // A copy with an ArrayBuffer of its own (Buffers of a few KB share a pool), so it can be moved, not cloned.
    reply = { id: job.id, bytes: new Uint8Array(await renderFigure(data, spec)) }
  } catch (e) {
    reply = { id: job.id, error: encodeError(e) }
  }
  port.postMessage(reply, 'bytes' in reply ? [reply.bytes.buffer as ArrayBuffer] : [])
})
