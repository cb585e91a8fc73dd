import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'

export default defineConfig({
  main: {
    build: {
      // ECharts (with zrender and tslib) is bundled, not required from node_modules: as ES modules it
      // is hundreds of files that Node resolves one by one, which took half of every CLI run's CPU
      // (translate 1.2 → 0.75 CPU s) and of the figure worker's start.
      externalizeDeps: { exclude: ['echarts', 'zrender', 'tslib'] },
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          // The engine process, the browser-mode host and the CLI share the main build.
          engine: resolve(__dirname, 'src/engine/host.ts'),
          web: resolve(__dirname, 'src/web/main.ts'),
          cli: resolve(__dirname, 'src/cli/index.ts'),
          // Figure rendering runs on this worker thread, off Electron's main thread (src/host/export/pool.ts).
          'figure-worker': resolve(__dirname, 'src/host/export/worker.ts'),
        },
      },
    },
  },
  preload: {
    build: { externalizeDeps: true },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      rollupOptions: { input: resolve(__dirname, 'src/renderer/index.html') },
      // electron-vite leaves the renderer unminified; minified, the page's bundle is 1.4 MB instead
      // of 3.2 MB and its worker 0.8 MB instead of 2 MB, and each page load (browser mode, every
      // e2e file) costs Chromium about 0.3 CPU s less to fetch, parse and compile.
      minify: true,
    },
    plugins: [svelte()],
  },
})
