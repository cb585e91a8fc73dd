/**
 * Browser mode: the same renderer and the same API as the Electron app, over HTTP on 127.0.0.1.
 * For machines without a display and for the end-to-end tests. Every API call must carry the
 * per-run token that is written into the page, so another local user's page cannot drive it.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { extname, join, normalize, sep } from 'node:path'
import { Channels, type Envelope } from '../shared/api'
import { EngineClient } from '../host/engine-client'
import { forkEngine } from '../host/engine-fork'
import { LensHost } from '../host/lens-host'
import { defaultCacheDir, defaultConfigDir, SettingsStore } from '../host/settings-store'
import { appPaths } from '../host/paths'
import { checkArgs } from '../shared/validate'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
}
const MAX_BODY = 600 * 1024 * 1024
const FIGURE_TYPES: Record<string, string> = { png: 'image/png', svg: 'image/svg+xml', pdf: 'application/pdf' }

export interface WebServer {
  url: string
  token: string
  server: Server
  close(): Promise<void>
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const c of req) {
    size += (c as Buffer).length
    if (size > MAX_BODY) throw new Error('The upload is larger than 600 MB.')
    chunks.push(c as Buffer)
  }
  return Buffer.concat(chunks)
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(JSON.stringify(payload))
}

/** Server-sent events: one stream per page carries every event channel. */
export const EVENTS_PATH = 'events'

export async function startWebServer(opts: { port?: number; modelsDir?: string; rendererDir?: string } = {}): Promise<WebServer> {
  const paths = appPaths()
  const rendererDir = opts.rendererDir ?? paths.renderer
  const engine = new EngineClient(() => forkEngine())
  const host = new LensHost(
    engine,
    { models: opts.modelsDir ?? paths.models, testsets: paths.testsets, series: paths.series, cache: join(defaultCacheDir(), 'eval') },
    new SettingsStore(join(defaultConfigDir(), 'settings.json')),
  )
  const token = randomBytes(24).toString('hex')
  const uploads = await mkdtemp(join(tmpdir(), 'attention-lens-'))
  const events = new Set<ServerResponse>()
  const emit = (channel: string, payload: unknown) => {
    for (const res of events) res.write(`event: ${channel}\ndata: ${JSON.stringify(payload)}\n\n`)
  }
  host.onEngineStatus((s) => emit(Channels.engineStatus, s))
  host.onCorpusProgress((p) => emit(Channels.corpusProgress, p))

  const api: Record<string, (args: unknown[], req: IncomingMessage) => Promise<unknown>> = {
    [Channels.modelsList]: () => host.listModels(),
    [Channels.modelsOpen]: ([id]) => host.openModel(String(id)),
    [Channels.translateRun]: ([req]) => host.translate(req as never),
    [Channels.translateCancel]: () => host.cancelTranslate(),
    [Channels.compareRun]: ([req]) => host.compare(req as never),
    [Channels.whatIfRun]: ([req]) => host.whatIf(req as never),
    [Channels.forcedRun]: ([req]) => host.forced(req as never),
    [Channels.corpusRun]: ([req]) => host.runCorpus(req as never),
    [Channels.corpusCancel]: () => host.cancelCorpus(),
    [Channels.appNotice]: () => host.takeNotice(),
    [Channels.forecastSeries]: () => host.forecastSeries(),
    [Channels.forecastRun]: ([req]) => host.forecast(req as never),
    [Channels.providersList]: () => host.listProviders(),
    [Channels.providersSet]: ([name]) => host.setProvider(String(name)),
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    // Only pages served from this very address may talk to it: a foreign Host is a DNS-rebinding
    // page that would otherwise read the token from index.html; a foreign Origin is another site.
    const port = (server.address() as { port: number }).port
    const allowed = [`127.0.0.1:${port}`, `localhost:${port}`]
    const origin = req.headers.origin
    if (!allowed.includes(req.headers.host ?? '') || (origin !== undefined && !allowed.some((a) => origin === `http://${a}`))) {
      return send(res, 403, { error: 'Requests must come from the page this server serves.' })
    }
    try {
      if (url.pathname.startsWith('/api/')) {
        const given = req.headers['x-al-token'] ?? url.searchParams.get('token')
        if (given !== token) return send(res, 403, { error: 'Missing or wrong API token.' })
        const channel = decodeURIComponent(url.pathname.slice(5))
        if (channel === EVENTS_PATH && req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
          res.write(': connected\n\n')
          events.add(res)
          req.on('close', () => events.delete(res))
          return
        }
        if (req.method !== 'POST') return send(res, 405, { error: 'Use POST.' })
        if (channel === Channels.exportFigure) {
          // The figure's bytes themselves; the page turns them into a download or a clipboard item.
          try {
            const args = JSON.parse((await body(req)).toString('utf8')) as unknown[]
            checkArgs(channel, args)
            const [data, spec] = args as [never, { format: string }]
            const bytes = await host.renderFigure(data, spec as never)
            res.writeHead(200, { 'content-type': FIGURE_TYPES[spec.format] ?? 'application/octet-stream', 'cache-control': 'no-store' })
            return res.end(bytes)
          } catch (e) {
            return send(res, 400, { error: (e as Error).message })
          }
        }
        let envelope: Envelope<unknown>
        try {
          if (channel === Channels.modelsOpenDropped) {
            const name = String(req.headers['x-file-name'] ?? 'model.onnx').replace(/[^\w.-]/g, '_')
            const file = join(await mkdtemp(join(uploads, 'f')), name)
            await writeFile(file, await body(req))
            envelope = { result: await host.openPath(file) }
          } else {
            const handler = api[channel]
            if (!handler) return send(res, 404, { error: `No API call named ${channel}.` })
            const args = JSON.parse((await body(req)).toString('utf8') || '[]') as unknown
            if (!Array.isArray(args)) return send(res, 400, { error: 'The request body must be a JSON array.' })
            checkArgs(channel, args)
            envelope = { result: await handler(args, req) }
          }
        } catch (e) {
          envelope = { error: (e as Error).message }
        }
        return send(res, 200, envelope)
      }
      const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '')
      const file = normalize(join(rendererDir, rel))
      if (!file.startsWith(rendererDir + sep)) return send(res, 404, { error: 'Not found.' })
      let data = await readFile(file)
      if (rel === 'index.html') {
        data = Buffer.from(data.toString('utf8').replace('<head>', `<head><meta name="al-token" content="${token}">`))
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
      res.end(data)
    } catch {
      if (!res.headersSent) send(res, 404, { error: 'Not found.' })
    }
  })
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}/`,
    token,
    server,
    close: async () => {
      for (const r of events) r.end()
      engine.dispose()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}
