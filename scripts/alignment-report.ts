/**
 * `npm run alignment-report`: the README's two alignment tables, measured now on the bundled models.
 *
 * 1. AER on the two gold sets (../shared/datasets/alignment-gold, 200 pairs each) for every bundled
 *    translation model of that pair (its attention, argmax per target word; a Transformer's
 *    all-heads average, best layer, best and worst head), the statistical aligner (fast_align's
 *    model, grow-diag-final-and, trained on the pair's training corpus plus the 200 pairs),
 *    awesome-align's file, and a diagonal baseline.
 * 2. Corpus attention ablation on the bundled test set of each pair (resources/testsets): BLEU and
 *    mean reference log-probability with the model's own, uniform and permuted attention, and the
 *    occlusion summary (Kendall τ, top-1 agreement) on its first sentences.
 *
 * Rewrites the README between `<!-- alignment-report:start -->` and `<!-- alignment-report:end -->`.
 * AL_MODELS_DIR, AL_DATASETS (default ../shared/datasets), AL_ABLATION_SENTENCES (1000),
 * AL_OCCLUSION_SENTENCES (100) change the inputs. Progress on stderr.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { ablationSet, type AblationScore } from '../src/engine/align/ablation'
import { formatAer, scoreSet, type AerScore } from '../src/engine/align/aer'
import { pairAttentions, readingName, readingsOf, wordMatrix, type Reading } from '../src/engine/align/attention'
import { trainingCorpus } from '../src/engine/align/corpus'
import { extractLinks } from '../src/engine/align/extract'
import { readLinks, readPairs, type WordPair } from '../src/engine/align/gold'
import { occlusionSummary, type OcclusionSummary } from '../src/engine/align/occlusion'
import { sureLinks, type Link } from '../src/engine/align/pharaoh'
import { alignStatistically } from '../src/engine/align/statistical'
import { LoadedModel } from '../src/engine/model'

const ROOT = join(__dirname, '..')
const MODELS = process.env.AL_MODELS_DIR ?? join(ROOT, 'resources', 'models')
const DATASETS = process.env.AL_DATASETS ?? join(ROOT, '..', 'shared', 'datasets')
const ABLATION_N = Number(process.env.AL_ABLATION_SENTENCES ?? 1000)
const OCCLUSION_N = Number(process.env.AL_OCCLUSION_SENTENCES ?? 100)
const GOLD: Record<string, string> = { 'en-fr': 'enfr', 'zh-en': 'zhen' }
const TESTSET: Record<string, [string, string]> = { 'en-fr': ['en-fr.en', 'en-fr.fr'], 'zh-en': ['zh-en.zh', 'zh-en.en'] }

const log = (s: string) => process.stderr.write(`alignment-report: ${s}\n`)
const f2 = (x: number) => x.toFixed(2)
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`

/** The trivial aligner a lecturer should compare with: target word j → the source word on the diagonal. */
function diagonal(pairs: WordPair[]): Link[][] {
  return pairs.map((p) => sureLinks(p.tgt.map((_, j) => [Math.round((j * (p.src.length - 1)) / Math.max(p.tgt.length - 1, 1)), j])))
}

interface AerRow {
  aligner: string
  score: AerScore
  shifted?: AerScore
}

