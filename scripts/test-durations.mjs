// Writes test/durations.json, the order vitest.config.mts queues the test files in, from the timings
// vitest kept of its last run (its cache, node_modules/.vite/vitest/*/results.json). Run it after a
// whole `npx vitest run` on a two-core machine, when files have been added or have grown.
import { readFileSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

const cacheRoot = 'node_modules/.vite/vitest'
const caches = (existsSync(cacheRoot) ? readdirSync(cacheRoot) : [])
  .map((d) => join(cacheRoot, d, 'results.json'))
  .filter((f) => existsSync(f))
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
if (!caches.length) {
  console.error(`No timings in ${cacheRoot}: run \`npx vitest run\` first.`)
  process.exit(1)
}
const { results } = JSON.parse(readFileSync(caches[0], 'utf8'))
const durations = {}
for (const [key, { duration }] of results) {
  // The cache keeps files that have since gone, and files run alone skipped at 0 ms.
  if (existsSync(key.slice(key.indexOf(':') + 1))) durations[key] = Math.round(duration / 100) / 10
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)))
writeFileSync('test/durations.json', `${JSON.stringify(sorted, null, 2)}\n`)
console.log(`test/durations.json: ${Object.keys(durations).length} files, ${caches[0]}`)
