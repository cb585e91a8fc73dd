#!/usr/bin/env node
// Whether out/ (the electron-vite build the CLI, browser mode and the e2e tests run) is older than
// what it is built from, and, run as a script, a build when it is: `npm run test:e2e` and the CLI
// tests then never exercise yesterday's code.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SOURCES = ['src', 'electron.vite.config.ts', 'package.json']
const OUTPUTS = ['out/main/index.js', 'out/main/engine.js', 'out/main/web.js', 'out/main/cli.js', 'out/preload', 'out/renderer/index.html']

/** The newest file under each path, as [mtimeMs, path]. */
function newest(path) {
  const st = statSync(path)
  if (!st.isDirectory()) return [st.mtimeMs, path]
  let best = [st.mtimeMs, path]
  for (const e of readdirSync(path)) {
    const n = newest(join(path, e))
    if (n[0] > best[0]) best = n
  }
  return best
}

/** Why out/ needs a build (one line), or null when it is up to date. */
export function staleBuild(root = ROOT) {
  let oldest = Infinity
  for (const o of OUTPUTS) {
    try {
      oldest = Math.min(oldest, newest(join(root, o))[0])
    } catch {
      return `${o} is missing`
    }
  }
  for (const s of SOURCES) {
    const [mtime, path] = newest(join(root, s))
    if (mtime > oldest) return `${relative(root, path)} is newer than the build in out/`
  }
  return null
}

/** Builds when out/ is stale; returns the reason it built, or null. Throws when the build fails. */
export function ensureBuild(root = ROOT) {
  const reason = staleBuild(root)
  if (!reason) return null
  console.error(`ensure-build: ${reason}; running electron-vite build`)
  const r = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] })
  if (r.status !== 0) throw new Error(`electron-vite build failed (exit ${r.status}); fix the build first`)
  return reason
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    ensureBuild()
  } catch (e) {
    console.error(`ensure-build: ${e.message}`)
    process.exit(1)
  }
}
