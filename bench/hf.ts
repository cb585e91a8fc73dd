/**
 * `npm run bench:hf`: a Hugging Face folder of opus-mt's size (issue 32), timed against
 * transformers.js on the same files and threads.
 *
 * The folder: opus-mt's MarianConfig (d_model 512, 6 + 6 layers, 8 heads, FFN 2048, vocabulary
 * 58,101), random weights, in transformers.js's layout (onnx/encoder_model.onnx,
 * onnx/decoder_model_merged.onnx), written (3 to 5 minutes on a shared 2-core machine, plus the Python environment's
 * install the first time) by the one command that the bench prints when the folder is missing
 * (`makeCommand` below; bench/README.md):
 *   (test -x /tmp/hfvenv/bin/python || python3 -m venv /tmp/hfvenv) && /tmp/hfvenv/bin/pip install -q transformers torch
 *     tokenizers sentencepiece onnx onnxruntime && /tmp/hfvenv/bin/python training/hf_test_models.py --bench-marian /tmp/opus-mt-size
 * (AL_HF_BENCH_DIR names another folder). Measured, each in rotation over the repeats, wall and CPU time,
 * median and range:
 * - open to first heatmap: LoadedModel.open of the folder, then the greedy translation of a
 *   20-word sentence with every head's attention (a fresh process would add Node's start), with
 *   the tapped-decoder cache empty (a folder's first open) and written (opened again);
 * - per-token decoding with the KV cache: Attention Lens greedy (guards off) against
 *   transformers.js generate (greedy, the same max_new_tokens), both onnxruntime-node, one
 *   intra-op thread, fp32; random weights run to the step limit, so both decode 2·S + 10 tokens;
 * - what the attention taps cost a step: the merged decoder's with-past branch run with and
 *   without the Softmax outputs added (plain onnxruntime sessions, the same feeds);
 * - resident memory with the model open: a fresh Node process that opens the folder (cache empty)
 *   and translates the sentence, its RSS then (this process's would count the opens before).
 * Writes bench/HF-RESULTS.md. AL_BENCH_REPS (5) changes the repeats.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import * as ort from 'onnxruntime-node'
import { AutoModelForSeq2SeqLM, env, Tensor } from '@huggingface/transformers'
import { translate } from '../src/engine/decode'
import { LoadedModel } from '../src/engine/model'
import { crossAttentionTaps } from '../src/engine/formats/hf/taps'
import { editedModelBytes, parseOnnx } from '../src/engine/onnx-graph'
import type { GraphProto } from '../src/engine/onnx-proto'
import { NO_REPEAT_GUARD } from '../src/shared/repeat-guard'

const ROOT = join(__dirname, '..')
const DIR = process.env.AL_HF_BENCH_DIR ?? '/tmp/opus-mt-size'
const REPS = Number(process.env.AL_BENCH_REPS ?? 5)
const CACHE = (process.env.AL_CACHE_DIR = join(tmpdir(), `al-bench-hf-cache-${process.pid}`))
// A 20-word sentence of the test set (Multi30K test2016, line 14).
const SENTENCE = lines(join(ROOT, 'resources', 'testsets', 'en-fr.en')).find((l) => l.split(' ').length === 20)!

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean)
}

interface Sample {
  wall: number
  cpu: number
}
async function timed(f: () => Promise<unknown>): Promise<Sample> {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  await f()
  const c = process.cpuUsage(c0)
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`
const show = (xs: number[], unit = 'ms') => `${median(xs).toFixed(1)} ${unit} (${range(xs)})`

/** The child of `residentMemory`: one first open and translation, then its RSS on stdout. */
async function child(): Promise<void> {
  rmSync(CACHE, { recursive: true, force: true })
  const m = await LoadedModel.open(DIR)
  await translate(m, SENTENCE, { beam: 1 })
  process.stdout.write(`${process.memoryUsage().rss}\n`)
  await m.release()
}

/** RSS of a fresh process with the folder opened (first open) and one sentence translated. */
function residentMemory(): number {
  const out = execFileSync(process.execPath, [...process.execArgv, __filename], { env: { ...process.env, AL_HF_BENCH_CHILD: '1' }, encoding: 'utf8' })
  return Number(out.trim().split('\n').pop())
}

/** The one shell command that writes the benchmark folder, the Python environment it needs included. */
function makeCommand(dir: string): string {
  const py = '/tmp/hfvenv/bin/python'
  return `(test -x ${py} || python3 -m venv /tmp/hfvenv) && /tmp/hfvenv/bin/pip install -q transformers torch tokenizers sentencepiece onnx onnxruntime && ${py} training/hf_test_models.py --bench-marian ${dir}`
}

