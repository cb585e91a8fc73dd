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
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import * as ort from '../src/engine/onnxruntime'
import { AutoModelForSeq2SeqLM, env, Tensor } from '@huggingface/transformers'
import { translate } from '../src/engine/decode'
import { LoadedModel } from '../src/engine/model'
import { crossAttentionTaps } from '../src/engine/formats/hf/taps'
import { editedModelBytes } from '../src/engine/onnx-graph'
import { readSlimModel } from '../src/engine/formats/model-bytes'
import { folderVariants } from '../src/engine/formats/hf/variants'
import { toFloat16 } from '../src/engine/formats/hf/parts'
import { withDtype, withLanguages } from '../src/shared/model-id'
import type { GraphProto } from '../src/engine/onnx-proto'
import { NO_REPEAT_GUARD } from '../src/shared/repeat-guard'
import { engineEnv } from '../src/host/engine-env'

const ROOT = join(__dirname, '..')
const DIR = process.env.AL_HF_BENCH_DIR ?? '/tmp/opus-mt-size'
const REPS = Number(process.env.AL_BENCH_REPS ?? 5)
const CACHE = (process.env.AL_CACHE_DIR = join(tmpdir(), `al-bench-hf-cache-${process.pid}`))
// A 20-word sentence of the test set (Multi30K test2016, line 14).
const TWENTY = lines(join(ROOT, 'resources', 'testsets', 'en-fr.en')).filter((l) => l.split(' ').length === 20)
const SENTENCE = TWENTY[0]
// What is typed next with the model open (keystroke → heatmap): another 20-word sentence of the same set.
const NEXT = TWENTY[1]
/**
 * A multilingual folder's pair: AL_HF_BENCH_SRC / AL_HF_BENCH_TGT, else the one its reference.json
 * (training/hf_test_models.py --large) was decoded with, else the folder's own. AL_HF_BENCH_DTYPE
 * picks a precision variant (default: the app's choice, hf/variants.ts).
 */
