/**
 * `npm run bench`: latency of translate-with-attention (greedy, every step's weights, scores and
 * local-attention outputs captured) for short, medium and long sentences, throughput over
 * Multi30K test_2016_flickr, and the same figures for the same weights in PyTorch eager when
 * Debian's python3-torch is present. Writes bench/RESULTS.md.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { scoredOrigins } from '../src/engine/forecast'
import { InferenceService } from '../src/engine/service'
import { BUNDLED_HELD_OUT_STEPS, BUNDLED_SERIES } from '../src/host/paths'
import { parseSeriesCsv } from '../src/shared/series'

const ROOT = join(__dirname, '..')
const DATA = process.env.AL_DATASETS ?? join(ROOT, '..', 'shared', 'datasets')
const MODELS = process.env.AL_MODELS_DIR ?? join(ROOT, 'resources', 'models')
const PER_GROUP = Number(process.env.AL_BENCH_SENTENCES ?? 20)
const REPS = Number(process.env.AL_BENCH_REPS ?? 3)

interface Latency {
  p50: number
  p95: number
  n: number
}

const words = (s: string) => s.trim().split(/\s+/).length
const gz = (f: string) => gunzipSync(readFileSync(join(DATA, 'multi30k', f))).toString('utf8').trim().split('\n')

function percentiles(xs: number[]): Latency {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.floor(q * (s.length - 1))]
  const mid = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
  return { p50: mid, p95: at(0.95), n: s.length }
}

function sentenceSets(pair: string): Record<string, string[]> {
  if (pair !== 'en-fr') {
    const rows = readFileSync(join(DATA, 'tatoeba-cmn-eng', 'cmn.txt'), 'utf8').split('\n').map((l) => l.split('\t')[1]).filter(Boolean)
    const len = (s: string) => [...s].length
    return {
      'short (≤10 chars)': rows.filter((s) => len(s) <= 10).slice(0, PER_GROUP),
      'medium (11-24 chars)': rows.filter((s) => len(s) > 10 && len(s) < 25).slice(0, PER_GROUP),
      'long (≥25 chars)': rows.filter((s) => len(s) >= 25).slice(0, PER_GROUP),
    }
  }
  const test = gz('test_2016_flickr.en.gz')
  const more = [...test, ...gz('val.en.gz'), ...gz('train.en.gz')]
  return {
    'short (≤10 words)': test.filter((s) => words(s) <= 10).slice(0, PER_GROUP),
    'medium (11-24 words)': test.filter((s) => words(s) > 10 && words(s) < 25).slice(0, PER_GROUP),
    'long (≥25 words)': more.filter((s) => words(s) >= 25).slice(0, PER_GROUP),
    '20 words': more.filter((s) => words(s) === 20).slice(0, PER_GROUP),
  }
}

function torchAvailable(): boolean {
  return existsSync('/usr/bin/python3') && spawnSync('/usr/bin/python3', ['-c', 'import torch, onnx'], { stdio: 'ignore' }).status === 0
}

async function main(): Promise<void> {
  const models = readdirSync(MODELS).filter((f) => f.endsWith('.onnx')).sort()
  const withTorch = torchAvailable()
  const service = new InferenceService()
  const rows: string[] = []
  const tmp = mkdtempSync(join(tmpdir(), 'al-bench-'))
  console.log(`models: ${models.length}, PyTorch eager: ${withTorch ? 'yes' : 'no (python3-torch not found)'}`)
  const forecastRows: string[] = []
  for (const file of models) {
    const path = join(MODELS, file)
    const info = await service.open(path)
    if (info.forecast) {
      forecastRows.push(await benchForecaster(service, path, file))
      console.log(forecastRows.at(-1))
      await service.close(path)
      continue
    }
    const pair = `${info.srcLang}-${info.tgtLang}`
    const sets = sentenceSets(pair)
    const ort: Record<string, Latency> = {}
    for (const [name, sents] of Object.entries(sets)) {
      for (const s of sents.slice(0, 3)) await service.translate(path, s) // warm-up
      const times: number[] = []
      for (let r = 0; r < REPS; r++) {
        for (const s of sents) {
          const t0 = performance.now()
          await service.translate(path, s)
          times.push(performance.now() - t0)
        }
      }
      ort[name] = percentiles(times)
    }
    let corpus: string[] = []
    let refs: string[] = []
    if (pair === 'en-fr') {
      corpus = gz('test_2016_flickr.en.gz')
      refs = gz('test_2016_flickr.fr.gz')
    }
    const ev = corpus.length ? await service.evaluate(path, corpus, refs) : null
    let torch: { latency: Record<string, Latency>; throughput: { seconds: number; sentences_per_second: number } | null } | null = null
    if (withTorch) {
      const job = join(tmp, 'job.json')
      writeFileSync(job, JSON.stringify({ latency: sets, reps: REPS, corpus }))
      const out = execFileSync('/usr/bin/python3', [join(ROOT, 'training', 'bench_torch.py'), path, job], {
        encoding: 'utf8',
        env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' },
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 64 * 1024 * 1024,
      })
      torch = JSON.parse(out.trim().split('\n').at(-1)!)
    }
    for (const name of Object.keys(ort)) {
      const o = ort[name]
      const t = torch?.latency[name]
      rows.push(`| ${file} | ${name} | ${o.p50.toFixed(2)} | ${o.p95.toFixed(2)} | ${t ? t.p50.toFixed(2) : '—'} | ${t ? t.p95.toFixed(2) : '—'} | ${t ? (t.p50 / o.p50).toFixed(1) + '×' : '—'} |`)
    }
    if (ev) {
      const tt = torch?.throughput
      rows.push(`| ${file} | test_2016_flickr, 1,000 sentences, batched | **${ev.sentencesPerSecond.toFixed(0)} sent/s** (${ev.seconds.toFixed(1)} s) | BLEU ${ev.bleu} | ${tt ? tt.sentences_per_second.toFixed(0) + ' sent/s' : '—'} | ${tt ? tt.seconds.toFixed(1) + ' s' : '—'} | ${tt ? (tt.seconds / ev.seconds).toFixed(1) + '×' : '—'} |`)
    }
    console.log(rows.slice(-Object.keys(ort).length - (ev ? 1 : 0)).join('\n'))
    await service.close(path)
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  const torchVersion = withTorch ? execFileSync('/usr/bin/python3', ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).trim() : 'absent'
  const ortVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8')).version as string
  const md = `# Benchmark results

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}.

**Machine**: ${cpu}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version},
onnxruntime-node ${ortVersion} (CPU provider, 1 intra-op thread), PyTorch ${torchVersion} eager (1 thread,
OpenBLAS), both decoding greedily on the same weights and the same sentences.

Latency is one sentence, translate-with-attention: tokenise, encode, greedy decode with every
step's weights, raw scores, top-5 alternatives and (local models) \`p_t\`, window and Gaussian
captured, ${REPS} passes over ${PER_GROUP} sentences per group. Sentences per second is the whole
test set in length-sorted batches of 32 on both sides. Speed-up = PyTorch time / ONNX time.

| model | sentences | ONNX p50 ms | ONNX p95 ms | PyTorch p50 ms | PyTorch p95 ms | speed-up |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

## Forecasters

One forecast is what the forecasting view asks for when the origin moves: encode 384 steps,
48 decoder steps with every step's attention (and for local-p \`p_t\`, window, Gaussian)
captured, from ${FORECAST_ORIGINS} origins spread over the held-out weeks, ${REPS} passes. The
held-out evaluation is all 625 origins in batches of 128 (MAE over 30,000 steps). ONNX only.

| model | one forecast p50 ms | p95 ms | held-out evaluation, 625 origins | MAE (MW) |
| --- | --- | --- | --- | --- |
${forecastRows.join('\n')}
`
  writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), md)
  console.log('wrote bench/RESULTS.md')
  await service.closeAll()
}

const FORECAST_ORIGINS = 24

async function benchForecaster(service: InferenceService, path: string, file: string): Promise<string> {
  const series = parseSeriesCsv(readFileSync(join(ROOT, 'resources', 'series', BUNDLED_SERIES), 'utf8'), 'taylor')
  const info = await service.open(path)
  const origins = scoredOrigins(info.forecast!, series.values.length, series.values.length - BUNDLED_HELD_OUT_STEPS)
  const picked = Array.from({ length: FORECAST_ORIGINS }, (_, i) => origins[Math.floor((i * origins.length) / FORECAST_ORIGINS)])
  for (const o of picked.slice(0, 3)) await service.forecast(path, series, o) // warm-up
  const times: number[] = []
  for (let r = 0; r < REPS; r++) {
    for (const o of picked) {
      const t0 = performance.now()
      await service.forecast(path, series, o)
      times.push(performance.now() - t0)
    }
  }
  const l = percentiles(times)
  const ev = await service.evaluateForecast(path, series, origins)
  return `| ${file} | ${l.p50.toFixed(1)} | ${l.p95.toFixed(1)} | ${ev.seconds.toFixed(2)} s (${(ev.origins / ev.seconds).toFixed(0)} forecasts/s) | ${ev.mae.toFixed(1)} |`
}

main().catch((e: Error) => {
  console.error(`bench: ${e.message}`)
  process.exit(1)
})
