/**
 * `AL_BENCH_BASE=/path/to/old/checkout npx tsx bench/contributions-ab.ts [model.onnx | folder]`:
 * this checkout's contributions against another's (an older commit's src, e.g. `git archive <commit>
 * src | tar -x -C /tmp/old`, its node_modules linked), in one process, on the test set's 25-word
 * sentences (default: resources/models/en-fr-transformer.onnx; a Hugging Face folder such as
 * /tmp/opus-mt-size, bench/hf.ts). Per sentence, in rotation: the app's greedy translation, then
 * old and new (the order alternating by round) run the tapped pass over that output and every
 * method. Prints process CPU time, median (min–max), and the largest difference between old's
 * and new's results. AL_BENCH_REPS (7) rounds, AL_BENCH_SENTENCES (5) sentences.
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ContributionModel, HfContributionModel, type Attributor } from '../src/engine/contributions'
import { targetIds, translate } from '../src/engine/decode'
import { LoadedModel } from '../src/engine/model'

const ROOT = join(import.meta.dirname, '..')
const BASE = process.env.AL_BENCH_BASE
const MODEL = process.argv[2] ?? join(ROOT, 'resources/models/en-fr-transformer.onnx')
const REPS = Number(process.env.AL_BENCH_REPS ?? 7)
const sources = readFileSync(join(ROOT, 'resources/testsets/en-fr.en'), 'utf8').trim().split('\n')
const long = sources.filter((s) => s.split(/\s+/).length === 25).slice(0, Number(process.env.AL_BENCH_SENTENCES ?? 5))

const cpuMs = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return `${s[Math.floor(s.length / 2)].toFixed(1)} (${s[0].toFixed(1)}–${s[s.length - 1].toFixed(1)})`
}
function maxDiff(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b)
  if (a && typeof a === 'object' && b && typeof b === 'object')
    return Math.max(0, ...Object.keys(a).map((k) => maxDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])))
  return a === b ? 0 : Infinity
}

async function main() {
  if (!BASE) throw new Error('AL_BENCH_BASE names the older checkout')
  const folder = statSync(MODEL).isDirectory()
  const old = (await import(join(BASE, 'src/engine/contributions/index.ts'))) as typeof import('../src/engine/contributions')
  const open = (m: typeof old): Promise<Attributor> => (folder ? m.HfContributionModel.open(MODEL) : m.ContributionModel.open(MODEL))
  const app = await LoadedModel.open(MODEL)
  const models = { old: await open(old), new: await open({ ContributionModel, HfContributionModel } as typeof old) }
  const t: Record<string, number[]> = { translate: [], 'old pass': [], 'old methods': [], 'old total': [], 'new pass': [], 'new methods': [], 'new total': [] }
  let diff = 0
  for (let rep = 0; rep < REPS; rep++)
    for (const s of long) {
      let c0 = cpuMs()
      const tr = await translate(app, s, {})
      t.translate.push(cpuMs() - c0)
      const ids = [...targetIds(app, tr.tgtTokens.slice(0, -1)), app.spec.special.eos]
      const results: unknown[] = []
      for (const k of rep % 2 ? (['new', 'old'] as const) : (['old', 'new'] as const)) {
        const cm = models[k]
        c0 = cpuMs()
        const tp = await cm.run(cm.encodeSource(s).ids, ids)
        const c1 = cpuMs()
        results.push(cm.contributions(tp))
        const c2 = cpuMs()
        t[`${k} pass`].push(c1 - c0)
        t[`${k} methods`].push(c2 - c1)
        t[`${k} total`].push(c2 - c0)
      }
      diff = Math.max(diff, maxDiff(results[0], results[1]))
    }
  console.log(`CPU ms, median (min–max) of ${REPS} × ${long.length}:`)
  for (const [k, v] of Object.entries(t)) console.log(`  ${k.padEnd(12)} ${stat(v)}`)
  console.log(`largest |old − new| over every result: ${diff.toExponential(2)}`)
  await Promise.all([app.release(), models.old.release(), models.new.release()])
}

void main()