async function aerTable(pair: string, files: string[]): Promise<{ rows: AerRow[]; corpus: string }> {
  const base = join(DATASETS, 'alignment-gold', GOLD[pair])
  const pairs = await readPairs(`${base}.src-tgt`)
  const gold = await readLinks(`${base}.gold`, true)
  const score = (hyp: Link[][]) => scoreSet(gold, hyp).set
  const rows: AerRow[] = []
  for (const file of files) {
    const model = await LoadedModel.open(join(MODELS, file))
    const name = file.replace(/\.onnx$/, '')
    if (model.spec.attention === 'none') {
      rows.push({ aligner: `${name} (no attention)`, score: { aer: NaN, precision: NaN, recall: NaN } })
      await model.release()
      continue
    }
    const started = performance.now()
    const pa = await pairAttentions(model, pairs)
    const read = (reading: Reading, shifted: boolean) => score(pa.map((p) => extractLinks(wordMatrix(p, { reading, shifted }))))
    const readings = readingsOf(model.spec.heads)
    const scored = readings.map((r) => ({ r, score: read(r, false), shifted: read(r, true) }))
    const label = (r: Reading) => (r.kind === 'average' ? (model.spec.heads ? `${name}, all-heads average` : name) : `${name}, ${readingName(r)}`)
    rows.push({ aligner: label(scored[0].r), score: scored[0].score, shifted: scored[0].shifted })
    for (const kind of ['layer', 'head'] as const) {
      const some = scored.filter((s) => s.r.kind === kind).sort((a, b) => a.score.aer - b.score.aer)
      if (!some.length) continue
      rows.push({ aligner: `${label(some[0].r)} (best ${kind} of ${some.length})`, score: some[0].score, shifted: some[0].shifted })
      if (kind === 'head') rows.push({ aligner: `${label(some.at(-1)!.r)} (worst head)`, score: some.at(-1)!.score, shifted: some.at(-1)!.shifted })
    }
    log(`${pair} ${name}: ${formatAer(scored[0].score)} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
    await model.release()
  }
  const corpus = await trainingCorpus(DATASETS, pair, pairs)
  const started = performance.now()
  const stat = await alignStatistically(pairs, corpus?.pairs ?? [])
  log(`${pair} statistical aligner: ${formatAer(score(stat.links))} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
  const alone = await alignStatistically(pairs, [])
  rows.push({
    aligner: `statistical aligner (IBM 1 + diagonal prior, grow-diag-final-and), ${corpus?.name ?? 'no corpus'} + the 200 pairs`,
    score: score(stat.links),
  })
  rows.push({ aligner: 'statistical aligner, the 200 pairs alone', score: score(alone.links) })
  rows.push({ aligner: "awesome-align's file (fine-tuned mBERT)", score: score(await readLinks(`${base}.awesome-align.out`, false)) })
  rows.push({ aligner: 'diagonal baseline (no model)', score: score(diagonal(pairs)) })
  return { rows, corpus: corpus?.name ?? 'none' }
}

interface AblationRow {
  model: string
  own: AblationScore
  uniform: AblationScore | null
  permuted: AblationScore | null
  occlusion: OcclusionSummary | null
}

async function ablationTable(pair: string, files: string[]): Promise<AblationRow[]> {
  const [s, r] = TESTSET[pair]
  const read = (f: string) =>
    readFileSync(join(ROOT, 'resources', 'testsets', f), 'utf8')
      .trim()
      .split('\n')
      .slice(0, ABLATION_N)
  const srcs = read(s)
  const refs = read(r)
  const rows: AblationRow[] = []
  for (const file of files) {
    const model = await LoadedModel.open(join(MODELS, file))
    const name = file.replace(/\.onnx$/, '')
    const started = performance.now()
    const { own, uniform, permuted } = await ablationSet(model, srcs, refs, { seed: 1 })
    const occlusion = model.spec.attention === 'none' ? null : await occlusionSummary(model, srcs.slice(0, OCCLUSION_N))
    log(`${pair} ${name}: BLEU ${own.bleu} / ${uniform?.bleu ?? '—'} / ${permuted?.bleu ?? '—'} (${((performance.now() - started) / 1000).toFixed(0)} s)`)
    rows.push({ model: name, own, uniform, permuted, occlusion })
    await model.release()
  }
  return rows
}

function translationModels(): Map<string, string[]> {
  const byPair = new Map<string, string[]>()
  for (const file of readdirSync(MODELS)
    .filter((f) => f.endsWith('.onnx'))
    .sort()) {
    const m = /^([a-z]{2})-([a-z]{2})-/.exec(file)
    if (!m || !GOLD[`${m[1]}-${m[2]}`]) continue
    const pair = `${m[1]}-${m[2]}`
    byPair.set(pair, [...(byPair.get(pair) ?? []), file])
  }
  return byPair
}

async function main(): Promise<void> {
  if (!existsSync(join(DATASETS, 'alignment-gold'))) throw new Error(`no gold sets in ${DATASETS}/alignment-gold (set AL_DATASETS)`)
  const started = new Date()
  const load = loadavg()[0]
  const out: string[] = []
  const ablations: [string, AblationRow[]][] = []
  for (const [pair, files] of translationModels()) {
    const { rows, corpus } = await aerTable(pair, files)
    out.push(
      `**${pair}, ${pair === 'en-fr' ? 'Hansards' : 'Tsinghua'} gold, 200 pairs** (statistical aligner trained on ${corpus} plus the pairs; 5 EM iterations each direction)`,
      '',
      row(['aligner', 'AER %', 'precision %', 'recall %', 'AER % shifted']),
      row(['---', '---:', '---:', '---:', '---:']),
      ...rows.map((r) =>
        Number.isNaN(r.score.aer)
          ? row([r.aligner, '—', '—', '—', '—'])
          : row([r.aligner, f2(r.score.aer), f2(r.score.precision), f2(r.score.recall), r.shifted ? f2(r.shifted.aer) : '']),
      ),
      '',
    )
    ablations.push([pair, await ablationTable(pair, files)])
  }
  const ab: string[] = [
    row(['model', 'BLEU own', 'BLEU uniform', 'BLEU permuted', 'ref. log p own', 'uniform', 'permuted', 'occlusion τ', 'top-1 agreement']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ]
  for (const [, rows] of ablations)
    for (const r of rows)
      ab.push(
        row([
          r.model,
          f2(r.own.bleu),
          r.uniform ? f2(r.uniform.bleu) : '—',
          r.permuted ? f2(r.permuted.bleu) : '—',
          r.own.refLogProb.toFixed(3),
          r.uniform ? r.uniform.refLogProb.toFixed(3) : '—',
          r.permuted ? r.permuted.refLogProb.toFixed(3) : '—',
          r.occlusion?.meanTau != null ? r.occlusion.meanTau.toFixed(2) : '—',
          r.occlusion ? `${(100 * r.occlusion.top1Rate).toFixed(0)} %` : '—',
        ]),
      )
  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(0)
  const section = [
    '<!-- alignment-report:start -->',
    `_Measured by \`npm run alignment-report\` on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC (${seconds} s, ${cpus().length} cores, load ${load.toFixed(1)} at the start); the models in resources/models at that time._`,
    '',
    ...out,
    `**Corpus attention ablation**: greedy decoding of the first ${ABLATION_N} sentences of each pair's bundled test set (resources/testsets) with the model's own attention, uniform attention at every step, and each step's own attention randomly permuted over the source (seed 1); BLEU (sacreBLEU 13a, case-insensitive) and the mean log-probability of a reference token under forced decoding with the same attention. Occlusion: the first ${OCCLUSION_N} sentences, mean Kendall τ between attention and leave-one-word-out importance per output token, and how often both put the same source word first.`,
    '',
    ...ab,
    '<!-- alignment-report:end -->',
  ].join('\n')
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const re = /<!-- alignment-report:start -->[\s\S]*<!-- alignment-report:end -->/
  if (!re.test(readme)) throw new Error('README.md has no <!-- alignment-report:start --> … end --> markers')
  writeFileSync(join(ROOT, 'README.md'), readme.replace(re, section))
  log(`README.md updated (${seconds} s)`)
}

main().catch((e: Error) => {
  console.error(`alignment-report: ${e.message}`)
  process.exit(1)
})
