import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { ROOT, tempDir, tiny } from '../../helpers'
import { runCli } from './cli-runner'

const run = (args: string[]) => {
  const r = runCli(args, undefined, 60_000)
  return { code: r.code, out: r.out, err: r.err.trim() }
}
const taylor = (k: string) => join(ROOT, 'resources', 'models', `taylor-${k}.onnx`)

beforeAll(() => {
  ensureBuild()
}, 300_000)

describe('the command line counts steps from 1, as the app does', () => {
  it('forecast --step 8 draws step +8', () => {
    const out = join(tempDir(), 'f.svg')
    const r = run(['forecast', '--model', taylor('luong-general'), '--origin', '2000-08-16T06:00', '--out', out, '--step', '8'])
    expect(r.code).toBe(0)
    const svg = readFileSync(out, 'utf8')
    expect(svg).toContain('(+8)')
    expect(svg).not.toContain('(+9)')
  })

  it('--step 0 is refused, and so is a step past the last one', () => {
    expect(
      run(['export', '--model', tiny('local-p'), '--src', 'A dog runs.', '--view', 'local', '--step', '0', '--out', join(tempDir(), 'l.svg')]),
    ).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--step \(an output step\) must be a whole number from 1 to \d+/),
    })
    expect(run(['forecast', '--model', taylor('local-p'), '--out', join(tempDir(), 'f.svg'), '--step', '49'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/from 1 to 48/),
    })
  })
})
