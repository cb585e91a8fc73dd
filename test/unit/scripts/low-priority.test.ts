import { spawnSync } from '../../spawn-sync'
import { getPriority } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../helpers'

// `npm test` runs the lint and the type checks through it beside vitest (README, "npm test").
const SCRIPT = join(ROOT, 'scripts', 'low-priority.mjs')
const run = (code: string) => spawnSync(process.execPath, [SCRIPT, process.execPath, '-e', code], { encoding: 'utf8' })

describe('scripts/low-priority.mjs', () => {
  it.skipIf(process.platform === 'win32')('runs the command, and what the command starts, at nice 19', () => {
    expect(getPriority()).toBeLessThan(19)
    const r = run(
      `const { execFileSync } = require('node:child_process'); console.log(require('node:os').getPriority(), execFileSync('sh', ['-c', 'nice']).toString().trim())`,
    )
    expect(r.status).toBe(0)
    expect(r.stdout.trim()).toBe('19 19')
  })

  it("exits with the command's exit code, so a failing check fails npm test", () => {
    expect(run('process.exit(3)').status).toBe(3)
    expect(run('').status).toBe(0)
  })
})
