import { execFileSync } from '../../spawn-sync'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, tempDir } from '../../helpers'

// Findings that docs/security.md explains in one line each; anything else fails the test.
const EXPLAINED = new Set(['CSP_GLOBAL_CHECK', 'PRELOAD_JS_CHECK'])

describe('electronegativity over the Electron code', () => {
  it('finds nothing that is not fixed or explained in docs/security.md', () => {
    const out = join(tempDir(), 'report.csv')
    const electron = JSON.parse(readFileSync(join(ROOT, 'node_modules/electron/package.json'), 'utf8')).version as string
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'test/unit/security/electronegativity-offline.mjs'),
        '-i',
        join(ROOT, 'src'),
        '-e',
        electron,
        '-r',
        '-x',
        'AvailableSecurityFixesGlobalCheck',
        '-o',
        out,
      ],
      { stdio: 'ignore', timeout: 120_000 },
    )
    // Samples in the CSV may span lines; a finding starts a line with its ID and a quoted severity.
    const findings = [...readFileSync(out, 'utf8').matchAll(/^([A-Z_]+),"(?:LOW|MEDIUM|HIGH|INFORMATIONAL)"/gm)].map((m) => m[1])
    expect(findings.length).toBeGreaterThan(0) // the run produced a report at all
    const docs = readFileSync(join(ROOT, 'docs/security.md'), 'utf8')
    for (const f of EXPLAINED) expect(docs).toContain(`\`${f}\``)
    expect(findings.filter((f) => !EXPLAINED.has(f))).toEqual([])
  }, 150_000)
})
