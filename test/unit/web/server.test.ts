import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Channel } from '../../../src/shared/routes'
import { startWebServer, type WebServer } from '../../../src/web/server'
import { FIXTURE_MODELS, tempDir, tiny } from '../../helpers'

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

describe('browser-mode host', () => {
  beforeAll(async () => {
    configDir = tempDir()
    process.env.AL_CONFIG_DIR = configDir
    rendererDir = tempDir()
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
