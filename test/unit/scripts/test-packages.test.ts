import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { spawnSync } from '../../spawn-sync'
import { ROOT } from '../../helpers'

const SCRIPT = join(ROOT, 'scripts', 'test-packages.sh')
/** The packages dpkg decides on (the others are found by their commands). */
const BY_DPKG = ['fonts-noto-cjk', 'fonts-dejavu-core', 'python3-pytest', 'python3-pil']

/** The script's list where dpkg-query answers each package's status as `status` says (absent: not known). */
function missingWith(status: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'test-packages-'))
  const fake = join(dir, 'dpkg-query')
  // dpkg-query -W -f='${db:Status-Abbrev}' PKG: the three-letter status, or exit 1 for a package dpkg has never seen.
  const cases = Object.entries(status)
    .map(([pkg, s]) => `  ${pkg}) printf '%s' '${s}' ;;`)
    .join('\n')
  writeFileSync(
    fake,
    `#!/bin/sh\nfor a; do pkg=$a; done\ncase $pkg in\n${cases}\n  *) echo "dpkg-query: no packages found matching $pkg" >&2; exit 1 ;;\nesac\n`,
  )
  chmodSync(fake, 0o755)
  const r = spawnSync('bash', [SCRIPT], { encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout.split('\n').filter(Boolean)
}

describe.skipIf(process.platform !== 'linux')('scripts/test-packages.sh', () => {
  it('lists no dpkg package that is installed ("ii")', () => {
    const missing = missingWith(Object.fromEntries(BY_DPKG.map((p) => [p, 'ii '])))
    for (const p of BY_DPKG) expect(missing).not.toContain(p)
  })

  it('lists a package removed with its configuration files left ("rc"), which `dpkg -s` calls known', () => {
    const missing = missingWith({ ...Object.fromEntries(BY_DPKG.map((p) => [p, 'ii '])), 'fonts-noto-cjk': 'rc ' })
    expect(missing).toContain('fonts-noto-cjk')
    expect(missing.filter((p) => BY_DPKG.includes(p))).toEqual(['fonts-noto-cjk'])
  })

  it('lists a package dpkg has never seen, and one unpacked but not configured ("iU")', () => {
    const missing = missingWith({ 'fonts-noto-cjk': 'ii ', 'fonts-dejavu-core': 'iU ', 'python3-pil': 'ii ' })
    expect(missing.filter((p) => BY_DPKG.includes(p))).toEqual(['fonts-dejavu-core', 'python3-pytest'])
  })
})
