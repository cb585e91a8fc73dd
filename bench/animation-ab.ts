/**
 * `AL_BENCH_BASE=/path/to/old/checkout npx tsx bench/animation-ab.ts`: this checkout's animated
 * export against another's (a `git worktree` of an older commit, its node_modules linked), in one
 * process, one call each in turn, so both meet the same load: on a shared machine the CPU time of
 * the same work swings by half between runs minutes apart. The 25-word sentence of
 * bench/animation.ts, the step-through (AL_BENCH_VIEW) as GIF and APNG, AL_BENCH_REPS turns
 * (5) after one warm-up call each; prints each call's CPU time (user + system) and the medians.
 */
import { join } from 'node:path'
import { loadavg } from 'node:os'
import type { AnimatedData } from '../src/shared/animation'
import type { FigureSpec } from '../src/shared/figure'
import { SENTENCE_25 } from './sentences'

type Render = (data: AnimatedData, spec: FigureSpec, opts: { format: 'gif' | 'apng' }) => Promise<{ bytes: Buffer }>

const ROOT = join(import.meta.dirname, '..')
const BASE = process.env.AL_BENCH_BASE
const REPS = Number(process.env.AL_BENCH_REPS ?? 5)
const VIEW = (process.env.AL_BENCH_VIEW ?? 'step') as 'step' | 'heatmap' | 'beam'

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function main(): Promise<void> {
  if (!BASE) throw new Error('AL_BENCH_BASE: the other checkout to compare with')
  const renders: Record<string, Render> = {}
  for (const [name, root] of [
    ['old', BASE],
    ['new', ROOT],
  ] as const)
    renders[name] = ((await import(join(root, 'src/host/export/animation.ts'))) as { renderAnimation: Render }).renderAnimation
  const { InferenceService } = await import('../src/engine/service')
  const { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS } = await import('../src/shared/figure')
  const svc = new InferenceService()
  const t = await svc.translate(join(ROOT, 'resources', 'models', 'en-fr-local-p.onnx'), SENTENCE_25, VIEW === 'beam' ? { beam: 3 } : {})
  await svc.closeAll()
  const spec: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], dpi: 96, fontSize: FONT_PRESETS.screen }
  const data: AnimatedData = VIEW === 'step' ? { view: 'step', translation: t, step: 0, attention: 'local-p' } : { view: VIEW, translation: t }
  const load0 = loadavg()[0]
  for (const format of ['gif', 'apng'] as const) {
    const cpu: Record<string, number[]> = { old: [], new: [] }
    const bytes: Record<string, Buffer> = {}
    for (let r = -1; r < REPS; r++)
      for (const name of r % 2 ? ['old', 'new'] : ['new', 'old']) {
        const c0 = process.cpuUsage()
        bytes[name] = (await renders[name](data, spec, { format })).bytes
        const c = process.cpuUsage(c0)
        if (r >= 0) cpu[name].push((c.user + c.system) / 1e6)
      }
    const same = Buffer.compare(bytes.old, bytes.new) === 0
    for (const name of ['old', 'new'])
      console.log(
        `${VIEW} ${format.toUpperCase()} ${name}: median ${median(cpu[name]).toFixed(2)} s CPU (${Math.min(...cpu[name]).toFixed(2)}–${Math.max(...cpu[name]).toFixed(2)}; ${cpu[name].map((x) => x.toFixed(2)).join(' ')})`,
      )
    console.log(
      `${VIEW} ${format.toUpperCase()}: new/old ${(median(cpu.new) / median(cpu.old)).toFixed(2)}, files ${same ? 'byte for byte the same' : 'DIFFER'}`,
    )
  }
  console.log(`load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
