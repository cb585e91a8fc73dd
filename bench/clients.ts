/**
 * Browser mode with several callers at once (issues 25 and 27), for one build of src/ given as
 * the first argument (default: this checkout's), so the code before a change can be measured
 * interleaved with the code after it:
 *
 *   npx tsx bench/clients.ts [SRC_ROOT] [--per-client 100]
 *
 * Prints one JSON line: of two pages each translating N sentences one after another while the
 * other does (en-fr-bahdanau), how many came back cancelled; and how long a 20 MB translate:run takes to be refused.
 */
import { join, resolve } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { request } from 'node:http'

const args = process.argv.slice(2)
const root = resolve(args.find((a) => !a.startsWith('--')) ?? join(__dirname, '..'))
const perClient = Number(args[args.indexOf('--per-client') + 1] ?? 100) || 100
/** A bundled model, as users translate with (resources/models). */
const MODEL_FILE = 'en-fr-bahdanau.onnx'

async function main(): Promise<void> {
  const { startWebServer } = (await import(join(root, 'src', 'web', 'server.ts'))) as typeof import('../src/web/server')
  const web = await startWebServer({
    modelsDir: join(root, 'resources', 'models'),
    rendererDir: mkdtempSync(join(tmpdir(), 'al-bench-')),
    configDir: mkdtempSync(join(tmpdir(), 'al-bench-')),
  })
  const post = (channel: string, body: string, client?: string) =>
    fetch(`${web.url}api/${channel}`, { method: 'POST', headers: { 'x-al-token': web.token, ...(client ? { 'x-al-client': client } : {}) }, body })
  try {
    await post('models:list', '[]')
    const model = `bundled:${MODEL_FILE}`
    await post('translate:run', JSON.stringify([{ modelId: model, text: 'A dog.' }]))
    const page = async (client: string) => {
      let lost = 0
      for (let i = 0; i < perClient; i++) {
        const r = (await (await post('translate:run', JSON.stringify([{ modelId: model, text: `A dog number ${i} runs.` }]), client)).json()) as {
          result?: unknown
        }
        if (!r.result) lost++
      }
      return lost
    }
    const started = performance.now()
    const lost = (await Promise.all([page('bench-a'), page('bench-b')])).reduce((a, b) => a + b, 0)
    const twoClientsS = (performance.now() - started) / 1000
    // Time from sending to the answer's status line: a server that refuses from the header answers
    // while the body is still on its way (the client stops sending then).
    const big = Buffer.from(JSON.stringify([{ modelId: model, text: 'a'.repeat(20 * 1024 * 1024) }]))
    const refusals: number[] = []
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now()
      statuses.push(
        await new Promise<number>((done) => {
          const req = request(`${web.url}api/translate:run`, { method: 'POST', headers: { 'x-al-token': web.token, 'content-length': big.length } }, (res) => {
            refusals.push(performance.now() - t0)
            res.resume()
            req.destroy()
            done(res.statusCode ?? 0)
          })
          req.on('error', () => undefined) // the server may close while the body is still being written
          req.end(big)
        }),
      )
    }
    refusals.sort((a, b) => a - b)
    console.log(
      JSON.stringify({
        root,
        requests: 2 * perClient,
        lost,
        twoClientsS: +twoClientsS.toFixed(2),
        refusal20MbMs: refusals.map((x) => Math.round(x)),
        statuses,
      }),
    )
  } finally {
    await web.close()
  }
}

void main()
