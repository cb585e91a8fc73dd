/**
 * Browser mode: the same renderer and the same API as the Electron app, over HTTP on 127.0.0.1.
 * For machines without a display and for the end-to-end tests. Signing in works like Jupyter's:
 * the terminal prints a link with a token; opening it trades the token for an HttpOnly,
 * SameSite=Strict cookie and drops it from the address bar. Without that cookie (or, for scripts
 * and tests, an `x-al-token` header) every request is refused, the page included.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createWriteStream } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { tmpdir } from 'node:os'
import { dirname, extname, join, normalize, sep } from 'node:path'
import { encodeError, envelope, LensError } from '../shared/errors'
import { modelFile } from '../shared/model-id'
import { dispatch, parseArgs, type EventChannel, type Payload } from '../shared/routes'
import { EngineClient } from '../host/engine-client'
import { forkEngine } from '../host/engine-fork'
import { forwardEvents, lensHandlers, type Caller, type Transport } from '../host/handlers'
import { LensHost } from '../host/lens-host'
import { defaultCacheDir, defaultConfigDir, SettingsStore } from '../host/settings-store'
import { appPaths } from '../host/paths'
import { bodyLimit, sizeText } from './limits'
import { FIGURE_PARTS_TYPE } from '../shared/figure'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
}
const FIGURE_TYPES: Record<string, string> = { png: 'image/png', svg: 'image/svg+xml', pdf: 'application/pdf' }
/** The port `npm run web` listens on unless AL_PORT says otherwise: a fixed one keeps the page's origin, and with it its saved session. */
export const DEFAULT_PORT = 5177
/** Server-sent events: one stream per page carries every event channel. */
export const EVENTS_PATH = 'events'
const COOKIE_DAYS = 30

export interface WebServer {
  /** http://127.0.0.1:PORT/ */
  url: string
  /** The link to open: the URL with the token, traded for a cookie on first visit. */
  loginUrl: string
  token: string
  /** Where uploaded model files live while they are open; removed on close. */
  uploadDir: string
  server: Server
  close(): Promise<void>
}

/** The token in `<config>/browser-token` (0600), made on first start, so a bookmarked link survives a restart. */
export async function browserToken(configDir: string): Promise<string> {
  const file = join(configDir, 'browser-token')
  const known = (await readFile(file, 'utf8').catch(() => '')).trim()
  if (/^[0-9a-f]{64}$/.test(known)) {
    await chmod(file, 0o600)
    return known
  }
  const token = randomBytes(32).toString('hex')
  await mkdir(configDir, { recursive: true, mode: 0o700 })
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, token + '\n', { mode: 0o600 })
  await rename(tmp, file)
  return token
}

/**
 * Every response says what it is and where it may run: the renderer's own policy (as in its
 * index.html) and no MIME sniffing, so an upload or an API answer is never run as a page.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** The tab's icon: a small attention heatmap (without it the browser asks for /favicon.ico on every load and gets a 404). */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="2" fill="#440154"/>' +
  '<rect x="1" y="1" width="4" height="4" fill="#fde725"/><rect x="6" y="6" width="4" height="4" fill="#fde725"/>' +
  '<rect x="11" y="11" width="4" height="4" fill="#fde725"/><rect x="6" y="1" width="4" height="4" fill="#21918c"/>' +
  '<rect x="11" y="6" width="4" height="4" fill="#21918c"/><rect x="1" y="6" width="4" height="4" fill="#3b528b"/></svg>'

class TooLargeError extends LensError {
  constructor(channel: string, limit: number) {
    super(`The ${channel} request is larger than the ${sizeText(limit)} it may have.`, { name: 'TooLargeError', code: 'too-large' })
  }
}

/** The request body, refused as soon as it passes `limit`: by its Content-Length, else as the bytes arrive. */
async function body(req: IncomingMessage, channel: string): Promise<Buffer> {
  const limit = bodyLimit(channel)
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new TooLargeError(channel, limit)
  const chunks: Buffer[] = []
  let size = 0
  for await (const c of req) {
    size += (c as Buffer).length
    if (size > limit) throw new TooLargeError(channel, limit)
    chunks.push(c as Buffer)
  }
  return Buffer.concat(chunks)
}

/**
 * The request body written to `file` as it arrives, never held in memory (a folder's .onnx_data
 * may be many GB): refused as soon as it passes the route's limit (by its Content-Length, else as
 * the bytes arrive) or, by its Content-Length, where the disk has no room for it. A refused or
 * broken upload leaves no partial file.
 */
