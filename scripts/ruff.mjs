#!/usr/bin/env node
// Lints training/ (the Python package, its scripts and tests) with Ruff's WebAssembly build, so
// `npm run lint` needs no Python and downloads nothing. The rules are training/pyproject.toml's
// [tool.ruff] sections (the WebAssembly build reads no files itself). Exit code 1 on any finding.
// `npm run lint:ruff` runs it with `node --liftoff-only`: V8's optimising tier otherwise recompiles
// most of the 10 MB module in the background, about 6 CPU s a lint on Node 24 and 8 on Node 20,
// against 0.8 s in all with Liftoff alone (the 42 files lint in a fraction of a second either way).
// A flag set from the script comes too late: V8 freezes its flags once it has started.
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const ROOT = join(fileURLToPath(import.meta.url), '..', '..')
const TRAINING = join(ROOT, 'training')
// Written or staged by training runs, not source.
const SKIP = new Set(['zoo-next', 'checkpoints', 'logs', 'init', '__pycache__'])

/** [tool.ruff] and [tool.ruff.*] of a pyproject.toml as Ruff's options object; values are JSON. */
export function ruffOptions(toml) {
  const options = {}
  let section = null
  for (const raw of toml.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const header = /^\[([^\]]+)\]$/.exec(line)
    if (header) {
      const path = header[1].split('.')
      section = path[0] === 'tool' && path[1] === 'ruff' ? path.slice(2) : null
      continue
    }
    if (!section) continue
    const kv = /^([\w-]+)\s*=\s*(.+)$/.exec(line)
    if (!kv) throw new Error(`training/pyproject.toml: cannot read "${line}" (one key = JSON value a line)`)
    let target = options
    for (const key of section) target = target[key] ??= {}
    target[kv[1]] = JSON.parse(kv[2])
  }
  return options
}

function* pythonFiles(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue
    const p = join(dir, e.name)
    if (e.isDirectory()) yield* pythonFiles(p)
    else if (e.name.endsWith('.py')) yield p
  }
}

function main() {
  let ruff
  try {
    ruff = createRequire(import.meta.url)('@astral-sh/ruff-wasm-nodejs')
  } catch {
    console.error('scripts/ruff.mjs: @astral-sh/ruff-wasm-nodejs is not installed: run `npm ci` (it is in package-lock.json)')
    process.exit(1)
  }
  const { Workspace, PositionEncoding } = ruff
  const workspace = new Workspace(ruffOptions(readFileSync(join(TRAINING, 'pyproject.toml'), 'utf8')), PositionEncoding.Utf16)
  let findings = 0
  let files = 0
  for (const file of pythonFiles(TRAINING)) {
    files++
    for (const d of workspace.check(readFileSync(file, 'utf8'))) {
      findings++
      console.log(`${relative(ROOT, file)}:${d.start_location.row}:${d.start_location.column}: ${d.code ?? 'error'} ${d.message}`)
    }
  }
  console.log(`ruff ${Workspace.version()}: ${files} files in training/, ${findings} finding${findings === 1 ? '' : 's'}`)
  if (findings) process.exitCode = 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
