/**
 * `npx tsx bench/contributions.ts [model.onnx]`: the contribution methods of issue 41 measured on a
 * bundled Transformer (default resources/models/en-fr-transformer.onnx). Writes
 * bench/CONTRIBUTIONS-RESULTS.md (AL_BENCH_OUT to write elsewhere).
 *
 * 1. Time: the test set's 25-word sentences translated by the app (greedy, `translate`), against
 *    the contributions of that output (the tapped forward pass over it plus ALTI, ALTI+, rollout
 *    and the norms). Wall and process CPU time (onnxruntime runs one thread a session), median
 *    over AL_BENCH_REPS (5) rounds, the tasks in rotation.
 * 2. The residual's share per layer, on the true pairs of 3: each cross-attention block's ALTI
 *    residual column (what the block's output owes to its input rather than to the source), and
 *    each self-attention block's diagonal (what a position owes to its own token: residual and
 *    its own value together), means over every output piece (encoder: every source piece).
 * 3. Planted hallucination: the first AL_BENCH_PAIRS (200) test pairs, each source forced through
 *    the model with its own reference and with the next pair's reference (a fluent sentence that
 *    does not translate it). Each method's mean source share per sentence, and how well it tells
 *    the two apart: ROC AUC (the probability that a true pair's share is above a mismatched one's).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { basename, join } from 'node:path'
import { existsSync } from 'node:fs'
import { ContributionModel, HfContributionModel, type Attributor } from '../src/engine/contributions'
import { targetIds, translate } from '../src/engine/decode'
import { LoadedModel } from '../src/engine/model'
import { CONTRIBUTION_METHODS, methodResult, type ContributionMethod } from '../src/shared/contributions'

const ROOT = join(import.meta.dirname, '..')
const MODEL = process.argv[2] ?? join(ROOT, 'resources/models/en-fr-transformer.onnx')
const REPS = Number(process.env.AL_BENCH_REPS ?? 5)
const PAIRS = Number(process.env.AL_BENCH_PAIRS ?? 200)
const pair = basename(MODEL).slice(0, 5)
const [srcLang, tgtLang] = pair.split('-')
const sources = readFileSync(join(ROOT, `resources/testsets/${pair}.${srcLang}`), 'utf8')
  .trim()
  .split('\n')
const refs = readFileSync(join(ROOT, `resources/testsets/${pair}.${tgtLang}`), 'utf8')
  .trim()
  .split('\n')

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
/** Median (min–max) in ms. */
const ms = (xs: number[]) => `${(median(xs) * 1000).toFixed(1)} (${(Math.min(...xs) * 1000).toFixed(1)}–${(Math.max(...xs) * 1000).toFixed(1)})`
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

async function timed<R>(f: () => Promise<R>): Promise<{ r: R; wall: number; cpu: number }> {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const r = await f()
  const c = process.cpuUsage(c0)
  return { r, wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 }
}

/** ROC AUC of "positives above negatives" (ties count a half). */
function auc(pos: number[], neg: number[]): number {
  let s = 0
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0
  return s / (pos.length * neg.length)
}

/** The translation (the app's greedy decoder) against the contributions of its output, in rotation. */
async function timeBoth(app: LoadedModel, cm: Attributor, long: string[]) {
  const t = { translate: [] as number[], contrib: [] as number[], pass: [] as number[], cTranslate: [] as number[], cContrib: [] as number[] }
  for (let rep = 0; rep < REPS; rep++) {
    for (const s of long) {
      const tr = await timed(() => translate(app, s, {}))
      const ids = [...targetIds(app, tr.r.tgtTokens.slice(0, -1)), app.spec.special.eos]
      const co = await timed(async () => {
        const tp = await cm.run(cm.encodeSource(s).ids, ids)
        cm.contributions(tp)
        return tp
      })
      t.translate.push(tr.wall)
      t.cTranslate.push(tr.cpu)
      t.contrib.push(co.wall)
      t.cContrib.push(co.cpu)
      t.pass.push(co.r.runSeconds)
    }
  }
  return {
    n: long.length,
    rows: [
      `| translate (greedy, the app's decoder) | ${ms(t.translate)} | ${ms(t.cTranslate)} |`,
      `| contributions of that output (tapped pass + every method) | ${ms(t.contrib)} | ${ms(t.cContrib)} |`,
      `| of which the tapped pass in onnxruntime | ${ms(t.pass)} | |`,
    ],
    ratio: median(t.contrib) / median(t.translate),
    cpuRatio: median(t.cContrib) / median(t.cTranslate),
  }
}

