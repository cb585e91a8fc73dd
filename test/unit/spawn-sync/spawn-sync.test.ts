import * as cp from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { execFileSync, execSync, spawnSync } from '../../spawn-sync'

/** The fields a caller reads, compared as text. */
const fields = (r: ReturnType<typeof cp.spawnSync>) => ({
  status: r.status,
  signal: r.signal,
  stdout: String(r.stdout),
  stderr: String(r.stderr),
  error: r.error && { message: r.error.message, code: (r.error as NodeJS.ErrnoException).code },
})

describe('the tests’ spawnSync, execFileSync and execSync (run by the broker)', () => {
  // AL_SPAWN_DIRECT=1 runs them as Node's own, to time the two against each other.
  it.skipIf(process.env.AL_SPAWN_DIRECT === '1')('run the command in another process than this one', () => {
    const parent = Number(execFileSync('sh', ['-c', 'echo $PPID'], { encoding: 'utf8' }))
    expect(parent).toBeGreaterThan(0)
    expect(parent).not.toBe(process.pid)
  })

  it('give what Node’s own give: output, input, exit status, signal, a missing command', () => {
    const cases: [string, string[], cp.SpawnSyncOptions][] = [
      ['sh', ['-c', 'printf out; printf err >&2; exit 3'], {}],
      ['cat', [], { input: Buffer.from([0, 1, 2, 255]) }],
      ['sh', ['-c', 'echo é'], { encoding: 'utf8' }],
      ['sh', ['-c', 'kill -TERM $$'], {}],
      ['/no/such/command', [], {}],
    ]
    for (const [file, args, options] of cases) {
      const [ours, node] = [spawnSync(file, args, options), cp.spawnSync(file, args, options)]
      expect(fields(ours)).toEqual(fields(node))
      expect(Buffer.isBuffer(ours.stdout)).toBe(Buffer.isBuffer(node.stdout))
    }
  })

  it('run in this process’s folder and environment as they are now, unless told others', () => {
    const before = process.env.AL_SPAWN_SYNC_PROBE
    process.env.AL_SPAWN_SYNC_PROBE = 'now'
    try {
      expect(execFileSync('sh', ['-c', 'echo $AL_SPAWN_SYNC_PROBE; pwd'], { encoding: 'utf8' })).toBe(`now\n${process.cwd()}\n`)
      expect(execFileSync('sh', ['-c', 'echo $AL_SPAWN_SYNC_PROBE; pwd'], { encoding: 'utf8', cwd: '/', env: { AL_SPAWN_SYNC_PROBE: 'told' } })).toBe(
        'told\n/\n',
      )
    } finally {
      if (before === undefined) delete process.env.AL_SPAWN_SYNC_PROBE
      else process.env.AL_SPAWN_SYNC_PROBE = before
    }
  })

  it('throw as Node’s own throw, with the result’s fields', () => {
    const caught = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        const { message, status, stdout, code } = e as { message: string; status: number | null; stdout: unknown; code?: string }
        return { message, status, stdout: String(stdout), code }
      }
      throw new Error('did not throw')
    }
    const failing: [string, string[], cp.ExecFileSyncOptions][] = [
      ['sh', ['-c', 'printf partial; echo broken >&2; exit 2'], { stdio: 'pipe' }],
      ['/no/such/command', ['x'], { stdio: 'pipe' }],
    ]
    for (const [file, args, options] of failing)
      expect(caught(() => execFileSync(file, args, options))).toEqual(caught(() => cp.execFileSync(file, args, options)))
    expect(caught(() => execSync('exit 4', { stdio: 'pipe' }))).toEqual(caught(() => cp.execSync('exit 4', { stdio: 'pipe' })))
    expect(String(execSync('echo $((1 + 2))'))).toBe('3\n')
  })
})
