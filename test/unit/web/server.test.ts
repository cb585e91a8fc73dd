import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from '../../spawn-sync'
import type { Channel } from '../../../src/shared/routes'
import { DEFAULT_FIGURE, FIGURE_PARTS_TYPE } from '../../../src/shared/figure'
import { startWebServer, type WebServer } from '../../../src/web/server'
import { BUNDLED_MODELS, FIXTURE_MODELS, tempDir, tiny } from '../../helpers'

let web: WebServer
let configDir: string
let rendererDir: string
const call = (channel: Channel, args: unknown[], headers: Record<string, string> = { 'x-al-token': web.token }) =>
  fetch(`${web.url}api/${channel}`, { method: 'POST', headers, body: JSON.stringify(args) })
const upload = (name: string, bytes: Buffer | string) =>
  fetch(`${web.url}api/models:open-dropped`, {
    method: 'POST',
    headers: { 'x-al-token': web.token, 'x-file-name': name },
    body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
  })
/** The files under the upload folder, however deep. */
const uploaded = () => (existsSync(web.uploadDir) ? readdirSync(web.uploadDir, { recursive: true }).filter((f) => String(f).endsWith('.onnx')) : null)

/** The page's cookie, from the terminal's link. */
async function signedIn(): Promise<string> {
  const login = await fetch(web.loginUrl, { redirect: 'manual' })
  return login.headers.get('set-cookie')!.split(';')[0]
}

