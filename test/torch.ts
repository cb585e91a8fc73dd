/**
 * Tests that need Debian's Python with PyTorch (python3-torch, python3-onnx), as training/ uses it.
 * Where there is none they are skipped with the reason as their note, and the skip reporter
 * (test/skip-reporter.ts) lists each by name at the end of the run, so no skip goes unseen.
 * AL_TEST_NO_PYTHON=1 runs as a machine without it would.
 */
import { spawnSync } from './spawn-sync'
import { existsSync } from 'node:fs'
import { it, type TestContext } from 'vitest'

export const PY = '/usr/bin/python3'
const noPython = !!process.env.AL_TEST_NO_PYTHON
export const hasPython = !noPython && existsSync(PY)
let torch: boolean | undefined
/** Asked once, when a test first needs it: importing torch takes seconds, which a file without such tests should not spend. */
export function hasTorch(): boolean {
  torch ??= hasPython && spawnSync(PY, ['-c', 'import torch, onnx'], { timeout: 120_000 }).status === 0
  return torch
}

const NO_TORCH = `no ${PY} with torch and onnx`
const NO_PYTHON = `no ${PY}`

/** it() that runs where PyTorch is and is skipped, saying why, where it is not. */
export function itWithTorch(name: string, fn: (ctx: TestContext) => unknown, timeout?: number): void {
  it(name, (ctx) => (hasTorch() ? fn(ctx) : ctx.skip(NO_TORCH)), timeout)
}

/** it() that runs where /usr/bin/python3 is and is skipped, saying why, where it is not. */
export function itWithPython(name: string, fn: (ctx: TestContext) => unknown, timeout?: number): void {
  it(name, (ctx) => (hasPython ? fn(ctx) : ctx.skip(NO_PYTHON)), timeout)
}
