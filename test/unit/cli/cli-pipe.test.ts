import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { ROOT, tiny } from '../../helpers'

// The command as users get it: package.json's bin, which loads the build in out/main/cli.js.
const BIN = join(ROOT, 'bin', 'attention-lens.mjs')

beforeAll(() => {
  ensureBuild()
}, 300_000)

describe('attention-lens in a pipe', () => {
  it('ends quietly when its reader goes away (`translate … | head -1`): exit 0, no EPIPE on stderr', async () => {
    const child = spawn(process.execPath, [BIN, 'translate', '--model', tiny('bahdanau')], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
    let err = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
    // Many lines in: the CLI is still writing when the reader has gone.
    child.stdin.end('A dog runs.\n'.repeat(400))
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())))
    // What `head -1` does once it has its line: it closes its end of the pipe.
    child.stdout.destroy()
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
    expect(first.length).toBeGreaterThan(0)
    expect(err).not.toMatch(/EPIPE|Error| {4}at /)
    expect(code).toBe(0)
  })
})