describe('browser-mode host', () => {
  beforeAll(async () => {
    configDir = tempDir()
    process.env.AL_CONFIG_DIR = configDir
    // A file beside the renderer's folder, which no address may reach.
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.txt'), 'not for the page')
    rendererDir = join(outside, 'renderer')
    mkdirSync(rendererDir)
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>Attention Lens</title></head><body></body></html>')
    web = await startWebServer({ modelsDir: FIXTURE_MODELS, rendererDir, configDir })
  })
  afterAll(() => web?.close())

  it('listens on 127.0.0.1 only', () => {
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(web.loginUrl).toBe(`${web.url}?token=${web.token}`)
    expect((web.server.address() as { address: string }).address).toBe('127.0.0.1')
  })

  it('the token link sets an HttpOnly SameSite=Strict cookie and redirects to a clean address; the page needs that cookie', async () => {
    expect((await fetch(web.url)).status).toBe(403)
    expect((await fetch(`${web.url}?token=${'0'.repeat(64)}`, { redirect: 'manual' })).status).toBe(403)
    const login = await fetch(web.loginUrl, { redirect: 'manual' })
    expect(login.status).toBe(302)
    expect(login.headers.get('location')).toBe('/')
    const setCookie = login.headers.get('set-cookie')!
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/SameSite=Strict/)
    const cookie = setCookie.split(';')[0]
    const page = await fetch(web.url, { headers: { cookie } })
    expect(page.status).toBe(200)
    // The page itself carries no token.
    expect(await page.text()).not.toContain(web.token)
    const list = await call('models:list', [], { cookie })
    expect(list.status).toBe(200)
    expect(((await list.json()) as { result: unknown[] }).result).toHaveLength(5)
  })

  it('refuses API calls without the cookie or header, and never takes the token from the query', async () => {
    expect((await call('models:list', [], { 'x-al-token': 'wrong' })).status).toBe(403)
    expect((await call('models:list', [], {})).status).toBe(403)
    expect((await call('models:list', [], { cookie: `al_token_${new URL(web.url).port}=wrong` })).status).toBe(403)
    expect((await fetch(`${web.url}api/models:list?token=${web.token}`, { method: 'POST', body: '[]' })).status).toBe(403)
    expect((await fetch(`${web.url}api/events?token=${web.token}`)).status).toBe(403)
    const denied = (await (await call('models:list', [], {})).json()) as { error: { name: string } }
    expect(denied.error.name).toBe('ForbiddenError')
  })

  it('keeps its token in the config folder (0600), so a restarted server takes the same link', async () => {
    const file = join(configDir, 'browser-token')
    expect(readFileSync(file, 'utf8').trim()).toBe(web.token)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const again = await startWebServer({ modelsDir: FIXTURE_MODELS, rendererDir, configDir })
    try {
      expect(again.token).toBe(web.token)
      expect(again.url).not.toBe(web.url)
    } finally {
      await again.close()
    }
  })

  it('refuses requests for another Host (DNS rebinding) or from another Origin', async () => {
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const r = request(`${web.url}api/models:list`, { method: 'POST', headers: { 'x-al-token': web.token, ...headers } }, (res) => resolve(res.statusCode!))
        r.end('[]')
      })
    expect(await status({ host: 'evil.example:80' })).toBe(403)
    expect(await status({ origin: 'http://evil.example' })).toBe(403)
    expect(await status({})).toBe(200)
    const page = await new Promise<number>((resolve) =>
      request(web.loginUrl, { headers: { host: 'rebound.example' } }, (res) => resolve(res.statusCode!)).end(),
    )
    expect(page).toBe(403)
  })

  it('serves the same API: list, open, translate; errors come back with their name', async () => {
    const list = (await (await call('models:list', [])).json()) as { result: { id: string; fileName: string }[] }
    expect(list.result.map((m) => m.fileName)).toEqual([
      'tiny-bahdanau.onnx',
      'tiny-local-m.onnx',
      'tiny-local-p.onnx',
      'tiny-none.onnx',
      'tiny-transformer.onnx',
    ])
    const id = list.result[0].id
    expect(id).toBe('bundled:tiny-bahdanau.onnx')
    const opened = (await (await call('models:open', [id])).json()) as { result: { attention: string } }
    expect(opened.result.attention).toBe('bahdanau')
    const t = (await (await call('translate:run', [{ modelId: id, text: 'A dog.' }])).json()) as { result: { srcTokens: string[] } }
    expect(t.result.srcTokens).toEqual(['a', 'dog', '.', '</s>'])
    const bad = (await (await call('models:open', ['file:/etc/passwd'])).json()) as { error: { name: string; message: string } }
    expect(bad.error).toMatchObject({ name: 'UnknownModelError', message: 'That model is not in the list; pick it again or open the file.' })
    const refused = (await (await call('models:open', [42])).json()) as { error: { name: string } }
    expect(refused.error.name).toBe('RefusedError')
  })

  it('serves no file outside the renderer folder, however the path is encoded', async () => {
    const cookie = await signedIn()
    const get = (path: string) => fetch(`${web.url}${path}`, { headers: { cookie } })
    expect((await get('index.html')).status).toBe(200)
    for (const path of ['..%2fsecret.txt', '%2e%2e%2fsecret.txt', '..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd', 'x%2f..%2f..%2fsecret.txt']) {
      const r = await get(path)
      const text = await r.text()
      expect(r.status, path).toBe(404)
      expect(text).not.toContain('not for the page')
      expect(text).not.toContain('root:')
    }
  })

  it('every response carries the content security policy and nosniff, refusals and errors included', async () => {
    const cookie = await signedIn()
    const responses = [
      await fetch(web.url, { headers: { cookie } }),
      await fetch(web.url),
      await call('models:list', []),
      await call('models:list', [], {}),
      await fetch(`${web.url}missing.js`, { headers: { cookie } }),
      await fetch(`${web.url}favicon.ico`),
    ]
    for (const r of responses) {
      expect(r.headers.get('x-content-type-options'), r.url).toBe('nosniff')
      expect(r.headers.get('content-security-policy'), r.url).toMatch(/default-src 'self'; script-src 'self';.*frame-ancestors 'none'/)
    }
  })

  it('has a favicon, so the page load asks for nothing that is not there', async () => {
    const r = await fetch(`${web.url}favicon.ico`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('image/svg+xml')
    expect(await r.text()).toMatch(/^<svg /)
  })

  it("refuses a body over its route's limit with 413 as soon as it says or sends too much, before reading the rest", async () => {
    // 20 MB of text to translate, with a Content-Length: refused from the header alone.
    const big = JSON.stringify([{ modelId: 'bundled:tiny-bahdanau.onnx', text: 'a'.repeat(20 * 1024 * 1024) }])
    const sized = await fetch(`${web.url}api/translate:run`, { method: 'POST', headers: { 'x-al-token': web.token }, body: big })
    expect(sized.status).toBe(413)
    expect(((await sized.json()) as { error: { name: string; message: string } }).error).toMatchObject({
      name: 'TooLargeError',
      message: 'The translate:run request is larger than the 2 MB it may have.',
    })
    // The same without a length (chunked): refused once 2 MB have arrived.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${web.url}api/translate:run`, { method: 'POST', headers: { 'x-al-token': web.token } }, (res) => resolve(res.statusCode!))
      req.on('error', reject)
      const chunk = Buffer.alloc(256 * 1024, 'a')
      let sent = 0
      const more = () => {
        while (sent < 80 && !req.destroyed) {
          sent++
          if (!req.write(chunk)) return void req.once('drain', more)
        }
        req.end()
      }
      more()
    })
    expect(status).toBe(413)
    // A route with a larger limit reads past 2 MB (and browser mode answers that the page saves files itself).
    const csv = await call('export:data', ['a.csv', 'x'.repeat(3 * 1024 * 1024)], { 'x-al-token': web.token })
    expect(csv.status).toBe(200)
    expect(((await csv.json()) as { error: { name: string } }).error.name).toBe('UnsupportedError')
  })

  it('an uploaded file that is not a model is refused with one sentence (a ContractError) and deleted', async () => {
    const r = await upload('notes.onnx', 'definitely not protobuf '.repeat(10))
    const body = (await r.json()) as { error: { name: string; message: string } }
    expect(body.error.name).toBe('ContractError')
    expect(body.error.message).toMatch(/^The file is not an ONNX model/)
    expect(uploaded()).toEqual([])
  })

  it('an uploaded model lives while it is open: replacing it deletes it and drops it from the recent files', async () => {
    const opened = (await (await upload('mine.onnx', readFileSync(tiny('local-p')))).json()) as { result: { id: string; attention: string } }
    expect(opened.result.attention).toBe('local-p')
    expect(uploaded()).toHaveLength(1)
    const listed = (await (await call('models:list', [])).json()) as { result: { id: string; fileName: string }[] }
    expect(listed.result.map((m) => m.fileName)).toContain('mine.onnx')
    expect(listed.result.find((m) => m.fileName === 'mine.onnx')!.id).not.toContain(web.uploadDir)
    await call('models:open', ['bundled:tiny-none.onnx'])
    expect(uploaded()).toEqual([])
    const after = (await (await call('models:list', [])).json()) as { result: { fileName: string }[] }
    expect(after.result.map((m) => m.fileName)).not.toContain('mine.onnx')
  })

  it('a missing page file is 404; a failure elsewhere is a 500 that names its cause, not "Not found."', async () => {
    const cookie = await signedIn()
    const missing = await fetch(`${web.url}missing.js`, { headers: { cookie } })
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe('Not found.')
    const dir = tempDir()
    const settings = join(dir, 'settings.json')
    const other = await startWebServer({ modelsDir: FIXTURE_MODELS, rendererDir, configDir: dir })
    try {
      const r = await fetch(`${other.url}api/models:open-dropped`, {
        method: 'POST',
        headers: { 'x-al-token': other.token, 'x-file-name': 'swept.onnx' },
        body: new Uint8Array(readFileSync(tiny('none'))),
      })
      expect(((await r.json()) as { result: { attention: string } }).result.attention).toBe('none')
      // settings.json becomes a folder that is not empty: every later save fails (EISDIR or ENOTEMPTY),
      // the one while the replaced upload is swept, after the route has answered, included.
      rmSync(settings, { force: true })
      mkdirSync(join(settings, 'blocked'), { recursive: true })
      const post = (channel: Channel, args: unknown[]) =>
        fetch(`${other.url}api/${channel}`, { method: 'POST', headers: { 'x-al-token': other.token }, body: JSON.stringify(args) })
      await post('models:list', [])
      const replaced = await post('models:open', ['bundled:tiny-none.onnx'])
      expect(replaced.status).toBe(500)
      const error = ((await replaced.json()) as { error: { message: string } }).error
      expect(error.message).not.toBe('Not found.')
      expect(error.message).toMatch(/settings\.json/)
    } finally {
      rmSync(settings, { recursive: true, force: true })
      await other.close()
    }
  })

  it('uploads are deleted when the server stops', async () => {
    const other = await startWebServer({ modelsDir: FIXTURE_MODELS, rendererDir, configDir: tempDir() })
    const r = await fetch(`${other.url}api/models:open-dropped`, {
      method: 'POST',
      headers: { 'x-al-token': other.token, 'x-file-name': 'kept.onnx' },
      body: new Uint8Array(readFileSync(tiny('none'))),
    })
    expect(((await r.json()) as { result: { attention: string } }).result.attention).toBe('none')
    expect(readdirSync(other.uploadDir, { recursive: true }).filter((f) => String(f).endsWith('kept.onnx'))).toHaveLength(1)
    await other.close()
    expect(existsSync(other.uploadDir)).toBe(false)
  })
})

