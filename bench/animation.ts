/**
 * `npx tsx bench/animation.ts`: the animated exports' budget (issue 34) measured. A 25-word
 * sentence decoded by en-fr-local-p, animated at 1280×720 (slide-16x9 at 96 dpi, screen text) as
 * the heatmap filling, as the step-through and as the beam tree growing (beam 3), each as GIF and APNG: frames, bytes, and the time
 * from figure data to file (drawing, rasterising, encoding), CPU time of this process beside the
 * wall time. Run it under `taskset -c 0` for one core. Writes bench/ANIMATION-RESULTS.md.
 *
 * AL_BENCH_ONLY=step:gif (views and formats, comma-separated: `step`, `gif`, `step:gif`) measures
 * only those and writes nothing: a quick look, or one side of an old-against-new comparison.
 */
import { writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { InferenceService } from '../src/engine/service'
import { renderAnimation, type AnimatedData } from '../src/host/export/animation'
import { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS, type FigureSpec } from '../src/shared/figure'
import { SENTENCE_25 } from './sentences'

const ROOT = join(import.meta.dirname, '..')
const MODEL = join(ROOT, 'resources', 'models', 'en-fr-local-p.onnx')
const BUDGET = { bytes: 5e6, seconds: 10 }
const REPS = Number(process.env.AL_BENCH_REPS ?? 2)
const ONLY = process.env.AL_BENCH_ONLY?.split(',').map((s) => s.trim()) ?? null
const wanted = (view: string, format: string) => !ONLY || ONLY.some((w) => w === view || w === format || w === `${view}:${format}`)

async function main(): Promise<void> {
  const svc = new InferenceService()
  const t = await svc.translate(MODEL, SENTENCE_25)
  const beamed = await svc.translate(MODEL, SENTENCE_25, { beam: 3 })
  await svc.closeAll()
  const spec: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], dpi: 96, fontSize: FONT_PRESETS.screen }
  const rows: string[] = []
  const load0 = loadavg()[0]
  for (const view of ['heatmap', 'step', 'beam'] as const)
    for (const format of ['gif', 'apng'] as const) {
      if (!wanted(view, format)) continue
      const data: AnimatedData =
        view === 'heatmap'
          ? { view, translation: t }
          : view === 'beam'
            ? { view, translation: beamed }
            : { view, translation: t, step: 0, attention: 'local-p' }
      const walls: number[] = []
      const cpu: number[] = []
      let out = null
      for (let r = 0; r < REPS; r++) {
        const c0 = process.cpuUsage()
        const w0 = performance.now()
        out = await renderAnimation(data, spec, { format })
        walls.push((performance.now() - w0) / 1000)
        const c = process.cpuUsage(c0)
        cpu.push((c.user + c.system) / 1e6)
      }
      const best = (xs: number[]) => Math.min(...xs)
      const mb = out!.bytes.length / 1e6
      // Judged by CPU time: on a shared machine the wall time counts other processes' turns on the core.
      const ok = (format === 'apng' || mb <= BUDGET.bytes / 1e6) && best(cpu) <= BUDGET.seconds
      rows.push(
        `| ${view} | ${format.toUpperCase()} | ${out!.frames} | ${out!.width}×${out!.height} | ${mb.toFixed(2)} MB | ${best(walls).toFixed(2)} s | ${best(cpu).toFixed(2)} s | ${ok ? 'within' : 'OVER'} |`,
      )
      console.log(rows[rows.length - 1])
    }
  if (ONLY) return
  const md = [
    '# Animated export: measured',
    '',
    `\`npx tsx bench/animation.ts\` (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'CPU'}, load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}${process.env.AL_BENCH_NOTE ? `, ${process.env.AL_BENCH_NOTE}` : ''}).`,
    '',
    `Sentence (25 words): "${SENTENCE_25}"; en-fr-local-p greedy: "${t.text}" (${t.tgtTokens.length} decoder steps, ${t.srcTokens.length} source pieces); beam 3: "${beamed.text}" (${Math.max(...beamed.beamTree!.nodes.map((n) => n.step)) + 1} steps, the tree without its pruned hypotheses).`,
    'Page: slide-16x9 at 96 dpi (1280×720 pixels), screen text (12 pt), viridis, a caption per frame; 800 ms a step, the last frame held 3 s.',
    `Time: figure data to file (drawing every frame, rasterising, encoding), the best of ${REPS}; CPU is this process's user + system time over the same span.`,
    'The budget is judged on CPU time: the export is one thread, and on a loaded machine the wall time also counts the turns other processes take on the core.',
    `Budget (issue 34): GIF ≤ ${BUDGET.bytes / 1e6} MB, ≤ ${BUDGET.seconds} s on one core. APNG is lossless and has no size budget.`,
    '',
    '| view | format | frames | pixels | size | wall | CPU | budget |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n')
  writeFileSync(join(ROOT, 'bench', 'ANIMATION-RESULTS.md'), md)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
