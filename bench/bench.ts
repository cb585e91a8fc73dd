/**
 * `npm run bench`: the engine against PyTorch eager on the same weights, measured side by side.
 *
 * - Per sentence (the heatmap's request: greedy, top-5 alternatives, every step's attention,
 *   scores and local-attention outputs captured), ~20-word sentences: the engine, PyTorch's
 *   `models.greedy`, PyTorch with the keys computed once, and the floor (the encoder plus one bare
 *   `session.run` of the step's matrix products per output step, bench/floor.ts) run one after
 *   the other on each sentence, in an order that rotates from sentence to sentence.
 * - Beam 5 on the same sentences, interleaved the same way.
 * - The 1,000-sentence test set in length-sorted batches of 32, the two sides alternating batch by
 *   batch (rotating which goes first).
 *
 * CPU time (this process's, and the Python process's own) and wall time are both reported; ratios
 * are PyTorch ÷ engine per repeat (ratio of the medians), as the median and range over repeats.
 * Side-by-side ratios survive a busy machine; absolute times do not. Writes bench/RESULTS.md.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { encodeSource, greedyBatch, translate } from '../src/engine/decode'
import { evaluateCorpus } from '../src/engine/evaluate'
import { scoredOrigins } from '../src/engine/forecast'
import { LoadedModel } from '../src/engine/model'
import { InferenceService } from '../src/engine/service'
import { BUNDLED_HELD_OUT_STEPS, BUNDLED_SERIES } from '../src/host/paths'
import { parseSeriesCsv } from '../src/shared/series'
import { stepFloor } from './floor'
import { probeUi, type UiProbe } from './ui-probe'

const ROOT = join(__dirname, '..')
const MODELS = process.env.AL_MODELS_DIR ?? join(ROOT, 'resources', 'models')
const TESTSETS = join(ROOT, 'resources', 'testsets')
const SENTENCES = Number(process.env.AL_BENCH_SENTENCES ?? 20)
const BEAM_SENTENCES = Number(process.env.AL_BENCH_BEAM_SENTENCES ?? 10)
const REPS = Number(process.env.AL_BENCH_REPS ?? 3)
const ONLY = process.env.AL_BENCH_MODELS?.split(',').filter(Boolean) ?? null
const BATCH = 32
const PYTHON = '/usr/bin/python3'

interface Cost {
  cpu: number
  wall: number
}

function cpuMs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

async function measure(fn: () => Promise<unknown>): Promise<Cost> {
  const c = cpuMs()
  const w = performance.now()
  await fn()
  return { cpu: cpuMs() - c, wall: performance.now() - w }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const lines = (f: string) => readFileSync(join(TESTSETS, f), 'utf8').trim().split('\n')
const words = (s: string) => s.trim().split(/\s+/).length

/** ~20-word sentences (closest to 20 first) for en→fr; the longest-but-typical (≥ 20 characters) for zh→en. */
function sentencesFor(src: string): { label: string; texts: string[] } {
  const all = lines(`${src}`)
  if (src.endsWith('.zh')) return { label: 'Chinese, ≥ 20 characters', texts: all.filter((s) => [...s].length >= 20).slice(0, SENTENCES) }
  const texts = all
    .map((s, i) => ({ s, i, d: Math.abs(words(s) - 20) }))
    .filter((x) => x.d <= 2)
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, SENTENCES)
    .map((x) => x.s)
  const n = texts.map(words)
  return { label: `${Math.min(...n)}–${Math.max(...n)} words (median ${median(n)})`, texts }
}

/** The PyTorch side: training/bench_torch.py as a server, one JSON command per line. */
class Torch {
  private proc: ChildProcessWithoutNullStreams
  private answers: ((line: string) => void)[] = []

  constructor() {
    this.proc = spawn(PYTHON, [join(ROOT, 'training', 'bench_torch.py')], {
      env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
    })
    createInterface({ input: this.proc.stdout }).on('line', (l) => this.answers.shift()?.(l))
    this.proc.stderr.on('data', () => {}) // warnings of the Python side are not ours to print
  }

