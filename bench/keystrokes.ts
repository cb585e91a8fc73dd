/**
 * One page runs BLEU by length (every en→fr model on the bundled test set, no cached result) while
 * another types: how long each of the typing page's translations takes, for one checkout's src/
 * (first argument, default this one), so before and after can be run interleaved:
 *
 *   npx tsx bench/keystrokes.ts [SRC_ROOT] [--alone]
 *
 * Prints one JSON line: the keystrokes' latencies in ms (sorted) and whether the corpus run was
 * still going when the last keystroke was answered.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const root = resolve(args.find((a) => !a.startsWith('--')) ?? join(__dirname, '..'))
  // --alone: the same typing with no BLEU run beside it, for reference.
  const alone = args.includes('--alone')
  process.env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), 'al-bench-cache-')) // no cached BLEU
  const { startWebServer } = (await import(join(root, 'src', 'web', 'server.ts'))) as typeof import('../src/web/server')
  const web = await startWebServer({
    modelsDir: join(root, 'resources', 'models'),
    rendererDir: mkdtempSync(join(tmpdir(), 'al-bench-')),
    configDir: mkdtempSync(join(tmpdir(), 'al-bench-')),
  })
  const post = (channel: string, args: unknown[], client: string) =>
    fetch(`${web.url}api/${channel}`, { method: 'POST', headers: { 'x-al-token': web.token, 'x-al-client': client }, body: JSON.stringify(args) })
  try {
    const listed = (await (await post('models:list', [], 'typing')).json()) as { result: { id: string; srcLang: string; tgtLang: string; task: string }[] }
    // Every en→fr model of the pair: a run of a minute or more.
    const pair = listed.result.filter((m) => m.task === 'translation' && m.srcLang === 'en' && m.tgtLang === 'fr').map((m) => m.id)
    const model = 'bundled:en-fr-bahdanau.onnx'
    await post('translate:run', [{ modelId: model, text: 'A dog.' }], 'typing')
    let corpusDone = false
    const corpus = alone ? Promise.resolve() : post('corpus:run', [{ modelIds: pair }], 'scoring').then(() => (corpusDone = true))
    await new Promise((r) => setTimeout(r, 1000)) // the run is under way
    const latencies: number[] = []
    const words = 'A man in a blue shirt is standing on a ladder cleaning windows .'.split(' ')
    for (let i = 1; i <= words.length; i++) {
      const t0 = performance.now()
      await post('translate:run', [{ modelId: model, text: words.slice(0, i).join(' ') }], 'typing')
      latencies.push(Math.round(performance.now() - t0))
      await new Promise((r) => setTimeout(r, 150)) // typing speed
    }
    const stillScoring = !alone && !corpusDone
    await post('corpus:cancel', [], 'scoring')
    await corpus
    latencies.sort((a, b) => a - b)
    console.log(JSON.stringify({ root, latencies, median: latencies[latencies.length >> 1], stillScoring }))
  } finally {
    await web.close()
  }
}

void main()
