/**
 * `npm run bench:align`: the alignment and faithfulness work of issue 24, timed.
 *
 * - the 200 en-fr gold pairs aligned by one RNN (en-fr-luong-dot): forced decoding in batches,
 *   word aggregation, argmax links, AER;
 * - the same pairs by the Transformer, every reading: all 12 heads, 3 layer averages, the all-heads
 *   average, each also shifted (32 alignments from one forced decoding);
 * - occlusion of 20-word sentences (the test set's first five of exactly 20 words) by an RNN and
 *   by the Transformer;
 * - the statistical aligner on Multi30K train + the 200 pairs, 5 EM iterations each direction;
 * - the Alignment score tab's board for a model of 12 × 16 = 192 heads (test/fixtures/hf/many-heads)
 *   on the 200 pairs: every head, each layer's average and the all-heads average (issue 39).
 *
 * The tasks run in rotation, repeat by repeat, so a busy moment slows all of them alike. Each is
 * reported as wall time and as this process's CPU time (the engine runs onnxruntime with one
 * thread a session, so CPU time is what one core spends), median and range over the repeats.
 * Writes bench/ALIGN-RESULTS.md. AL_BENCH_REPS (5) changes the repeats.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { scoreSet } from '../src/engine/align/aer'
import { pairAttentions, readingsOf, wordMatrix } from '../src/engine/align/attention'
import { trainingCorpus } from '../src/engine/align/corpus'
import { extractLinks } from '../src/engine/align/extract'
import { readLinks, readPairs } from '../src/engine/align/gold'
import { occlusion } from '../src/engine/align/occlusion'
import { alignStatistically } from '../src/engine/align/statistical'
import { boardModel } from '../src/engine/align/board'
import { LoadedModel } from '../src/engine/model'
import { tokenize } from '../src/engine/tokenizer'
import { wordSpans } from '../src/shared/attention/words'

const ROOT = join(__dirname, '..')
const MODELS = process.env.AL_MODELS_DIR ?? join(ROOT, 'resources', 'models')
const DATASETS = process.env.AL_DATASETS ?? join(ROOT, '..', 'shared', 'datasets')
const REPS = Number(process.env.AL_BENCH_REPS ?? 5)

interface Sample {
  wall: number
  cpu: number
}

async function timed(work: () => Promise<unknown>): Promise<Sample> {
  const c = process.cpuUsage()
  const t = performance.now()
  await work()
  const u = process.cpuUsage(c)
  return { wall: (performance.now() - t) / 1000, cpu: (u.user + u.system) / 1e6 }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

async function main(): Promise<void> {
  const load0 = loadavg()
  const pairs = await readPairs(join(DATASETS, 'alignment-gold', 'enfr.src-tgt'))
  const gold = await readLinks(join(DATASETS, 'alignment-gold', 'enfr.gold'), true)
  const rnn = await LoadedModel.open(join(MODELS, 'en-fr-luong-dot.onnx'))
  const transformer = await LoadedModel.open(join(MODELS, 'en-fr-transformer.onnx'))
  const manyHeads = await LoadedModel.open(join(ROOT, 'test', 'fixtures', 'hf', 'many-heads'))
  const corpus = (await trainingCorpus(DATASETS, 'en-fr', pairs))!
  const test = readFileSync(join(ROOT, 'resources', 'testsets', 'en-fr.en'), 'utf8')
    .trim()
    .split('\n')
  const twenty = test.filter((s) => wordSpans(tokenize(s, rnn.spec.srcTokenizer)).length === 20).slice(0, 5)
  if (twenty.length < 5) throw new Error('fewer than five 20-word sentences in the test set')
  const tasks: Record<string, () => Promise<unknown>> = {
    'align 200 en-fr pairs, one RNN (en-fr-luong-dot)': async () => {
      const pa = await pairAttentions(rnn, pairs)
      scoreSet(
        gold,
        pa.map((p) => extractLinks(wordMatrix(p))),
      )
    },
    'align 200 en-fr pairs, Transformer, every head, layer and average, plain and shifted (32 readings)': async () => {
      const pa = await pairAttentions(transformer, pairs)
      for (const shifted of [false, true])
        for (const reading of readingsOf(transformer.spec.heads))
          scoreSet(
            gold,
            pa.map((p) => extractLinks(wordMatrix(p, { reading, shifted }))),
          )
    },
    'occlusion of one 20-word sentence, RNN (median over 5 sentences)': async () => {
      for (const s of twenty) await occlusion(rnn, s)
    },
    'occlusion of one 20-word sentence, Transformer (median over 5 sentences)': async () => {
      for (const s of twenty) await occlusion(transformer, s)
    },
    'statistical aligner, 29,000 + 200 pairs, 5 EM iterations each direction': async () => {
      await alignStatistically(pairs, corpus.pairs)
    },
    'Alignment score board, 192 heads (test/fixtures/hf/many-heads), 200 en-fr pairs': async () => {
      await boardModel(manyHeads, pairs, gold)
    },
  }
  // Warm-up: sessions, caches and JIT, once each.
  await occlusion(rnn, twenty[0])
  await occlusion(transformer, twenty[0])
  await pairAttentions(rnn, pairs.slice(0, 8))
  await pairAttentions(transformer, pairs.slice(0, 8))
  const names = Object.keys(tasks)
  const samples = new Map<string, Sample[]>(names.map((n) => [n, []]))
  for (let r = 0; r < REPS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length]
      const s = await timed(tasks[name])
      // The occlusion tasks run five sentences: one sentence's time is a fifth.
      const per = name.startsWith('occlusion') ? 5 : 1
      samples.get(name)!.push({ wall: s.wall / per, cpu: s.cpu / per })
      process.stderr.write(`bench:align: repeat ${r + 1}/${REPS} ${name}: ${(s.wall / per).toFixed(3)} s\n`)
    }
  }
  const load1 = loadavg()
  const targets: Record<string, number> = {
    [names[0]]: 3,
    [names[1]]: 5,
    [names[2]]: 0.3,
    [names[3]]: 0.3,
    [names[4]]: 20,
    [names[5]]: 120,
  }
  const fmt = (x: number) => (x < 1 ? `${(x * 1000).toFixed(0)} ms` : `${x.toFixed(2)} s`)
  const rows = names.map((n) => {
    const s = samples.get(n)!
    const w = s.map((x) => x.wall)
    const c = s.map((x) => x.cpu)
    const t = targets[n]
    return `| ${n} | ${fmt(median(w))} (${fmt(Math.min(...w))}–${fmt(Math.max(...w))}) | ${fmt(median(c))} (${fmt(Math.min(...c))}–${fmt(Math.max(...c))}) | < ${fmt(t)} | ${median(w) < t ? 'met' : median(c) < t ? 'met in CPU time, not wall' : 'not met'} |`
  })
  const md = [
    '# Alignment and faithfulness timings (issue 24)',
    '',
    `Measured by \`npm run bench:align\` (bench/align.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${REPS} repeats in rotation.`,
    `Load average at the start ${load0.map((x) => x.toFixed(1)).join(' / ')}, at the end ${load1.map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min): the machine is shared with other engineers' work and model training, so wall times are inflated; CPU time is what this process spent (onnxruntime runs one thread a session; EM is one JavaScript thread).`,
    '',
    '| task | wall, median (range) | CPU, median (range) | target | |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows,
    '',
  ].join('\n')
  writeFileSync(join(ROOT, 'bench', 'ALIGN-RESULTS.md'), md)
  process.stdout.write(md)
  await rnn.release()
  await transformer.release()
}

main().catch((e: Error) => {
  console.error(`bench:align: ${e.message}`)
  process.exit(1)
})