  call<T = Record<string, number>>(cmd: Record<string, unknown>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.answers.push((l) => {
        const o = JSON.parse(l)
        if (o.error) reject(new Error(o.error))
        else resolve(o)
      })
      this.proc.stdin.write(JSON.stringify(cmd) + '\n')
    })
  }

  async timed(cmd: Record<string, unknown>): Promise<Cost> {
    const o = await this.call(cmd)
    return { cpu: o.cpu_ms, wall: o.wall_ms }
  }

  quit(): void {
    this.proc.stdin.end(JSON.stringify({ cmd: 'quit' }) + '\n')
  }
}

function torchAvailable(): boolean {
  return existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import torch, onnx'], { stdio: 'ignore' }).status === 0
}

/** Runs the contestants in an order rotated by `shift`. */
async function rotated(shift: number, runs: (() => Promise<void>)[]): Promise<void> {
  for (let i = 0; i < runs.length; i++) await runs[(i + shift) % runs.length]()
}

/** Per-repeat samples of each contestant. */
type Samples = Record<string, Cost[][]>

function sampleSet(names: string[]): Samples {
  return Object.fromEntries(names.map((n) => [n, Array.from({ length: REPS }, () => [] as Cost[])]))
}

interface Spread {
  median: number
  lo: number
  hi: number
}

/** Per repeat: f(repeat's samples); then the median and range over repeats. */
function spread(values: number[]): Spread {
  return { median: median(values), lo: Math.min(...values), hi: Math.max(...values) }
}
const perRep = (s: Cost[][], key: keyof Cost, agg: (xs: number[]) => number = median) => s.map((rep) => agg(rep.map((c) => c[key])))
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
/** PyTorch ÷ engine per repeat. */
const ratio = (num: Cost[][], den: Cost[][], key: keyof Cost, agg: (xs: number[]) => number = median) => {
  const a = perRep(num, key, agg)
  const b = perRep(den, key, agg)
  return spread(a.map((x, i) => x / b[i]))
}
const fmtRatio = (r: Spread | null) => (r ? `**${r.median.toFixed(2)}×** (${r.lo.toFixed(2)}–${r.hi.toFixed(2)})` : '—')
const fmtMs = (r: Spread | null, digits = 2) => (r ? `${r.median.toFixed(digits)} (${r.lo.toFixed(digits)}–${r.hi.toFixed(digits)})` : '—')

interface ModelResult {
  file: string
  attention: string
  label: string
  sentence: {
    onnxCpu: Spread
    onnxWall: Spread
    torchCpu: Spread | null
    cpuRatio: Spread | null
    wallRatio: Spread | null
    keysOnceRatio: Spread | null
    floor: Spread
    overFloor: Spread
    steps: number
  }
  beam: { onnxCpu: Spread; torchCpu: Spread | null; cpuRatio: Spread | null; wallRatio: Spread | null } | null
  batched: {
    onnxWallS: Spread
    onnxCpuS: Spread
    torchWallS: Spread | null
    cpuRatio: Spread | null
    wallRatio: Spread | null
    evalSeconds: number
    bleu: number
  } | null
}

