import { defineConfig } from 'vitest/config'
import { svelte } from '@sveltejs/vite-plugin-svelte'

export default defineConfig({
  // The renderer's state classes (*.svelte.ts) use runes; compile them as the browser gets them.
  plugins: [svelte({ configFile: false, dynamicCompileOptions: () => ({ generate: 'client' }) })],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two test files at a time: a file spends much of its time waiting on other processes (the
    // engine, Chromium, poppler, Python), so one at a time left about half of two cores idle; the
    // whole suite measured 6 CPU minutes. Two workers on two cores, not more: the engine's native
    // code runs its own threads.
    fileParallelism: true,
    maxWorkers: 2,
    // The tapped Hugging Face decoders a test opens are cached here, not in the user's ~/.cache
    // (src/engine/formats/hf/tap-cache.ts); one folder per run.
    env: { AL_CACHE_DIR: `${process.env.TMPDIR ?? '/tmp'}/attention-lens-test-cache-${process.pid}` },
    // The default report, and every skipped test by name with its reason.
    reporters: ['default', './test/skip-reporter.ts'],
  },
})
