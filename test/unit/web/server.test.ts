import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Channels } from '../../../src/shared/api'
import { startWebServer, type WebServer } from '../../../src/web/server'
import { FIXTURE_MODELS, tempDir } from '../../helpers'

let web: WebServer
const call = (channel: string, args: unknown[], token = web.token) =>
  fetch(`${web.url}api/${channel}`, { method: 'POST', headers: { 'x-al-token': token }, body: JSON.stringify(args) })

describe('browser-mode host', () => {
  beforeAll(async () => {
    process.env.AL_CONFIG_DIR = tempDir()
    web = await startWebServer({ modelsDir: FIXTURE_MODELS, rendererDir: tempDir() })
  })
  afterAll(() => web.close())

  it('listens on 127.0.0.1 only', () => {
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect((web.server.address() as { address: string }).address).toBe('127.0.0.1')
  })

  it('refuses API calls without the per-run token', async () => {
    expect((await call(Channels.modelsList, [], 'wrong')).status).toBe(403)
    expect((await fetch(`${web.url}api/${Channels.modelsList}`, { method: 'POST', body: '[]' })).status).toBe(403)
  })

  it('refuses requests for another Host (DNS rebinding) or from another Origin', async () => {
    const { request } = await import('node:http')
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const r = request(`${web.url}api/${Channels.modelsList}`, { method: 'POST', headers: { 'x-al-token': web.token, ...headers } }, (res) => resolve(res.statusCode!))
        r.end('[]')
      })
    expect(await status({ host: 'evil.example:80' })).toBe(403)
    expect(await status({ origin: 'http://evil.example' })).toBe(403)
    expect(await status({})).toBe(200)
    const page = await new Promise<number>((resolve) => request(web.url, { headers: { host: 'rebound.example' } }, (res) => resolve(res.statusCode!)).end())
    expect(page).toBe(403)
  })

  it('serves the same API: list, open, translate; errors come back as messages', async () => {
    const list = (await (await call(Channels.modelsList, [])).json()) as { result: { id: string; fileName: string }[] }
    expect(list.result.map((m) => m.fileName)).toEqual(['tiny-bahdanau.onnx', 'tiny-local-m.onnx', 'tiny-local-p.onnx', 'tiny-none.onnx'])
    const id = list.result[0].id
    expect(id).toBe('bundled:tiny-bahdanau.onnx')
    const opened = (await (await call(Channels.modelsOpen, [id])).json()) as { result: { attention: string } }
    expect(opened.result.attention).toBe('bahdanau')
    const t = (await (await call(Channels.translateRun, [{ modelId: id, text: 'A dog.' }])).json()) as {
      result: { srcTokens: string[] }
    }
    expect(t.result.srcTokens).toEqual(['a', 'dog', '.', '</s>'])
    const bad = (await (await call(Channels.modelsOpen, ['file:/etc/passwd'])).json()) as { error: string }
    expect(bad.error).toBe('That model is not in the list; pick it again or open the file.')
  })

  it('an uploaded file that is not a model is refused with one sentence', async () => {
    const r = await fetch(`${web.url}api/${Channels.modelsOpenDropped}`, {
      method: 'POST',
      headers: { 'x-al-token': web.token, 'x-file-name': 'notes.onnx' },
      body: 'definitely not protobuf '.repeat(10),
    })
    const body = (await r.json()) as { error: string }
    expect(body.error).toMatch(/^The file is not an ONNX model/)
  })
})