async function benchTranslation(path: string, file: string, torch: Torch | null): Promise<ModelResult> {
  const m = await LoadedModel.open(path)
  if (m.surgeryNote) console.log(`  ${file}: ${m.surgeryNote}`)
  const pair = `${m.spec.srcLang}-${m.spec.tgtLang}`
  const src = pair === 'zh-en' ? 'zh-en.zh' : `${pair}.${m.spec.srcLang}`
  const { label, texts } = sentencesFor(src)
  await torch?.call({ cmd: 'load', path })
  const floor = await stepFloor(m)
  const heatmap = { encoderStates: false }
  // Warm-up, and each sentence's number of output steps (for the floor).
  const steps: number[] = []
  for (const s of texts) steps.push((await translate(m, s, heatmap)).tgtTokens.length)
  for (const s of texts.slice(0, 3)) await torch?.timed({ cmd: 'greedy', text: s })

  const per = sampleSet(['onnx', 'torch', 'keysOnce', 'floor'])
  for (let r = 0; r < REPS; r++) {
    for (let i = 0; i < texts.length; i++) {
      const s = texts[i]
      const runs = [
        async () => void per.onnx[r].push(await measure(() => translate(m, s, heatmap))),
        async () => {
          // The same source ids as the engine's, and as many steps as it took.
          per.floor[r].push(
            await measure(async () => {
              await floor.encoder.run(floor.encoderFeeds(encodeSource(m, s).ids))
              for (let t = 0; t < steps[i]; t++) await floor.runStep()
            }),
          )
        },
      ]
      if (torch) {
        runs.push(async () => void per.torch[r].push(await torch.timed({ cmd: 'greedy', text: s })))
        runs.push(async () => void per.keysOnce[r].push(await torch.timed({ cmd: 'greedy', text: s, keys_once: true })))
      }
      await rotated(i + r, runs)
    }
  }
  const sentence = {
    onnxCpu: spread(perRep(per.onnx, 'cpu')),
    onnxWall: spread(perRep(per.onnx, 'wall')),
    torchCpu: torch ? spread(perRep(per.torch, 'cpu')) : null,
    cpuRatio: torch ? ratio(per.torch, per.onnx, 'cpu') : null,
    wallRatio: torch ? ratio(per.torch, per.onnx, 'wall') : null,
    keysOnceRatio: torch ? ratio(per.keysOnce, per.onnx, 'cpu') : null,
    floor: spread(perRep(per.floor, 'cpu')),
    overFloor: ratio(per.onnx, per.floor, 'cpu'),
    steps: median(steps),
  }
  console.log(
    `  ${file} per sentence: engine ${fmtMs(sentence.onnxCpu)} ms CPU, PyTorch ÷ engine ${fmtRatio(sentence.cpuRatio)}, engine ÷ floor ${fmtRatio(sentence.overFloor)}`,
  )

  const beamTexts = texts.slice(0, BEAM_SENTENCES)
  for (const s of beamTexts.slice(0, 2)) {
    await translate(m, s, { beam: 5, ...heatmap })
    await torch?.timed({ cmd: 'beam', text: s, k: 5 })
  }
  const bm = sampleSet(['onnx', 'torch'])
  for (let r = 0; r < REPS; r++) {
    for (let i = 0; i < beamTexts.length; i++) {
      const s = beamTexts[i]
      const runs = [async () => void bm.onnx[r].push(await measure(() => translate(m, s, { beam: 5, ...heatmap })))]
      if (torch) runs.push(async () => void bm.torch[r].push(await torch.timed({ cmd: 'beam', text: s, k: 5 })))
      await rotated(i + r, runs)
    }
  }
  const beam = {
    onnxCpu: spread(perRep(bm.onnx, 'cpu')),
    torchCpu: torch ? spread(perRep(bm.torch, 'cpu')) : null,
    cpuRatio: torch ? ratio(bm.torch, bm.onnx, 'cpu') : null,
    wallRatio: torch ? ratio(bm.torch, bm.onnx, 'wall') : null,
  }
  console.log(`  ${file} beam 5: engine ${fmtMs(beam.onnxCpu)} ms CPU, PyTorch ÷ engine ${fmtRatio(beam.cpuRatio)}`)

  let batched: ModelResult['batched'] = null
  const refFile = pair === 'zh-en' ? 'zh-en.en' : `${pair}.${m.spec.tgtLang}`
  if (existsSync(join(TESTSETS, src)) && existsSync(join(TESTSETS, refFile))) {
    const corpus = lines(src)
    const order = corpus.map((_, i) => i).sort((a, b) => corpus[a].length - corpus[b].length)
    const batches: string[][] = []
    for (let i = 0; i < order.length; i += BATCH) batches.push(order.slice(i, i + BATCH).map((j) => corpus[j]))
    const bt = sampleSet(['onnx', 'torch'])
    for (let r = 0; r < REPS; r++) {
      for (let j = 0; j < batches.length; j++) {
        const runs = [async () => void bt.onnx[r].push(await measure(() => greedyBatch(m, batches[j], { topK: 1, encoderStates: false })))]
        if (torch) runs.push(async () => void bt.torch[r].push(await torch.timed({ cmd: 'batch', texts: batches[j] })))
        await rotated(j + r, runs)
      }
    }
    const seconds = (s: Cost[][], key: keyof Cost) => spread(perRep(s, key, sum).map((x) => x / 1000))
    const t0 = performance.now()
    const ev = await evaluateCorpus(m, corpus, lines(refFile))
    batched = {
      onnxWallS: seconds(bt.onnx, 'wall'),
      onnxCpuS: seconds(bt.onnx, 'cpu'),
      torchWallS: torch ? seconds(bt.torch, 'wall') : null,
      cpuRatio: torch ? ratio(bt.torch, bt.onnx, 'cpu', sum) : null,
      wallRatio: torch ? ratio(bt.torch, bt.onnx, 'wall', sum) : null,
      evalSeconds: (performance.now() - t0) / 1000,
      bleu: ev.bleu,
    }
    console.log(`  ${file} batched: engine ${fmtMs(batched.onnxWallS)} s wall, PyTorch ÷ engine ${fmtRatio(batched.cpuRatio)} CPU`)
  }
  await floor.release()
  await m.release()
  return { file, attention: m.spec.attention, label, sentence, beam, batched }
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
  const ev = await service.evaluateForecast(path, series, origins)
  const sorted = [...times].sort((a, b) => a - b)
  return `| ${file} | ${median(times).toFixed(1)} | ${sorted[Math.floor(0.95 * (sorted.length - 1))].toFixed(1)} | ${ev.seconds.toFixed(2)} s (${(ev.origins / ev.seconds).toFixed(0)} forecasts/s) | ${ev.mae.toFixed(1)} |`
}

