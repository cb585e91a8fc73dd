/**
 * `spawnSync`, `execFileSync` and `execSync` for the tests, as Node's, but run by a small helper
 * process (./broker.mjs) instead of a fork of the test process itself (issue 40, "Performance").
 *
 * Why: Node starts a command by forking the whole process. A vitest worker has 1–2 GB resident by
 * the time it reads a PDF back with poppler (a run makes about 150 synchronous calls in them, 120
 * of them poppler's), and a fork write-protects every page of it: each page the worker then writes
 * takes a page fault, about 11 µs each on the paravirtualised machines the tests run on. A process
 * of 374 MB that spawned /bin/true and then wrote its memory took 1.2 s of CPU per spawn, against
 * 4 ms without the spawn. The broker is forked once per test process, and its own forks are of a
 * process of ~50 MB.
 *
 * Where a call's options name something only this process has (a stream, a file descriptor other
 * than 0–2), it runs as Node's own; so does every call with AL_SPAWN_DIRECT=1 (to compare the two).
 */
import * as cp from 'node:child_process'
import { createSyncFn } from 'synckit'

type Result = ReturnType<typeof cp.spawnSync>
type Run = (file: string, args: readonly string[], options: cp.SpawnSyncOptions) => Result

const KEY = Symbol.for('attention-lens.spawn-broker')
/** One broker per process, whichever module graph asks (isolated test files import this anew). */
function broker(): Run {
  const holder = globalThis as { [KEY]?: Run }
  return (holder[KEY] ??= createSyncFn(new URL('./worker.mjs', import.meta.url).href) as unknown as Run)
}

const portable = (stdio: unknown) =>
  stdio === undefined ||
  typeof stdio === 'string' ||
  (Array.isArray(stdio) && stdio.every((s) => s === null || s === undefined || typeof s === 'string' || s === 0 || s === 1 || s === 2))

const asBuffer = (x: unknown) => (x instanceof Uint8Array && !Buffer.isBuffer(x) ? Buffer.from(x.buffer, x.byteOffset, x.byteLength) : x)

function run(file: string, args: readonly string[], options: cp.SpawnSyncOptions = {}): Result {
  if (!portable(options.stdio) || process.platform === 'win32' || process.env.AL_SPAWN_DIRECT === '1') return cp.spawnSync(file, args, options)
  // The broker's defaults would be its own: this process's working folder and environment (a test may have changed either).
  const r = broker()(file, [...args], { ...options, cwd: options.cwd ?? process.cwd(), env: { ...(options.env ?? process.env) } }) as Result & {
    error?: { message: string; fields: object }
  }
  const error = r.error && Object.assign(new Error(r.error.message), r.error.fields)
  const output = r.output?.map(asBuffer)
  return { ...r, output, stdout: asBuffer(r.stdout), stderr: asBuffer(r.stderr), error } as Result
}

function normalise(args?: unknown, options?: unknown): [readonly string[], Record<string, unknown>] {
  if (Array.isArray(args)) return [args as string[], (options ?? {}) as Record<string, unknown>]
  return [[], (args ?? {}) as Record<string, unknown>]
}

/**
 * As Node's execFileSync and execSync end: without `stdio`, the command's stderr is shown as well
 * as returned; then the spawn's error, or "Command failed" with the result's fields, is thrown
 * (Node's checkExecSyncError); else the output is returned.
 */
function checked(r: Result, stdio: unknown, command: string): Result['stdout'] {
  if (stdio === undefined && r.stderr) process.stderr.write(r.stderr)
  if (r.error) throw Object.assign(r.error, r)
  if (r.status === 0) return r.stdout
  const stderr = r.stderr && r.stderr.length > 0 ? `\n${r.stderr.toString()}` : ''
  throw Object.assign(new Error(`Command failed: ${command}${stderr}`), r)
}

export const spawnSync = ((file: string, args?: unknown, options?: unknown) => run(file, ...normalise(args, options))) as typeof cp.spawnSync

export const execFileSync = ((file: string, args?: unknown, options?: unknown) => {
  const [a, o] = normalise(args, options)
  return checked(run(file, a, o), o.stdio, [o.argv0 ?? file, ...a].join(' '))
}) as typeof cp.execFileSync

export const execSync = ((command: string, options?: cp.ExecSyncOptions) => {
  const o = { ...options, shell: typeof options?.shell === 'string' ? options.shell : true }
  return checked(run(command, [], o), o.stdio, command)
}) as typeof cp.execSync
