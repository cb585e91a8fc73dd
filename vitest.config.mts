import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { svelte } from '@sveltejs/vite-plugin-svelte'

/**
 * Unit files that must run in a module graph of their own: they mock modules (`vi.mock`), stub
 * globals or set process.env. Every other file shares its worker's modules with the files before
 * it (`isolate: false`): importing ECharts, the engine and the figure code once per worker instead
 * of once per file halved the CPU of test/unit/shared (issue 40, "Performance").
 */
const ISOLATED = readFileSync(new URL('./test/isolated-files.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'))

/**
 * One folder for everything a run writes to the temporary directory (the tests' mkdtemp folders,
 * browser mode's settings and uploads, the tapped Hugging Face decoders): the test workers and
 * what they start get it as TMPDIR, and it goes when the run ends, however it ends. Each run left
 * about 250 MB and 200 folders in /tmp before. Made once per run (the config is read again for
 * each project in the same process).
 */
const RUN_TMP = (process.env.AL_RUN_TMP ??= mkdtempSync(join(tmpdir(), 'al-run-')))
process.once('exit', () => rmSync(RUN_TMP, { recursive: true, force: true }))

/**
 * Files that run long for their size, started first in their project. Vitest queues a project's
 * files largest first where it has no timings of an earlier run (a clean clone, CI); the fuzz test,
 * 4 KB and 24 s (a thousand models opened by the engine process), was queued among the last and
 * ran on alone at the end of the run, one core idle beside it; the GIF colours' test is 7 KB and 12 s.
 */
const LONG = ['test/unit/engine/fuzz.test.ts', 'test/unit/host/animation-colours.test.ts']

class LongFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const long = (f: TestSpecification) => LONG.some((l) => f.moduleId.endsWith(l))
    // Stable: each long file moves ahead of the other files of its project only.
    const at = new Map(sorted.map((f, i) => [f, i]))
    const first = new Map<string, number>()
    for (const [i, f] of sorted.entries()) if (!first.has(f.project.name)) first.set(f.project.name, i)
    const key = (f: TestSpecification) => (long(f) ? first.get(f.project.name)! - 0.5 : at.get(f)!)
    return [...sorted].sort((a, b) => key(a) - key(b))
  }
}

export default defineConfig({
  // The renderer's state classes (*.svelte.ts) use runes; compile them as the browser gets them.
  plugins: [svelte({ configFile: false, dynamicCompileOptions: () => ({ generate: 'client' }) })],
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two test files at a time: a file spends much of its time waiting on other processes (the
    // engine, Chromium, poppler, Python), so one at a time left about half of two cores idle; the
    // whole suite measured 6 CPU minutes. Two workers on two cores, not more: the engine's native
    // code runs its own threads.
    fileParallelism: true,
    maxWorkers: 2,
    isolate: false,
    // A 64 MB young generation in each worker (V8's default tops out at 16 MB): the figure and PDF
    // tests allocate a great deal that dies young, and each scavenge of a small space promotes some
    // of it to be collected again. The unit project took 10 % less CPU (434 and 460 CPU s, 408 and
    // 399 with it, interleaved; issue 40, "Performance").
    execArgv: ['--max-semi-space-size=64'],
    // The tapped Hugging Face decoders a test opens are cached in the run's folder, not in the
    // user's ~/.cache (src/engine/formats/hf/tap-cache.ts).
    env: { TMPDIR: RUN_TMP, AL_CACHE_DIR: join(RUN_TMP, 'tap-cache') },
    // The default report, and every skipped test by name with its reason.
    reporters: ['default', './test/skip-reporter.ts'],
    sequence: { sequencer: LongFirst },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: ISOLATED } },
      // Named to sort between e2e and unit: vitest queues the projects' files by name, then by size,
      // and these few long files (the web server's, the PNG layout's) ran last, one core idle
      // beside the last of them; the unit project's many short files now end the run.
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      // One Chromium per worker for its e2e files (test/e2e/harness.ts, launchChromium).
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // expect.poll's own default is 1 s: an upload, an open and a translation in browser mode
          // take longer than that on a loaded two-core machine.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
})
