// training/tests (pytest) from the npm test suite. They need Debian's /usr/bin/python3 with
// python3-pytest; the PyTorch ones skip themselves inside pytest where torch is missing, and the
// second test below is then skipped too, with the reason, so the skip reporter
// (test/skip-reporter.ts) lists it by name at the end of the run; pytest's own -rs lines name
// each skipped module.
import { spawnSync } from '../../spawn-sync'
import { join } from 'node:path'
import { expect } from 'vitest'
import { PY, itWithPython, itWithTorch } from '../../torch'

const ROOT = join(__dirname, '..', '..', '..')

let run: { status: number | null; out: string } | undefined
/** One pytest run for both tests (importing torch takes seconds). */
function pytest(): { status: number | null; out: string } {
  run ??= (() => {
    const r = spawnSync(PY, ['-m', 'pytest', 'training/tests', '-q', '-rs', '-p', 'no:cacheprovider'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 120_000,
    })
    return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` }
  })()
  return run
}

itWithPython(
  'training/tests pass under pytest (tokenizer vectors, step against forward, the metadata writer)',
  (ctx) => {
    const { status, out } = pytest()
    if (/No module named pytest/.test(out)) return ctx.skip(`no pytest for ${PY} (apt-get install python3-pytest)`)
    const skipped = out.split('\n').filter((l) => l.startsWith('SKIPPED'))
    if (skipped.length) console.warn(`training/tests skipped:\n${skipped.join('\n')}`)
    expect(status, out).toBe(0)
    expect(out).toMatch(/\d+ passed/)
  },
  150_000,
)

itWithTorch(
  "training/tests' PyTorch tests ran (none skipped)",
  (ctx) => {
    const { out } = pytest()
    if (/No module named pytest/.test(out)) return ctx.skip(`no pytest for ${PY} (apt-get install python3-pytest)`)
    // Only the PyTorch tests count here: a skip for another optional module (jieba, which Debian
    // does not package) is listed by the test above and is no sign of a missing torch.
    expect(out.split('\n').filter((l) => l.startsWith('SKIPPED') && /torch/i.test(l))).toEqual([])
  },
  150_000,
)
