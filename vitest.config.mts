import { defineConfig } from 'vitest/config'
import { svelte } from '@sveltejs/vite-plugin-svelte'

export default defineConfig({
  // The renderer's state classes (*.svelte.ts) use runes; compile them as the browser gets them.
  plugins: [svelte({ configFile: false, dynamicCompileOptions: () => ({ generate: 'client' }) })],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The engine runs native code with its own threads; one test file at a time on a 2-core machine.
    fileParallelism: false,
    // The default report, and every skipped test by name with its reason.
    reporters: ['default', './test/skip-reporter.ts'],
  },
})