describe('browser mode with several clients at once', () => {
  let server: WebServer
  // A bundled model: its beam search over a long sentence runs for a second or more.
  const MODEL = 'bundled:en-fr-bahdanau.onnx'
  const translate = async (text: string, client?: string, extra: Record<string, unknown> = {}) => {
    const headers: Record<string, string> = { 'x-al-token': server.token, ...(client ? { 'x-al-client': client } : {}) }
    const r = await fetch(`${server.url}api/translate:run`, { method: 'POST', headers, body: JSON.stringify([{ modelId: MODEL, text, ...extra }]) })
    return (await r.json()) as { result?: { text: string }; error?: { name: string } }
  }
  beforeAll(async () => {
    server = await startWebServer({ modelsDir: BUNDLED_MODELS, rendererDir: tempDir(), configDir: tempDir() })
    await fetch(`${server.url}api/models:list`, { method: 'POST', headers: { 'x-al-token': server.token }, body: '[]' })
    await translate('A dog.') // the model is open and warm
  }, 60_000)
  afterAll(() => server?.close())

  it('two pages, each translating 100 sentences one after another while the other does, lose none', async () => {
    const page = async (client: string) => {
      const errors: string[] = []
      for (let i = 0; i < 100; i++) {
        const r = await translate(`A dog number ${i} runs.`, client)
        if (!r.result) errors.push(r.error?.name ?? 'no answer')
      }
      return errors
    }
    const [a, b] = await Promise.all([page('page-a'), page('page-b')])
    expect([...a, ...b]).toEqual([])
  }, 120_000)

  it('within one page a newer sentence still cancels the older one', async () => {
    // Beam 16 over 300 tokens decodes for several hundred milliseconds (how long depends on where the
    // model stops): the newer sentence, sent 50 ms later, arrives while it decodes.
    const slow = translate('a dog runs on the beach near the water while a man watches '.repeat(30), 'page-c', { beam: 16 })
    await new Promise((r) => setTimeout(r, 50))
    const fast = translate('A dog.', 'page-c')
    expect((await slow).error?.name).toBe('CancelledError')
    expect((await fast).result?.text).toBeTypeOf('string')
  }, 60_000)

  it('a script without a client id sending 20 at once gets 20 answers', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => translate(`A cat number ${i} sleeps.`)))
    expect(answers.filter((a) => a.result).length).toBe(20)
  }, 60_000)

  it('a 25-word heatmap at the defaults (16:9 slide, lecture text) is split: every part as its own SVG, every page of one PDF', async () => {
    const sentence = 'A little girl in a pink dress is running on the beach while her older brother and their dog are chasing the seagulls near the water .'
    const r = await fetch(`${server.url}api/translate:run`, {
      method: 'POST',
      headers: { 'x-al-token': server.token },
      body: JSON.stringify([{ modelId: MODEL, text: sentence }]),
    })
    const translation = ((await r.json()) as { result: { tgtTokens: string[] } }).result
    const figure = (format: string) =>
      fetch(`${server.url}api/export:figure`, {
        method: 'POST',
        headers: { 'x-al-token': server.token },
        body: JSON.stringify([
          { view: 'heatmap', translation },
          { ...DEFAULT_FIGURE, format },
        ]),
      })
    const svg = await figure('svg')
    expect(svg.status).toBe(200)
    expect(svg.headers.get('content-type')).toBe(FIGURE_PARTS_TYPE)
    const { type, parts } = (await svg.json()) as { type: string; parts: { suffix: string; base64: string }[] }
    expect(type).toBe('image/svg+xml')
    expect(parts.length).toBeGreaterThanOrEqual(2)
    expect(parts.map((p) => p.suffix)).toEqual(parts.map((_, i) => `-${i + 1}`))
    // Each part is a whole SVG file, and the parts are different slides.
    const files = parts.map((p) => Buffer.from(p.base64, 'base64').toString('utf8'))
    for (const f of files) {
      expect(f.slice(0, 300)).toMatch(/<svg[\s>]/)
      expect(f.trimEnd().endsWith('</svg>')).toBe(true)
    }
    expect(new Set(files).size).toBe(parts.length)
    // The PDF holds the same parts as its pages (poppler counts them).
    const pdf = await figure('pdf')
    expect(pdf.headers.get('content-type')).toBe('application/pdf')
    const path = join(tempDir(), 'split.pdf')
    writeFileSync(path, Buffer.from(await pdf.arrayBuffer()))
    expect(execFileSync('pdfinfo', [path], { encoding: 'utf8' })).toMatch(new RegExp(`Pages:\\s+${parts.length}\\n`))
  }, 120_000)

  it('refuses a client id that is not a short token', async () => {
    const r = await fetch(`${server.url}api/translate:run`, {
      method: 'POST',
      headers: { 'x-al-token': server.token, 'x-al-client': 'a b/c' },
      body: JSON.stringify([{ modelId: MODEL, text: 'A dog.' }]),
    })
    expect(r.status).toBe(400)
    expect(((await r.json()) as { error: { name: string } }).error.name).toBe('RefusedError')
  })
})
