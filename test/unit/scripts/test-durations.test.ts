import { spawnSync } from '../../spawn-sync'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../helpers'

// vitest.config.mts queues the test files by it (longest first, project by project).
const DURATIONS: Record<string, number> = JSON.parse(readFileSync(join(ROOT, 'test', 'durations.json'), 'utf8'))
const ISOLATED = readFileSync(join(ROOT, 'test', 'isolated-files.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))

describe('test/durations.json', () => {
  it('names files that exist, each under the project the config runs it in, in seconds', () => {
    for (const [key, seconds] of Object.entries(DURATIONS)) {
      const [project, file] = key.split(':')
      expect(existsSync(join(ROOT, file)), file).toBe(true)
      const expected = file.startsWith('test/e2e/') ? 'e2e' : ISOLATED.includes(file) ? 'isolated' : 'unit'
      expect(project, file).toBe(expected)
      expect(seconds >= 0 && seconds < 600, key).toBe(true)
    }
    // The long files are known, so that they are queued first.
    expect(DURATIONS['e2e:test/e2e/presentation-slide.test.ts']).toBeGreaterThan(30)
  })
})

describe('scripts/test-durations.mjs', () => {
  it("writes vitest's last timings in seconds, sorted by name, leaving out files that have gone", () => {
    const dir = mkdtempSync(join(tmpdir(), 'durations-'))
    mkdirSync(join(dir, 'test', 'unit'), { recursive: true })
    writeFileSync(join(dir, 'test', 'unit', 'b.test.ts'), '')
    writeFileSync(join(dir, 'test', 'unit', 'a.test.ts'), '')
    const cache = join(dir, 'node_modules', '.vite', 'vitest', 'hash')
    mkdirSync(cache, { recursive: true })
    const results = [
      ['unit:test/unit/b.test.ts', { duration: 12345.6, failed: false }],
      ['unit:test/unit/gone.test.ts', { duration: 999, failed: false }],
      ['unit:test/unit/a.test.ts', { duration: 40, failed: true }],
    ]
    writeFileSync(join(cache, 'results.json'), JSON.stringify({ version: '4', results }))
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-durations.mjs')], { cwd: dir, encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    const text = readFileSync(join(dir, 'test', 'durations.json'), 'utf8')
    expect(JSON.parse(text)).toEqual({ 'unit:test/unit/a.test.ts': 0, 'unit:test/unit/b.test.ts': 12.3 })
    expect(text.indexOf('a.test.ts')).toBeLessThan(text.indexOf('b.test.ts'))
  })

  it('says what to run first where vitest has kept no timings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'durations-'))
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-durations.mjs')], { cwd: dir, encoding: 'utf8' })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('run `npx vitest run` first')
    expect(existsSync(join(dir, 'test', 'durations.json'))).toBe(false)
  })
})
