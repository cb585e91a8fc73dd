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

  it('a multilingual folder given another language pair keeps its files until another model replaces it', async () => {
    // The open model's path then asks for the pair (DIR?src_lang=…&tgt_lang=…): the sweep after the
    // language change took it for another model's and deleted the folder, and every later read of
    // its files (contributions, the Alignment score) failed with ENOENT.
    const src = join(ROOT, 'test', 'fixtures', 'hf', 'm2m100')
    const send = readdirSync(src).map((f) => `m2m100/${f}`)
    let opened: { result?: { id: string; languages: string[] | null; srcLang: string; tgtLang: string } } = {}
    for (const p of send)
      opened = (await (await part(p, new Uint8Array(readFileSync(join(src, p.slice(7)))), 'upload-m2m-0001', send.length)).json()) as typeof opened
    const info = opened.result!
    const onDisk = () =>
      readdirSync(web.uploadDir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.onnx')).length
    expect(onDisk()).toBe(2)
    // The other way round: the fixture has a few languages only.
    const [srcLang, tgtLang] = [info.tgtLang, info.srcLang]
    expect(info.languages).toContain(srcLang)
    const post = (channel: string, args: unknown[]) =>
      fetch(`${web.url}api/${channel}`, { method: 'POST', headers: { 'x-al-token': web.token }, body: JSON.stringify(args) }).then(
        (r) => r.json() as Promise<{ result?: { id: string; srcLang: string }; error?: { message: string } }>,
      )
    const paired = await post('models:set-languages', [srcLang, tgtLang])
    expect(paired.error).toBeUndefined()
    expect(paired.result!.srcLang).toBe(srcLang)
    expect(onDisk()).toBe(2)
    const contributions = await post('contributions:run', [{ modelId: paired.result!.id, text: 'a dog .' }])
    expect(contributions.error).toBeUndefined()
    // Another model in its place: the upload goes, under either of its ids.
    const list = (await post('models:list', [])) as unknown as { result: { id: string; bundled: boolean }[] }
    await post('models:open', [list.result.find((m) => m.bundled)!.id])
    expect(onDisk()).toBe(0)
    const after = (await post('models:list', [])) as unknown as { result: { id: string }[] }
    expect(after.result.map((m) => m.id)).not.toContain(paired.result!.id)
    expect(after.result.map((m) => m.id)).not.toContain(info.id)
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