function version(cmd: string[]): string {
  const r = spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : 'absent'
}

async function main(): Promise<void> {
  const files = readdirSync(MODELS)
    .filter((f) => f.endsWith('.onnx') && (!ONLY || ONLY.some((o) => f.startsWith(o))))
    .sort()
  const withTorch = torchAvailable()
  if (!withTorch)
    console.log('PyTorch not found (/usr/bin/python3 with torch and onnx): skipping every PyTorch column and ratio; the engine and floor columns still run.')
  const torch = withTorch ? new Torch() : null
  const load0 = loadavg()
  const started = new Date()
  console.log(`models: ${files.length}; ${SENTENCES} sentences × ${REPS} repeats; load average ${load0.map((x) => x.toFixed(2)).join(' ')}`)
  const results: ModelResult[] = []
  const forecastRows: string[] = []
  const service = new InferenceService()
  for (const file of files) {
    const path = join(MODELS, file)
    const info = await service.describe(path)
    if (info.task === 'forecasting') {
      forecastRows.push(await benchForecaster(service, path, file))
      console.log(forecastRows.at(-1))
      await service.close(path)
      continue
    }
    console.log(file)
    results.push(await benchTranslation(path, file, torch))
  }
  await service.closeAll()
  torch?.quit()
  // The renderer's side (keystroke → painted heatmap, origin step → repainted forecast) in browser mode.
  let ui: UiProbe | null = null
  if (process.env.AL_BENCH_UI === '0') console.log('AL_BENCH_UI=0: skipping the browser-mode timing probe.')
  else {
    ui = await probeUi().catch((e: Error) => {
      console.log(`browser-mode timing probe failed, left out: ${e.message}`)
      return null
    })
    if (ui) console.log(`keystroke → heatmap p50 ${median(ui.keystroke).toFixed(0)} ms; origin step → forecast p50 ${median(ui.forecastStep).toFixed(0)} ms`)
  }
  const load1 = loadavg()
  writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), report(results, forecastRows, ui, { withTorch, started, load0, load1 }))
  console.log('wrote bench/RESULTS.md')
}

