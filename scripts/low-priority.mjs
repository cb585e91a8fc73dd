#!/usr/bin/env node
// Runs a command at the lowest CPU priority (nice 19 on Linux and macOS, the idle class on
// Windows), which its own children inherit, and exits with its exit code. `npm test` runs the lint
// and the type checks this way beside vitest: the tests keep both cores while they use them, and
// the checks take the CPU the tests leave idle (a test waiting on Chromium, the last file of the
// run alone on one core) instead of running first with the tests waiting on them.
import { spawn } from 'node:child_process'
import { constants, setPriority } from 'node:os'

const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error('usage: low-priority.mjs COMMAND [ARGS…]')
  process.exit(2)
}
setPriority(constants.priority.PRIORITY_LOW)
// A shell, as npm runs scripts, so that `run-p` and the like resolve from node_modules/.bin on Windows too.
const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