async function main(): Promise<void> {
  if (!existsSync(join(DIR, 'config.json'))) {
    console.error(
      `No benchmark folder at ${DIR}. Write it (3 to 5 minutes; the first time, installs PyTorch and transformers in /tmp/hfvenv) with:\n\n  ${makeCommand(DIR)}\n\nthen run npm run bench:hf again (bench/README.md).`,
    )
    process.exit(1)
  }
  const load0 = loadavg()
  const open: Sample[] = []
  const first: Sample[] = []
  const openWarm: Sample[] = []
  const firstWarm: Sample[] = []
  const ours: number[] = []
  const theirs: number[] = []
  const oursCpu: number[] = []
  const theirsCpu: number[] = []
  let tokens = 0
  let rss = 0

  env.allowRemoteModels = false
  env.localModelPath = DIR.replace(/[^/]+\/?$/, '')
  const name = DIR.replace(/\/$/, '').split('/').pop()!
  // transformers.js's sessions are made after Attention Lens's first open is measured, so the memory figure is ours alone.
  let tjs: Awaited<ReturnType<typeof AutoModelForSeq2SeqLM.from_pretrained>> | null = null

  for (let r = 0; r < REPS; r++) {
    // Opened again: the tapped decoder from the cache (src/engine/formats/hf/tap-cache.ts), once it is written.
    rmSync(CACHE, { recursive: true, force: true })
    const cold = await LoadedModel.open(DIR)
    await cold.release()
    for (let i = 0; i < 400 && !(existsSync(CACHE) && readdirSync(CACHE).some((f) => f.endsWith('.json'))); i++) await new Promise((ok) => setTimeout(ok, 50))
    let warm: LoadedModel | null = null
    openWarm.push(await timed(async () => (warm = await LoadedModel.open(DIR))))
    firstWarm.push(await timed(() => translate(warm!, SENTENCE, { beam: 1 })))
    await warm!.release()
    // The first open of a folder: nothing cached.
    rmSync(CACHE, { recursive: true, force: true })
    let model: LoadedModel | null = null
    open.push(await timed(async () => (model = await LoadedModel.open(DIR))))
    const m = model!
    first.push(await timed(() => translate(m, SENTENCE, { beam: 1 })))
    tjs ??= await AutoModelForSeq2SeqLM.from_pretrained(name, {
      subfolder: 'onnx',
      dtype: 'fp32',
      local_files_only: true,
      session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 },
    } as Record<string, unknown>)
    const client = tjs
    const ids = m.sourceEncoder!(SENTENCE).ids
    // Per token, in rotation: ours, then transformers.js, on the same source ids.
    const a = await timed(async () => {
      const t = await translate(m, SENTENCE, { beam: 1, ...NO_REPEAT_GUARD })
      tokens = t.tgtTokens.length
    })
    const b = await timed(() =>
      client.generate({
        inputs: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
        attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
        max_new_tokens: 2 * ids.length + 10,
        min_new_tokens: 2 * ids.length + 10,
        num_beams: 1,
        do_sample: false,
        no_repeat_ngram_size: 0,
        forced_eos_token_id: null,
      } as Record<string, unknown>),
    )
    ours.push(a.wall / tokens)
    oursCpu.push(a.cpu / tokens)
    theirs.push(b.wall / (2 * ids.length + 10))
    theirsCpu.push(b.cpu / (2 * ids.length + 10))
    await m.release()
  }
  await tjs?.dispose()
  rss = residentMemory()

  // The taps' cost: one with-past step at position 10, tapped and not, same feeds, in rotation.
  const decoderBytes = new Uint8Array(readFileSync(join(DIR, 'onnx', 'decoder_model_merged.onnx')))
  const file = parseOnnx(decoderBytes)
  const cfg = JSON.parse(readFileSync(join(DIR, 'config.json'), 'utf8')) as { decoder_layers: number; decoder_attention_heads: number; d_model: number }
  const L = cfg.decoder_layers
  const H = cfg.decoder_attention_heads
  const dh = cfg.d_model / H
  const opts: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' }
  const plain = await ort.InferenceSession.create(readFileSync(join(DIR, 'onnx', 'decoder_model_merged.onnx')), opts)
  const tapped = await ort.InferenceSession.create(editedModelBytes(decoderBytes, crossAttentionTaps(file.model.graph as GraphProto, L).edit), opts)
  const S = 25
  const T = 10
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', BigInt64Array.of(5n), [1, 1]),
    encoder_attention_mask: new ort.Tensor('int64', new BigInt64Array(S).fill(1n), [1, S]),
    encoder_hidden_states: new ort.Tensor(
      'float32',
      new Float32Array(S * cfg.d_model).map(() => Math.random() - 0.5),
      [1, S, cfg.d_model],
    ),
    use_cache_branch: new ort.Tensor('bool', [true], [1]),
  }
  for (let l = 0; l < L; l++)
    for (const [half, len] of [
      ['decoder', T],
      ['encoder', S],
    ] as const)
      for (const kv of ['key', 'value'])
        feeds[`past_key_values.${l}.${half}.${kv}`] = new ort.Tensor(
          'float32',
          new Float32Array(H * len * dh).map(() => Math.random() - 0.5),
          [1, H, len, dh],
        )
  const plainT: number[] = []
  const tappedT: number[] = []
  for (let r = 0; r < REPS * 20; r++) {
    plainT.push((await timed(() => plain.run(feeds))).wall)
    tappedT.push((await timed(() => tapped.run(feeds))).wall)
  }
  const load1 = loadavg()

  const ratio = median(ours) / median(theirs)
  const tap = median(tappedT) / median(plainT)
  const firstTotal = open.map((o, i) => o.wall + first[i].wall)
  const warmTotal = openWarm.map((o, i) => o.wall + firstWarm[i].wall)
  const out = `# Hugging Face folder benchmark (issue 32)

Written by \`npm run bench:hf\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC); how it measures: bench/hf.ts.

**Machine**: ${cpus()[0].model}, ${cpus().length} cores; load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start,
${load1.map((x) => x.toFixed(1)).join(' / ')} at the end. onnxruntime-node ${ort.env.versions.common} (CPU, 1 intra-op thread) for both
Attention Lens and transformers.js (@huggingface/transformers, the same onnxruntime-node). ${REPS} repeats, in rotation.

**Model**: an opus-mt-size Marian (opus-mt's config: d_model 512, 6 + 6 layers, 8 heads, FFN 2048,
vocabulary 58,101; random weights), fp32, transformers.js's layout (encoder_model.onnx, decoder_model_merged.onnx).
Sentence: "${SENTENCE}" (${SENTENCE.split(' ').length} words); random weights decode to the step limit: ${tokens} tokens.

| target | measured (median, range over ${REPS} repeats) | met? |
| --- | --- | --- |
| open to first heatmap of a 20-word sentence < 3 s: a folder's first open | ${show(firstTotal)} wall (open ${show(open.map((o) => o.wall))}, first translation ${show(first.map((f) => f.wall))}) | ${median(firstTotal) < 3000 ? 'yes' : 'no'} |
| the same, opened again (the tapped decoder from the cache) | ${show(warmTotal)} wall (open ${show(openWarm.map((o) => o.wall))}, first translation ${show(firstWarm.map((f) => f.wall))}) | ${median(warmTotal) < 3000 ? 'yes' : 'no'} |
| per-token decoding with cache ≤ 1.2× transformers.js | ${ratio.toFixed(2)}×: Attention Lens ${show(ours)} wall, ${show(oursCpu)} CPU per token; transformers.js ${show(theirs)} wall, ${show(theirsCpu)} CPU | ${ratio <= 1.2 ? 'yes' : 'no'} |
| attention taps add ≤ 15 % to a step | ${((tap - 1) * 100).toFixed(1)} %: with-past step ${show(tappedT)} tapped, ${show(plainT)} plain (${REPS * 20} steps each, S = ${S}, t = ${T}) | ${tap <= 1.15 ? 'yes' : 'no'} |
| resident memory with it open < 1.5 GB | ${(rss / 2 ** 30).toFixed(2)} GB (a fresh process's RSS after the folder's first open, cache empty, and one translation) | ${rss < 1.5 * 2 ** 30 ? 'yes' : 'no'} |

The per-token times include everything each client does per step: Attention Lens reads every head's
cross-attention and keeps the cache beside its state (row numbers; copied only when a beam reorders rows); transformers.js
returns only the ids.
`
  writeFileSync(join(ROOT, 'bench', 'HF-RESULTS.md'), out)
  console.log(out)
}

void (process.env.AL_HF_BENCH_CHILD ? child() : main())