async function saveBody(req: IncomingMessage, file: string, channel: string): Promise<void> {
  const limit = bodyLimit(channel)
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limit) throw new TooLargeError(channel, limit)
  const disk = await statfs(dirname(file)).catch(() => null)
  if (disk && declared > disk.bavail * disk.bsize) throw new NoRoomError(declared, disk.bavail * disk.bsize)
  let size = 0
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length
      done(size > limit ? new TooLargeError(channel, limit) : null, chunk)
    },
  })
  try {
    await pipeline(req, count, createWriteStream(file))
  } catch (e) {
    await rm(file, { force: true })
    throw e
  }
}

class NoRoomError extends LensError {
  constructor(size: number, free: number) {
    super(`The upload is ${sizeText(size)} and the server's temporary folder has ${sizeText(free)} free.`, { name: 'NoRoomError', code: 'too-large' })
  }
}

/** What reading a page file throws when there is no such file. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR'])

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(JSON.stringify(payload))
}

/** 413 for a body over its route's limit (the rest is not read: the connection closes), else 400 or 200. */
function sendError(res: ServerResponse, e: unknown, status = 400): void {
  if (e instanceof TooLargeError) {
    res.setHeader('connection', 'close')
    return send(res, 413, { error: encodeError(e) })
  }
  send(res, status, { error: encodeError(e) })
}

/** A page's client id (x-al-client): letters, digits, - and _, at most 64; a script sends none. */
function callerOf(req: IncomingMessage): Caller {
  const id = req.headers['x-al-client']
  if (id === undefined) return { client: null }
  if (typeof id !== 'string' || !/^[\w-]{1,64}$/.test(id)) {
    throw new LensError('The x-al-client header must be 1 to 64 letters, digits, - or _.', { name: 'RefusedError', code: 'refused' })
  }
  return { client: `page:${id}` }
}

function forbidden(res: ServerResponse, message: string): void {
  send(res, 403, { error: encodeError(new LensError(message, { name: 'ForbiddenError', code: 'forbidden' })) })
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=')
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
  return undefined
}

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Browser mode has no dialogs and no clipboard of its own: the page downloads and copies. */
const browserTransport: Transport = {
  pickModel: async () => null,
  save: async () => {
    throw new LensError('In browser mode the page saves files as downloads.', { name: 'UnsupportedError', code: 'unsupported' })
  },
  saveParts: async () => {
    throw new LensError('In browser mode the page saves files as downloads.', { name: 'UnsupportedError', code: 'unsupported' })
  },
  copyPng: async () => {
    throw new LensError('In browser mode the page copies figures itself.', { name: 'UnsupportedError', code: 'unsupported' })
  },
}

