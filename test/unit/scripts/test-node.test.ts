import { spawnSync } from '../../spawn-sync'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../helpers'

// setup.sh --test fetches it and links it as node_modules/.bin/node (README, "Two commands").
const SCRIPT = join(ROOT, 'scripts', 'test-node.sh')
const LINKED = join(ROOT, 'node_modules', '.bin', 'node')
const VERSION = readFileSync(SCRIPT, 'utf8').match(/^VERSION=(\S+)$/m)![1]
const run = (...args: string[]) => spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8' })

describe('scripts/test-node.sh', () => {
  // Where setup linked it, `npm test`'s workers run on it: npm test reaches vitest through the
  // PATH npm gives scripts, and the workers are forks of vitest's process. (vitest started some
  // other way, `node node_modules/vitest/vitest.mjs`, runs on the Node it was given.)
  it.skipIf(!existsSync(LINKED) || !process.env.npm_lifecycle_event?.startsWith('test'))('the linked Node is the pinned one, and this test runs on it', () => {
    expect(process.version).toBe(`v${VERSION}`)
    expect(realpathSync(process.execPath)).toBe(realpathSync(LINKED))
  })

  it('says how to call it, and exits with 2, when asked wrongly', () => {
    for (const args of [[], ['fetch'], ['get', tmpdir()]]) {
      const r = run(...args)
      expect(r.status).toBe(2)
      expect(r.stderr).toContain('usage: test-node.sh fetch|link DIR')
    }
  })

  it.skipIf(process.platform !== 'linux')('links nothing where the machine’s Node is new enough, and its bin/node where older', () => {
    const dir = mkdtempSync(join(tmpdir(), 'test-node-'))
    mkdirSync(join(dir, 'bin'))
    writeFileSync(join(dir, 'bin', 'node'), '#!/bin/sh\necho v24.0.0\n', { mode: 0o755 })
    writeFileSync(join(dir, 'LICENSE'), '')
    // `link` asks the `node` first on PATH; a fake one that says 24 or 20.
    for (const [major, linked] of [
      ['24', false],
      ['20', true],
    ] as const) {
      const fake = mkdtempSync(join(tmpdir(), 'fake-node-'))
      writeFileSync(join(fake, 'node'), `#!/bin/sh\necho ${major}\n`, { mode: 0o755 })
      const root = mkdtempSync(join(tmpdir(), 'root-'))
      mkdirSync(join(root, 'scripts'))
      writeFileSync(join(root, 'scripts', 'test-node.sh'), readFileSync(SCRIPT))
      const r = spawnSync('bash', [join(root, 'scripts', 'test-node.sh'), 'link', dir], {
        encoding: 'utf8',
        env: { ...process.env, PATH: `${fake}:${process.env.PATH}` },
      })
      expect(r.status, r.stderr).toBe(0)
      expect(existsSync(join(root, 'node_modules', '.test-node', 'node'))).toBe(linked && process.arch === 'x64')
    }
  })
})
