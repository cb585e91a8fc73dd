import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { folderFilesToSend } from '../../../src/shared/hf-folder-files'
import { startWebServer, type WebServer } from '../../../src/web/server'
import { FIXTURE_MODELS, ROOT, tempDir } from '../../helpers'
import { externalise } from '../engine/formats/external-data'

/**
 * Browser mode's folder upload (issue 39): each file is written to disk as it arrives (no fixed
 * cap per file, an .onnx_data of many GB included), the page sends a part's external data with
 * it, and a file the disk has no room for is refused from its Content-Length.
 */
let web: WebServer
const work = mkdtempSync(join(tmpdir(), 'al-upload-'))
const saved = process.env.AL_CACHE_DIR
beforeAll(async () => {
  process.env.AL_CACHE_DIR = join(work, 'cache')
  web = await startWebServer({ modelsDir: FIXTURE_MODELS, rendererDir: tempDir(), configDir: tempDir() })
})
afterAll(async () => {
  await web?.close()
  process.env.AL_CACHE_DIR = saved
  rmSync(work, { recursive: true, force: true })
})

const part = (path: string, body: Uint8Array<ArrayBuffer>, id: string, count: number) =>
  fetch(`${web.url}api/models:open-dropped-folder`, {
    method: 'POST',
    headers: { 'x-al-token': web.token, 'x-file-name': encodeURIComponent(path), 'x-upload-id': id, 'x-upload-count': String(count) },
    body,
  })

describe('browser mode: a model folder uploaded file by file', () => {
  it('a folder whose weights sit in .onnx_data files goes up with them and opens', async () => {
    const dir = join(work, 'marian-xd')
    externalise(join(ROOT, 'test', 'fixtures', 'hf', 'marian'), dir)
    const all = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(work, join(e.parentPath, e.name)))
    const send = folderFilesToSend(all)
    expect(send.filter((f) => f.endsWith('.onnx_data'))).toHaveLength(2)
    let last: { result?: { attention: string; heads?: unknown }; error?: { message: string } } = {}
    for (const p of send) {
      const r = await part(p, new Uint8Array(readFileSync(join(work, p))), 'upload-xd-0001', send.length)
      expect(r.status).toBe(200)
      last = (await r.json()) as typeof last
    }
    expect(last.error).toBeUndefined()
    expect(last.result?.attention).toBe('transformer')
    const stored = readdirSync(web.uploadDir, { recursive: true }).map(String)
    expect(stored.filter((f) => f.endsWith('.onnx_data'))).toHaveLength(2)
  })

  it('a file larger than the disk has room for is refused from its Content-Length (413), with the sizes', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${web.url}api/models:open-dropped-folder`,
        {
          method: 'POST',
          headers: {
            'x-al-token': web.token,
            'x-file-name': 'm/onnx/decoder_model.onnx_data',
            'x-upload-id': 'upload-big-0001',
            'x-upload-count': '3',
            'content-length': String(2 ** 52),
          },
        },
        (res) => {
          let body = ''
          res.on('data', (c: Buffer) => (body += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode!, body }))
        },
      )
      req.on('error', reject)
      req.write(Buffer.alloc(1024))
    })
    expect(answer.status).toBe(413)
    expect(answer.body).toMatch(/The upload is \d+ MB and the server's temporary folder has \d+ MB free/)
  })
})