async function main() {
  const app = await LoadedModel.open(MODEL)
  const cm = await ContributionModel.open(MODEL)
  const long = sources.filter((s) => s.split(/\s+/).length === 25).slice(0, 5)
  const time = await timeBoth(app, cm, long)
  // An opus-mt-size Hugging Face folder (bench/hf.ts makes it), where there is one: the target.
  const hfDir = process.env.AL_HF_BENCH_DIR ?? '/tmp/opus-mt-size'
  let hfTime: Awaited<ReturnType<typeof timeBoth>> | null = null
  if (existsSync(join(hfDir, 'config.json'))) {
    const hfApp = await LoadedModel.open(hfDir)
    const hfCm = await HfContributionModel.open(hfDir)
    hfTime = await timeBoth(hfApp, hfCm, long.slice(0, Number(process.env.AL_BENCH_HF_SENTENCES ?? 2)))
    await hfCm.release()
    await hfApp.release()
  }
  const rows = time.rows
  const ratio = time.ratio

  const share: Record<ContributionMethod, { truth: number[]; planted: number[] }> = Object.fromEntries(
    CONTRIBUTION_METHODS.map((m) => [m, { truth: [], planted: [] }]),
  ) as never
  const n = Math.min(PAIRS, sources.length)
  const residual = { cross: [] as number[][], self: [] as number[][], encoder: [] as number[][] }
  const push = (into: number[][], l: number, v: number) => (into[l] ??= []).push(v)
  for (let i = 0; i < n; i++) {
    const src = cm.encodeSource(sources[i])
    for (const [kind, ref] of [
      ['truth', refs[i]],
      ['planted', refs[(i + 1) % n]],
    ] as const) {
      const c = cm.contributions(await cm.run(src.ids, cm.encodeTarget(ref, src.ids.length)))
      for (const m of CONTRIBUTION_METHODS) share[m][kind].push(mean(methodResult(c, m).sourceShare))
      if (kind === 'truth') {
        const S = c.srcTokens.length
        c.crossAlti.forEach((layer, l) => layer.forEach((row) => push(residual.cross, l, row[S])))
        c.selfAlti.forEach((layer, l) => layer.forEach((row, t) => push(residual.self, l, row[t])))
        c.encoderAlti.forEach((layer, l) => layer.forEach((row, j) => push(residual.encoder, l, row[j])))
      }
    }
  }
  const sep = CONTRIBUTION_METHODS.map((m) => {
    const { truth, planted } = share[m]
    return `| ${m} | ${mean(truth).toFixed(3)} | ${mean(planted).toFixed(3)} | ${(mean(truth) - mean(planted)).toFixed(3)} | ${auc(truth, planted).toFixed(3)} |`
  })
  const text = [
    '# Contributions (issue 41): time and the planted-hallucination separation',
    '',
    `\`npx tsx bench/contributions.ts ${basename(MODEL)}\` on ${cpus()[0]?.model ?? 'a CPU'} (${cpus().length} cores, load ${loadavg()[0].toFixed(1)}), ${new Date().toISOString().slice(0, 10)}.`,
    '',
    `## Time, ${long.length} test sentences of 25 words, ${REPS} rounds: median (min–max), ms`,
    '',
    '| task | wall | CPU |',
    '| --- | --- | --- |',
    ...rows,
    '',
    `Contributions / translation: **${ratio.toFixed(2)}×** wall, **${time.cpuRatio.toFixed(2)}×** CPU. The contributions run a second, tapped pass over the translation's output (given the output, a step without the logits).`,
    ...(hfTime
      ? [
          '',
          `### The same on ${hfDir} (opus-mt-size, random weights: the output runs to the step limit), ${hfTime.n} sentences`,
          '',
          '| task | wall | CPU |',
          '| --- | --- | --- |',
          ...hfTime.rows,
          '',
          `Contributions / translation: **${hfTime.ratio.toFixed(2)}×** wall, **${hfTime.cpuRatio.toFixed(2)}×** CPU (the issue's target: ≤ 1.5×).`,
        ]
      : []),
    '',
    `## The residual's share per layer (ALTI), the first ${n} test pairs with their references`,
    '',
    '| layer | encoder self-attention: own token | decoder self-attention: own token | cross-attention: residual |',
    '| --- | --- | --- | --- |',
    ...residual.cross.map(
      (_, l) =>
        `| ${l + 1} | ${residual.encoder[l] ? mean(residual.encoder[l]).toFixed(3) : ''} | ${mean(residual.self[l]).toFixed(3)} | ${mean(residual.cross[l]).toFixed(3)} |`,
    ),
    '',
    `## Planted hallucination, the first ${n} test pairs`,
    '',
    "Each source forced with its own reference (truth) and with the next pair's (planted); the mean source share per sentence.",
    '',
    '| method | truth | planted | difference | ROC AUC |',
    '| --- | --- | --- | --- | --- |',
    ...sep,
    '',
  ].join('\n')
  const out = process.env.AL_BENCH_OUT ?? join(ROOT, 'bench/CONTRIBUTIONS-RESULTS.md')
  writeFileSync(out, text)
  console.log(text)
  await cm.release()
  await app.release()
}

void main()