function report(
  results: ModelResult[],
  forecastRows: string[],
  ui: UiProbe | null,
  run: { withTorch: boolean; started: Date; load0: number[]; load1: number[] },
): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  const ortVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8')).version as string
  const torchVersion = run.withTorch ? version([PYTHON, '-c', 'import torch; print(torch.__version__)']) : 'absent'
  // Issue 15's targets are read on the en→fr RNNs; the Transformer (issue 18) is held to the same ones in a table of its own.
  const isTransformer = (r: ModelResult) => r.file.includes('transformer')
  const rnn = results.filter((r) => r.file.startsWith('en-') && !isTransformer(r))
  const transformers = results.filter(isTransformer)
  const yes = (b: boolean) => (b ? 'yes' : 'no')
  const range = (xs: number[], digits = 2) => (xs.length ? `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}` : '—')
  const engineTargets = (en: ModelResult[]) => {
    const all = (pred: (r: ModelResult) => boolean | null) => (en.length ? en.every((r) => pred(r)) : false)
    return [
      [
        'per sentence, PyTorch ÷ engine CPU ≥ 5× for every en→fr attention kind',
        range(
          en.flatMap((r) => (r.sentence.cpuRatio ? [r.sentence.cpuRatio.median] : [])),
          2,
        ) + '×',
        yes(all((r) => (r.sentence.cpuRatio?.median ?? 0) >= 5)),
      ],
      [
        'per sentence p50 < 5 ms (on an idle core: read the CPU time; wall in brackets)',
        `${range(en.map((r) => r.sentence.onnxCpu.median))} ms CPU (wall ${range(en.map((r) => r.sentence.onnxWall.median))} ms)`,
        yes(all((r) => r.sentence.onnxCpu.median < 5)),
      ],
      ['engine ÷ floor ≤ 1.5', range(en.map((r) => r.sentence.overFloor.median)) + '×', yes(all((r) => r.sentence.overFloor.median <= 1.5))],
      [
        'batched 1,000 sentences, PyTorch ÷ engine ≥ 2× (CPU)',
        range(en.flatMap((r) => (r.batched?.cpuRatio ? [r.batched.cpuRatio.median] : []))) + '×',
        yes(all((r) => (r.batched?.cpuRatio?.median ?? 0) >= 2)),
      ],
      [
        'batched 1,000 sentences < 2 s per model (CPU; wall in brackets)',
        `${range(en.flatMap((r) => (r.batched ? [r.batched.onnxCpuS.median] : [])))} s CPU (wall ${range(en.flatMap((r) => (r.batched ? [r.batched.onnxWallS.median] : [])))} s)`,
        yes(all((r) => (r.batched?.onnxCpuS.median ?? Infinity) < 2)),
      ],
      [
        'beam 5, PyTorch ÷ engine ≥ 3× (CPU)',
        range(en.flatMap((r) => (r.beam?.cpuRatio ? [r.beam.cpuRatio.median] : []))) + '×',
        yes(all((r) => (r.beam?.cpuRatio?.median ?? 0) >= 3)),
      ],
    ]
  }
  const targets = [
    ...engineTargets(rnn),
    [
      'browser mode: last keystroke → heatmap painted, p50 < 200 ms (wall, incl. the debounce)',
      ui ? `${median(ui.keystroke).toFixed(0)} ms (${range(ui.keystroke, 0)}, ${ui.keystroke.length} sentences)` : 'not measured',
      ui ? yes(median(ui.keystroke) < 200) : '—',
    ],
    [
      'browser mode: forecast origin step → repainted, p50 < 250 ms (wall)',
      ui ? `${median(ui.forecastStep).toFixed(0)} ms (${range(ui.forecastStep, 0)}, ${ui.forecastStep.length} steps)` : 'not measured',
      ui ? yes(median(ui.forecastStep) < 250) : '—',
    ],
  ]
  return `# Benchmark results

Written by \`npm run bench\` (${run.started.toISOString().slice(0, 16).replace('T', ' ')} UTC); how it measures and where the time goes: [README.md](README.md).

**Machine**: ${cpu}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${run.load0.map((x) => x.toFixed(1)).join(' / ')} at the start,
${run.load1.map((x) => x.toFixed(1)).join(' / ')} at the end. Node ${process.version}, onnxruntime-node ${ortVersion} (CPU, 1 intra-op thread),
PyTorch ${torchVersion} eager (1 thread). ${REPS} repeats; ${SENTENCES} sentences per model, ${BEAM_SENTENCES} for beam 5.

A load average above the number of cores means other processes (model training, tests) were
running: then the **ratios**, measured side by side on the same sentences in rotating order, are
meaningful, and the **absolute times are not** (they are inflated by waiting and shared caches).

## Targets (issue 15)

| target | reached (medians over the en→fr RNN models) | met? |
| --- | --- | --- |
${targets.map((t) => `| ${t.join(' | ')} |`).join('\n')}
${
  transformers.length
    ? `
## The same targets for the Transformer (issue 18)

| target | reached (${transformers.map((r) => r.file).join(', ')}) | met? |
| --- | --- | --- |
${engineTargets(transformers)
  .map((t) => `| ${t.join(' | ')} |`)
  .join('\n')}