const PAIR = ((): [string, string] | null => {
  const ref = join(DIR, 'reference.json')
  const g = existsSync(ref) ? (JSON.parse(readFileSync(ref, 'utf8')) as { generation?: { src_lang?: string; tgt_lang?: string } }).generation : undefined
  const src = process.env.AL_HF_BENCH_SRC ?? g?.src_lang
  const tgt = process.env.AL_HF_BENCH_TGT ?? g?.tgt_lang
  return src && tgt ? [src, tgt] : null
})()
const DTYPE = process.env.AL_HF_BENCH_DTYPE
/** The model id the app opens: the folder, with the pair and precision where given. */
const OPEN = ((): string => {
  const p = PAIR ? withLanguages(DIR, PAIR[0], PAIR[1]) : DIR
  return DTYPE ? withDtype(p, DTYPE) : p
})()
const TJS_VERSION = `@huggingface/transformers ${(JSON.parse(readFileSync(join(ROOT, 'node_modules', '@huggingface', 'transformers', 'package.json'), 'utf8')) as { version: string }).version}`

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
const onDisk = (f: string) => {
  const dir = f.replace(/[^/]+$/, '')
  const base = f.slice(dir.length)
  return readdirSync(dir)
    .filter((n) => n === base || n.startsWith(`${base}_data`) || n.startsWith(`${base}.data`))
    .reduce((n, x) => n + statSync(join(dir, x)).size, 0)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`
const show = (xs: number[], unit = 'ms') => `${median(xs).toFixed(1)} ${unit} (${range(xs)})`

/** The child of `residentMemory`: one first open and translation, then its RSS on stdout. */
async function child(): Promise<void> {
  rmSync(CACHE, { recursive: true, force: true })
  const m = await LoadedModel.open(OPEN)
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

/** Why transformers.js cannot open this variant of the folder as it lies, or null where it can. */
function tjsRefusal(suffix: string): string | null {
  const want = ['encoder_model', 'decoder_model_merged'].map((p) => `onnx/${p}${suffix}.onnx`)
  if (want.every((f) => existsSync(join(DIR, f)))) return null
  const has = readdirSync(DIR).filter((f) => f.endsWith('.onnx'))
  return (
    `transformers.js (${TJS_VERSION}) opens an encoder-decoder from ${want.join(' and ')} only (its Seq2Seq model type's sessions: ` +
    `encoder_model + decoder_model_merged, under onnx/); this folder has ${has.join(', ') || 'no .onnx file at its top'}${existsSync(join(DIR, 'onnx')) ? ' and an onnx/ folder without those names' : ''}, ` +
    `and no merged decoder`
  )
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
  const next: Sample[] = []
  const ours: number[] = []
  const theirs: number[] = []
  const oursCpu: number[] = []
  const theirsCpu: number[] = []
  let tokens = 0
  let rss = 0
  let dtype = ''
  let suffix = ''
  let forced: number | null = null

  env.allowRemoteModels = false
  env.localModelPath = DIR.replace(/[^/]+\/?$/, '')
  const name = DIR.replace(/\/$/, '').split('/').pop()!
  // transformers.js's sessions are made after Attention Lens's first open is measured, so the memory figure is ours alone.
  let tjs: Awaited<ReturnType<typeof AutoModelForSeq2SeqLM.from_pretrained>> | null = null
  let refusal: string | null = null

  for (let r = 0; r < REPS; r++) {
    // Opened again: the tapped decoder from the cache (src/engine/formats/hf/tap-cache.ts), once it is written.
    rmSync(CACHE, { recursive: true, force: true })
    const cold = await LoadedModel.open(OPEN)
    await cold.release()
    for (let i = 0; i < 400 && !(existsSync(CACHE) && readdirSync(CACHE).some((f) => f.endsWith('.json'))); i++) await new Promise((ok) => setTimeout(ok, 50))
    let warm: LoadedModel | null = null
    openWarm.push(await timed(async () => (warm = await LoadedModel.open(OPEN))))
    firstWarm.push(await timed(() => translate(warm!, SENTENCE, { beam: 1 })))
    await warm!.release()
    // The first open of a folder: nothing cached.
    rmSync(CACHE, { recursive: true, force: true })
    let model: LoadedModel | null = null
    open.push(await timed(async () => (model = await LoadedModel.open(OPEN))))
    const m = model!
    first.push(await timed(() => translate(m, SENTENCE, { beam: 1 })))
    // Keystroke → heatmap with the model open: the next sentence's translation and every head's attention (the page's drawing not included).
    next.push(await timed(() => translate(m, NEXT, { beam: 1 })))
    dtype = m.spec.dtype ?? 'fp32'
    suffix = folderVariants(DIR).find((v) => v.dtype === dtype)?.suffix ?? ''
    forced = m.spec.generation?.forcedFirst ?? null
    refusal = tjsRefusal(suffix)
    const ids = m.sourceEncoder!(SENTENCE).ids
    // Per token, in rotation: ours, then transformers.js, on the same source ids and as many tokens.
    const a = await timed(async () => {
      const t = await translate(m, SENTENCE, { beam: 1, ...NO_REPEAT_GUARD })
      tokens = t.tgtTokens.length
    })
    ours.push(a.wall / tokens)
    oursCpu.push(a.cpu / tokens)
    if (!refusal) {
      tjs ??= await AutoModelForSeq2SeqLM.from_pretrained(name, {
        subfolder: 'onnx',
        dtype,
        use_external_data_format: existsSync(join(DIR, 'onnx', `decoder_model_merged${suffix}.onnx_data`)),
        local_files_only: true,
        session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 },
      } as Record<string, unknown>)
      const client = tjs
      const b = await timed(() =>
        client.generate({
          inputs: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
          attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
          max_new_tokens: tokens,
          min_new_tokens: tokens,
          num_beams: 1,
          do_sample: false,
          no_repeat_ngram_size: 0,
          forced_eos_token_id: null,
          ...(forced === null ? {} : { forced_bos_token_id: forced }),
        } as Record<string, unknown>),
      )
      theirs.push(b.wall / tokens)
      theirsCpu.push(b.cpu / tokens)
    }
    await m.release()
  }
  await tjs?.dispose()
  rss = residentMemory()
  const variant = folderVariants(DIR).find((v) => v.dtype === dtype)!
  const opened = [variant.files.encoder, variant.files.first, ...(variant.files.past && variant.files.past !== variant.files.first ? [variant.files.past] : [])]
  const openedBytes = opened.reduce((n, f) => n + onDisk(f), 0)

  // The taps' cost: one with-past step at position 10, tapped and not, same feeds, in rotation
  // (the decoder's graph read without its weights, tapped as the app taps it, its weights read from the folder).
  const cfg = JSON.parse(readFileSync(join(DIR, 'config.json'), 'utf8')) as { decoder_layers: number; decoder_attention_heads: number; d_model: number }
  const L = cfg.decoder_layers
  const H = cfg.decoder_attention_heads
  const dh = cfg.d_model / H
  const decoder = variant.files.past ?? variant.files.first
  const opts: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' }
  const plain = await ort.InferenceSession.create(decoder, opts)
  const slim = await readSlimModel(decoder)
  const tapped = await ort.InferenceSession.create(editedModelBytes(slim.bytes, crossAttentionTaps(slim.file.model.graph as GraphProto, L).edit), {
    ...opts,
    extra: { session: { model_external_initializers_file_folder_path: slim.dir } },
  })
  const S = 25
  const T = 10
  const all: Record<string, ort.Tensor> = {
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
        all[`past_key_values.${l}.${half}.${kv}`] = new ort.Tensor(
          'float32',
          new Float32Array(H * len * dh).map(() => Math.random() - 0.5),
          [1, H, len, dh],
        )
  // Only what this decoder declares, in its own float type (an fp16 export takes float16 states).
  const feeds: Record<string, ort.Tensor> = {}
  for (const meta of plain.inputMetadata) {
    const t = all[meta.name]
    feeds[meta.name] = meta.isTensor && meta.type === 'float16' ? toFloat16(t) : t
  }
  const plainT: number[] = []
  const tappedT: number[] = []
  for (let r = 0; r < REPS * 20; r++) {
    plainT.push((await timed(() => plain.run(feeds))).wall)
    tappedT.push((await timed(() => tapped.run(feeds))).wall)
  }
  await plain.release()
  await tapped.release()
  const load1 = loadavg()

  const ratio = theirs.length ? median(ours) / median(theirs) : null
  const tap = median(tappedT) / median(plainT)
  const firstTotal = open.map((o, i) => o.wall + first[i].wall)
  const firstTotalCpu = open.map((o, i) => o.cpu + first[i].cpu)
  const warmTotal = openWarm.map((o, i) => o.wall + firstWarm[i].wall)
  const warmTotalCpu = openWarm.map((o, i) => o.cpu + firstWarm[i].cpu)
  const gb = (b: number) => `${(b / 1e9).toFixed(2)} GB`
  const summary = {
    folder: DIR,
    dtype,
    pair: PAIR,
    reps: REPS,
    load: [load0, load1],
    tokens,
    openedBytes,
    rss,
    firstTotal,
    firstTotalCpu,
    open,
    first,
    warmTotal,
    warmTotalCpu,
    openWarm,
    firstWarm,
    next,
    ours,
    oursCpu,
    theirs,
    theirsCpu,
    tjsRefusal: refusal,
    plainStep: plainT,
    tappedStep: tappedT,
  }
  const row = (what: string, measured: string, met: boolean | null) => `| ${what} | ${measured} | ${met === null ? '—' : met ? 'yes' : 'no'} |`
  const out = `# Hugging Face folder benchmark

Written by \`${DIR === '/tmp/opus-mt-size' ? '' : `AL_HF_BENCH_DIR=${DIR} `}${DTYPE ? `AL_HF_BENCH_DTYPE=${DTYPE} ` : ''}npm run bench:hf\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC); how it measures: bench/hf.ts.

**Machine**: ${cpus()[0].model}, ${cpus().length} cores; load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start,
${load1.map((x) => x.toFixed(1)).join(' / ')} at the end. onnxruntime-node ${ort.env.versions.common} (CPU, 1 intra-op thread) for both
Attention Lens and transformers.js ${TJS_VERSION} (the same onnxruntime-node). ${REPS} repeats, in rotation.
GLIBC_TUNABLES=${process.env.GLIBC_TUNABLES ?? ''} (the engine process's: src/host/engine-env.ts).

**Model**: ${name}: ${cfg.d_model} d_model, ${L} decoder layers × ${H} heads (random weights), ${dtype}${suffix ? ` (\`${suffix}\` files)` : ''}${PAIR ? `, ${PAIR[0]} → ${PAIR[1]}` : ''};
opened: ${opened.map((f) => f.slice(DIR.length).replace(/^\//, '')).join(', ')} with their data, ${gb(openedBytes)}.
Sentence: "${SENTENCE}" (${SENTENCE.split(' ').length} words); random weights decode to the step limit: ${tokens} tokens.
Times are wall (CPU time of the process in brackets where given): median (range).

| measured | median (range over ${REPS} repeats) | within issue 39's target? |
| --- | --- | --- |
${row('first open to first heatmap (≤ 15 s fp32, ≤ 8 s q8)', `${show(firstTotal)} wall, ${show(firstTotalCpu)} CPU (open ${show(open.map((o) => o.wall))}, first translation ${show(first.map((f) => f.wall))})`, dtype === 'fp32' ? median(firstTotal) <= 15000 : dtype === 'q8' ? median(firstTotal) <= 8000 : null)}
${row('opened again, the tapped decoder from the cache (≤ 5 s)', `${show(warmTotal)} wall, ${show(warmTotalCpu)} CPU (open ${show(openWarm.map((o) => o.wall))}, first translation ${show(firstWarm.map((f) => f.wall))})`, median(warmTotal) <= 5000)}
${row('per decoded token against transformers.js, same files and threads (≤ 1.0×)', ratio === null ? `Attention Lens ${show(ours)} wall, ${show(oursCpu)} CPU per token; transformers.js cannot open the folder: ${refusal}` : `${ratio.toFixed(2)}×: Attention Lens ${show(ours)} wall, ${show(oursCpu)} CPU per token; transformers.js ${show(theirs)} wall, ${show(theirsCpu)} CPU`, ratio === null ? null : ratio <= 1.0)}
${row('attention taps (≤ 10 % of a step)', `${((tap - 1) * 100).toFixed(1)} %: with-past step ${show(tappedT)} tapped, ${show(plainT)} plain (${REPS * 20} steps each, S = ${S}, t = ${T}, ${decoder.slice(DIR.length).replace(/^\//, '')})`, tap <= 1.1)}
${row('resident memory ≤ 1.3× the files opened', `${gb(rss)} = ${(rss / openedBytes).toFixed(2)}× (a fresh process's RSS after the folder's first open, cache empty, and one translation)`, rss <= 1.3 * openedBytes)}
${row('keystroke → heatmap with the model open, another 20-word sentence (≤ 1.5 s q8)', `${show(next.map((n) => n.wall))} wall, ${show(next.map((n) => n.cpu))} CPU (the engine's translation and attention; the page's drawing not included)`, dtype === 'q8' ? median(next.map((n) => n.wall)) <= 1500 : null)}

The per-token times include everything each client does per step: Attention Lens reads every head's
cross-attention and keeps the cache beside its state (row numbers; copied only when a beam reorders rows); transformers.js
returns only the ids.
`
  const file = process.env.AL_HF_BENCH_OUT ?? join(ROOT, 'bench', 'HF-RESULTS.md')
  writeFileSync(file, out)
  writeFileSync(file.replace(/\.md$/, '') + '.json', JSON.stringify(summary, null, 1))
  console.log(out)
}

/**
 * The bench opens the models in its own process, so it runs with the engine process's environment
 * (src/host/engine-env.ts: glibc's huge pages), started again with it where it was not given one;
 * GLIBC_TUNABLES=glibc.malloc.hugetlb=0 measures without them.
 */
function asEngine(): boolean {
  const env = engineEnv()
  if (env === process.env) return false
  const r = spawnSync(process.execPath, [...process.execArgv, __filename, ...process.argv.slice(2)], { env, stdio: 'inherit' })
  process.exit(r.status ?? 1)
}

if (!asEngine()) void (process.env.AL_HF_BENCH_CHILD ? child() : main())