export async function startWebServer(opts: { port?: number; modelsDir?: string; rendererDir?: string; configDir?: string } = {}): Promise<WebServer> {
  const paths = appPaths()
  const rendererDir = opts.rendererDir ?? paths.renderer
  const configDir = opts.configDir ?? defaultConfigDir()
  const token = await browserToken(configDir)
  const tokenDigest = digest(token)
  // Compared in constant time, through a hash so the lengths match too.
  const isToken = (given: unknown) => typeof given === 'string' && timingSafeEqual(digest(given), tokenDigest)

  const engine = new EngineClient(() => forkEngine())
  const host = new LensHost(
    engine,
    { models: opts.modelsDir ?? paths.models, testsets: paths.testsets, series: paths.series, cache: join(defaultCacheDir(), 'eval') },
    new SettingsStore(join(configDir, 'settings.json')),
  )
  const handlers = lensHandlers(host, browserTransport)
  const uploadDir = await mkdtemp(join(tmpdir(), 'attention-lens-'))
  /** Uploaded files by path; pending while the upload is written and opened. */
  const uploads = new Map<string, { dir: string; pending: boolean }>()
  const events = new Set<ServerResponse>()
  const emit = <E extends EventChannel>(channel: E, payload: Payload<E>) => {
    for (const res of events) res.write(`event: ${channel}\ndata: ${JSON.stringify(payload)}\n\n`)
  }
  forwardEvents(host, emit)

  /** An upload is kept while it is the open model; a replaced or refused one is closed and deleted. */
  async function sweepUploads(): Promise<void> {
    for (const [file, u] of uploads) {
      // The open model's path may ask for a language pair or a precision (DIR?src_lang=en&tgt_lang=fr):
      // its files are the upload's all the same, and deleting them left every later read (contributions,
      // the Alignment score) with ENOENT.
      const open = host.currentPath
      if (u.pending || (open !== null && modelFile(open) === file)) continue
      uploads.delete(file)
      await host.forget(file)
      await rm(u.dir, { recursive: true, force: true })
    }
  }

  async function upload(req: IncomingMessage, caller: Caller): Promise<unknown> {
    let name = String(req.headers['x-file-name'] ?? '')
    try {
      name = decodeURIComponent(name)
    } catch {
      // keep it as sent; it is sanitised below
    }
    name = name.replace(/[^\w.-]/g, '_').replace(/^\.+/, '') || 'model.onnx'
    const dir = await mkdtemp(join(uploadDir, 'f'))
    const file = join(dir, name)
    const entry = { dir, pending: true }
    uploads.set(file, entry)
    try {
      await saveBody(req, file, 'models:open-dropped')
      // The server's own path for the file: the page never names one.
      return await dispatch(handlers(caller), 'models:open-dropped', [file])
    } finally {
      entry.pending = false
    }
  }

  /** Folders arriving file by file (models:open-dropped-folder), by upload id: where they go and how many files are in. */
  const folders = new Map<string, { dir: string; received: Set<string>; root: string | null }>()

  /**
   * One file of a folder: written under the upload's own directory at its path inside the folder
   * (each part cleaned as a single file name is, so nothing lands outside it). When the last of
   * `x-upload-count` files is in, the folder opens like any other model path.
   */
  async function uploadFolderPart(req: IncomingMessage, caller: Caller): Promise<unknown> {
    const id = String(req.headers['x-upload-id'] ?? '')
    const count = Number(req.headers['x-upload-count'])
    if (!/^[\w-]{8,64}$/.test(id) || !(Number.isInteger(count) && count > 0 && count <= 64)) {
      throw new LensError('A folder upload needs an x-upload-id and an x-upload-count from 1 to 64.', { name: 'RefusedError', code: 'refused' })
    }
    let name = String(req.headers['x-file-name'] ?? '')
    try {
      name = decodeURIComponent(name)
    } catch {
      // cleaned below
    }
    const parts = name
      .split('/')
      .map((p) => p.replace(/[^\w.-]/g, '_').replace(/^\.+/, ''))
      .filter(Boolean)
      .slice(-3)
    if (parts.length < 2) throw new LensError('A folder upload names each file by its path inside the folder.', { name: 'RefusedError', code: 'refused' })
    let folder = folders.get(id)
    if (!folder) {
      folder = { dir: await mkdtemp(join(uploadDir, 'd')), received: new Set(), root: null }
      folders.set(id, folder)
    }
    const file = join(folder.dir, ...parts)
    await mkdir(dirname(file), { recursive: true })
    await saveBody(req, file, 'models:open-dropped-folder')
    folder.received.add(parts.join('/'))
    folder.root ??= join(folder.dir, parts[0])
    if (folder.received.size < count) return null
    folders.delete(id)
    const entry = { dir: folder.dir, pending: true }
    uploads.set(folder.root, entry)
    try {
      return await dispatch(handlers(caller), 'models:open-dropped-folder', [folder.root])
    } finally {
      entry.pending = false
    }
  }

  async function api(req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> {
    if (channel === EVENTS_PATH && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
      res.write(': connected\n\n')
      events.add(res)
      req.on('close', () => events.delete(res))
      return
    }
    if (req.method !== 'POST') return send(res, 405, { error: encodeError(new LensError('Use POST.', { name: 'RefusedError', code: 'refused' })) })
    if (channel === 'export:figure') {
      // The figure's bytes themselves; the page turns them into a download or a clipboard item.
      try {
        const [data, spec] = parseArgs(channel, JSON.parse((await body(req, channel)).toString('utf8')))
        const files = await host.renderFigureFiles(data, spec)
        if (files.length > 1) {
          // A figure split into parts as PNG or SVG: every part, each with its suffix, for the page to download.
          const parts = files.map((f) => ({ suffix: f.suffix, base64: f.bytes.toString('base64') }))
          res.writeHead(200, { 'content-type': FIGURE_PARTS_TYPE, 'cache-control': 'no-store' })
          return void res.end(JSON.stringify({ type: FIGURE_TYPES[spec.format], parts }))
        }
        res.writeHead(200, { 'content-type': FIGURE_TYPES[spec.format] ?? 'application/octet-stream', 'cache-control': 'no-store' })
        return void res.end(files[0].bytes)
      } catch (e) {
        return sendError(res, e)
      }
    }
    if (channel === 'export:animation' || channel === 'export:animation-bytes') {
      // The animation's bytes themselves, as a figure's (issue 34); the page saves them, or encodes a video from them.
      // Its client id keys export:cancel and a newer animation from the same page.
      try {
        const { client } = callerOf(req)
        const [data, spec, settings] = parseArgs(channel, JSON.parse((await body(req, channel)).toString('utf8')))
        const bytes = await host.renderAnimation(data, spec, settings, client)
        res.writeHead(200, { 'content-type': settings.format === 'gif' ? 'image/gif' : 'image/apng', 'cache-control': 'no-store' })
        return void res.end(bytes)
      } catch (e) {
        return sendError(res, e)
      }
    }
    let caller: Caller
    let text = ''
    try {
      caller = callerOf(req)
      if (channel !== 'models:open-dropped' && channel !== 'models:open-dropped-folder') text = (await body(req, channel)).toString('utf8')
    } catch (e) {
      return sendError(res, e)
    }
    const answer = await envelope(async () => {
      if (channel === 'models:open-dropped') return upload(req, caller)
      if (channel === 'models:open-dropped-folder') return uploadFolderPart(req, caller)
      return dispatch(handlers(caller), channel, JSON.parse(text || '[]'))
    })
    await sweepUploads()
    if ('error' in answer && answer.error.name === 'TooLargeError') return sendError(res, new TooLargeError(channel, bodyLimit(channel)))
    if ('error' in answer && answer.error.name === 'NoRoomError') {
      // The rest of the body is not read: the connection closes, as for a body over its limit.
      res.setHeader('connection', 'close')
      return send(res, 413, answer)
    }
    send(res, 200, answer)
  }

  /** A file of the renderer's folder, or null for one that is not there (or lies outside it). */
  async function staticFile(pathname: string): Promise<{ file: string; bytes: Buffer } | null> {
    let rel: string
    try {
      rel = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
    } catch {
      return null
    }
    const file = normalize(join(rendererDir, rel))
    if (!file.startsWith(rendererDir + sep)) return null
    try {
      return { file, bytes: await readFile(file) }
    } catch (e) {
      if (MISSING.has((e as NodeJS.ErrnoException).code ?? '')) return null
      throw e
    }
  }

  const server = createServer((req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value)
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      // Only pages served from this very address may talk to it: a foreign Host is a DNS-rebinding
      // page; a foreign Origin is another site.
      const port = (server.address() as { port: number }).port
      const allowed = [`127.0.0.1:${port}`, `localhost:${port}`]
      const origin = req.headers.origin
      if (!allowed.includes(req.headers.host ?? '') || (origin !== undefined && !allowed.some((a) => origin === `http://${a}`))) {
        return forbidden(res, 'Requests must come from the page this server serves.')
      }
      if (req.method === 'GET' && (url.pathname === '/favicon.ico' || url.pathname === '/favicon.svg')) {
        res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=86400' })
        return void res.end(FAVICON)
      }
      const cookieName = `al_token_${port}`
      // The terminal's link: the token becomes a cookie the page cannot read, and leaves the address bar.
      if (req.method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
        if (!isToken(url.searchParams.get('token'))) return forbidden(res, 'Wrong token: open the link the terminal printed.')
        res.writeHead(302, {
          location: '/',
          'set-cookie': `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${COOKIE_DAYS * 86400}`,
          'cache-control': 'no-store',
        })
        return void res.end()
      }
      if (!isToken(cookie(req, cookieName)) && !isToken(req.headers['x-al-token'])) {
        return forbidden(res, 'Open the link the terminal printed (http://127.0.0.1:…/?token=…).')
      }
      if (url.pathname.startsWith('/api/')) return api(req, res, decodeURIComponent(url.pathname.slice(5)))
      const data = await staticFile(url.pathname)
      if (!data) return send(res, 404, { error: encodeError(new Error('Not found.')) })
      res.writeHead(200, { 'content-type': TYPES[extname(data.file)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
      res.end(data.bytes)
    })().catch((err: unknown) => {
      // Only a missing page file is a 404 (above); anything else (a settings write that failed while
      // uploads were swept) reaches the page's banner as the error it is.
      if (!res.headersSent) send(res, 500, { error: encodeError(err) })
      else res.destroy()
    })
  })
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  // AL_PORT=0 (any free port): the port of the last start while it is free, so the page's origin,
  // and with it its saved session, survives a restart; another free one when it is taken.
  const portFile = join(configDir, 'browser-port')
  const last = opts.port === 0 ? Number((await readFile(portFile, 'utf8').catch(() => '')).trim()) : 0
  try {
    if (Number.isInteger(last) && last > 0 && last < 65536) await listen(last).catch(() => listen(0))
    else await listen(opts.port ?? 0)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    engine.dispose()
    void rm(uploadDir, { recursive: true, force: true })
    throw e.code === 'EADDRINUSE'
      ? new Error(`Port ${opts.port} is in use (another Attention Lens?); set AL_PORT to another port, or to 0 for any free one.`)
      : e
  }
  const port = (server.address() as { port: number }).port
  if (opts.port === 0) await writeFile(portFile, `${port}\n`).catch(() => undefined)
  const url = `http://127.0.0.1:${port}/`
  return {
    url,
    loginUrl: `${url}?token=${token}`,
    token,
    uploadDir,
    server,
    close: async () => {
      for (const r of events) r.end()
      // Uploads go with the server: closed, out of the recent files, deleted, and remembered by
      // name as gone (a restarted page that had one open says so, instead of showing another model).
      for (const file of uploads.keys()) await host.forget(file, { gone: true })
      uploads.clear()
      engine.dispose()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
      await rm(uploadDir, { recursive: true, force: true })
    },
  }
}