`
    : ''
}
## Per sentence: translate with attention captured

The heatmap's request: greedy, top-5 alternatives, every step's attention, scores and (local)
\`p_t\`, window, Gaussian and in-window softmax; no encoder states. PyTorch is
\`training/attention_lens/models.py\`'s \`greedy\` (it captures the same step outputs; it recomputes the keys at
every step, as the exported step does); "keys once" is the same loop with the keys computed once per
sentence. Floor: the encoder, then per output step one bare \`session.run\` of the step's matrix
products (bench/floor.ts). CPU ms and ratios: median over repeats (range).

| model | sentences | steps | engine CPU ms | engine wall ms | PyTorch CPU ms | PyTorch ÷ engine, CPU | wall | PyTorch keys-once ÷ engine, CPU | floor CPU ms | engine ÷ floor |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${results.map((r) => `| ${r.file} | ${r.label} | ${r.sentence.steps} | ${fmtMs(r.sentence.onnxCpu)} | ${fmtMs(r.sentence.onnxWall)} | ${fmtMs(r.sentence.torchCpu)} | ${fmtRatio(r.sentence.cpuRatio)} | ${fmtRatio(r.sentence.wallRatio)} | ${fmtRatio(r.sentence.keysOnceRatio)} | ${fmtMs(r.sentence.floor)} | ${fmtRatio(r.sentence.overFloor)} |`).join('\n')}

## Beam 5 (length penalty 1), the same sentences

| model | engine CPU ms | PyTorch CPU ms | PyTorch ÷ engine, CPU | wall |
| --- | --- | --- | --- | --- |
${results.map((r) => `| ${r.file} | ${fmtMs(r.beam?.onnxCpu ?? null)} | ${fmtMs(r.beam?.torchCpu ?? null)} | ${fmtRatio(r.beam?.cpuRatio ?? null)} | ${fmtRatio(r.beam?.wallRatio ?? null)} |`).join('\n')}

## The test set, 1,000 sentences in length-sorted batches of 32

Engine: \`greedyBatch\` (one ONNX Loop run per batch) as the corpus view runs it; PyTorch:
\`models.greedy\` on the same batches; the two alternate batch by batch. Seconds are the sum over
the batches. "Corpus view" is the whole \`evaluateCorpus\` (tokenising, decoding, BLEU) once.

| model | engine wall s | engine CPU s | PyTorch wall s | PyTorch ÷ engine, CPU | wall | corpus view s | BLEU |
| --- | --- | --- | --- | --- | --- | --- | --- |
${results.map((r) => (r.batched ? `| ${r.file} | ${fmtMs(r.batched.onnxWallS)} | ${fmtMs(r.batched.onnxCpuS)} | ${fmtMs(r.batched.torchWallS)} | ${fmtRatio(r.batched.cpuRatio)} | ${fmtRatio(r.batched.wallRatio)} | ${r.batched.evalSeconds.toFixed(2)} | ${r.batched.bleu} |` : `| ${r.file} | — | — | — | — | — | — | — |`)).join('\n')}

## Forecasters

One forecast is what the forecasting view asks for when the origin moves: encode 384 steps,
48 decoder steps with every step's attention (and for local-p \`p_t\`, window, Gaussian)
captured, from ${FORECAST_ORIGINS} origins spread over the held-out weeks, ${REPS} passes (wall ms). The
held-out evaluation is all 625 origins in batches of 128 (MAE over 30,000 steps). ONNX only,
decoded step by step (the graph surgery is for translation models).

| model | one forecast p50 ms | p95 ms | held-out evaluation, 625 origins | MAE (MW) |
| --- | --- | --- | --- | --- |
${forecastRows.join('\n')}

## Browser mode: typing and stepping the forecast origin

\`bench/ui-probe.ts\` runs the built app in browser mode in Debian's Chromium (1280 × 800) and
times, inside the page, from the key event to the last animation frame that changed a canvas
pixel after the view showed the new result: the debounce, the HTTP round trip, the decode and
the whole (progressive) repaint. Keystroke: the last character of a sentence typed into
\`en-fr-bahdanau\`; origin step: → on the origin slider of \`taylor-luong-general\` (48 × 384
heatmap and the line chart). Wall ms, so inflated by the load average above.

${ui ? `| probe | p50 ms | range ms | runs |\n| --- | --- | --- | --- |\n| last keystroke → heatmap painted | ${median(ui.keystroke).toFixed(0)} | ${range(ui.keystroke, 0)} | ${ui.keystroke.length} |\n| origin step → forecast repainted | ${median(ui.forecastStep).toFixed(0)} | ${range(ui.forecastStep, 0)} | ${ui.forecastStep.length} |` : 'Not measured in this run (AL_BENCH_UI=0, or no build/Chromium).'}
`
}

main().catch((e: Error) => {
  console.error(`bench: ${e.stack ?? e.message}`)
  process.exit(1)
})
