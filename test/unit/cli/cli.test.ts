import { spawnSync } from '../../spawn-sync'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { InferenceService } from '../../../src/engine/service'
import { ROOT, tempDir, tiny } from '../../helpers'
import { runCli } from './cli-runner'

// The command as users get it: package.json's bin, which loads the build in out/main/cli.js.
const BIN = join(ROOT, 'bin', 'attention-lens.mjs')
function spawned(args: string[], input?: string, bin = BIN) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: ROOT, input, encoding: 'utf8', timeout: 60_000 })
  return { code: r.status, out: r.stdout, err: r.stderr.trim() }
}
/** The same build, in-process (cli-runner.ts): the tests below are about commands, not the process. */
function run(args: string[], input?: string) {
  const r = runCli(args, input, 60_000)
  return { ...r, err: r.err.trim() }
}

// `npm test` builds first; run on its own, this file builds when src/ is newer than out/.
beforeAll(() => {
  ensureBuild()
}, 300_000)

describe('the shipped bin', () => {
  it('runs the build: --help', () => {
    const r = spawned(['--help'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^usage: attention-lens translate/)
  })

  it('says in one line that it is not built yet when out/main/cli.js is missing', () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'bin'))
    copyFileSync(BIN, join(dir, 'bin', 'attention-lens.mjs'))
    const r = spawned(['translate'], '', join(dir, 'bin', 'attention-lens.mjs'))
    expect(r).toMatchObject({ code: 2, err: 'attention-lens: not built yet; run `npm run build` first.' })
  })
})

describe('attention-lens translate', () => {
  it('translates stdin line by line: line i out is the translation of line i in, an empty line stays empty and is reported', async () => {
    const lines = ['A dog runs.', 'Two men are sitting.', '', 'A girl in a red dress.']
    const r = run(['translate', '--model', tiny('bahdanau')], lines.join('\n') + '\n')
    expect(r.code).toBe(0)
    // The engine in this process, for the expected text of each line.
    const service = new InferenceService()
    const expected = []
    for (const l of lines) expected.push(l ? (await service.translate(tiny('bahdanau'), l)).text : '')
    await service.closeAll()
    expect(new Set(expected.filter(Boolean)).size).toBe(3)
    expect(r.out).toBe(expected.map((t) => t + '\n').join(''))
    expect(r.err).toBe('attention-lens: line 3 is empty: nothing to translate')
  })

  it('reads a file, uses beam search and writes tokens and matrices as JSON lines', () => {
    const dir = tempDir()
    const input = join(dir, 'in.txt')
    writeFileSync(input, 'A dog runs.\nA man in a red shirt.\n')
    const out = join(dir, 'att.jsonl')
    const r = run(['translate', '--model', tiny('local-p'), '--beam', '4', '--input', input, '--attention', out])
    expect(r.code).toBe(0)
    const recs = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(recs).toHaveLength(2)
    expect(recs[0].srcTokens).toEqual(['a', 'dog', 'runs', '.', '</s>'])
    expect(recs[0].attention).toHaveLength(recs[0].tgtTokens.length)
    expect(recs[0].positions).toHaveLength(recs[0].tgtTokens.length)
  })

  it('falls back to CPU for an unavailable provider and says so on stderr, in one line', () => {
    const r = run(['translate', '--model', tiny('none'), '--provider', 'cuda'], 'A dog.\n')
    expect(r.code).toBe(0)
    // Nothing else: onnxruntime's own [E:onnxruntime…] line for the missing library stays off.
    expect(r.err).toMatch(/^attention-lens: cuda could not start \(.+\); running on CPU\.$/)
  })
})

describe('attention-lens eval', () => {
  it('prints corpus BLEU overall and by source length', () => {
    const r = run(['eval', '--model', tiny('bahdanau'), '--src', 'test/fixtures/multi30k-test-50.en', '--ref', 'test/fixtures/multi30k-test-50.fr'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^tiny-bahdanau\.onnx: BLEU \d+\.\d\d \(case-insensitive\), \d+\.\d\d cased, 50 sentences/)
    expect(r.out).toMatch(/source length 1-10 +\d+ sentences {2}BLEU \d+\.\d\d/)
  })
})

describe('bad input gives one clear line and a non-zero exit', () => {
  it.each([
    [[], /^usage: attention-lens translate/],
    [['frobnicate'], /^attention-lens: unknown command "frobnicate"/],
    [['translate'], /^attention-lens: --model M\.onnx is missing/],
    [['translate', '--model', 'nope.onnx'], /^attention-lens: no such file or folder: nope\.onnx$/],
    [['translate', '--model', 'README.md'], /^attention-lens: The file is not an ONNX model/],
    // A model that opens, so only the beam check can refuse these.
    [['translate', '--model', tiny('bahdanau'), '--beam', '40'], /^attention-lens: --beam must be a whole number from 1 to 16\b/],
    [['translate', '--model', tiny('bahdanau'), '--beam', '2.5'], /^attention-lens: --beam must be a whole number from 1 to 16\b/],
    [['translate', '--modle', 'x'], /^attention-lens: Unknown option '--modle'/],
    [['eval', '--model', 'README.md'], /^attention-lens: --src X is missing/],
  ])('%j', (argv, message) => {
    const r = run(argv as string[], '')
    expect(r.code).toBe(2)
    const text = r.err || r.out
    expect(text).toMatch(message)
    if (argv.length) expect(r.err.split('\n')).toHaveLength(1)
  })
})

describe('attention-lens export', () => {
  it.each(['png', 'svg', 'pdf'])('writes a %s heatmap of a real decode', (ext) => {
    const out = join(tempDir(), `fig.${ext}`)
    const r = run([
      'export',
      '--model',
      tiny('local-p'),
      '--src',
      'A dog runs on the beach.',
      '--view',
      'heatmap',
      '--out',
      out,
      '--scale',
      '1',
      '--size',
      '800x500',
      '--title',
      'tiny local-p',
    ])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(new RegExp(`^wrote .*fig\\.${ext} \\(800×500`))
    const head = readFileSync(out).subarray(0, 5).toString('latin1')
    expect(head).toBe({ png: '\x89PNG\r', svg: '<svg ', pdf: '%PDF-' }[ext])
  })

  it('draws the local spotlight, the comparison, and the forced alignment of a given target', () => {
    const dir = tempDir()
    expect(run(['export', '--model', tiny('local-p'), '--src', 'A dog runs.', '--view', 'local', '--step', '1', '--out', join(dir, 'l.svg')]).code).toBe(0)
    expect(readFileSync(join(dir, 'l.svg'), 'utf8')).toContain('dog')
    expect(
      run(['export', '--model', tiny('none'), '--model', tiny('bahdanau'), '--src', 'A dog runs.', '--view', 'comparison', '--out', join(dir, 'c.svg')]).code,
    ).toBe(0)
    expect(readFileSync(join(dir, 'c.svg'), 'utf8')).toContain('tiny-none')
    expect(run(['export', '--model', tiny('bahdanau'), '--src', 'A dog runs.', '--target', 'Un chien court.', '--out', join(dir, 'f.svg')]).code).toBe(0)
    expect(readFileSync(join(dir, 'f.svg'), 'utf8')).toContain('chien')
  })

  it("draws a Transformer's heads (the grid, one head with --head, a what-if silencing one head) and refuses heads elsewhere", () => {
    const dir = tempDir()
    const model = join(ROOT, 'test/fixtures/models/tiny-transformer.onnx')
    const src = 'A little girl in a pink dress is running.'
    expect(run(['export', '--model', model, '--src', src, '--view', 'heads', '--out', join(dir, 'g.svg')]).code).toBe(0)
    // Every head of the 2 × 2 fixture is named on the grid.
    const grid = readFileSync(join(dir, 'g.svg'), 'utf8')
    for (const h of ['head 1', 'head 2', 'layer 1', 'layer 2']) expect(grid).toContain(h)
    expect(run(['export', '--model', model, '--src', src, '--view', 'heads', '--head', '2:1', '--out', join(dir, 'h.svg')]).code).toBe(0)
    expect(readFileSync(join(dir, 'h.svg'), 'utf8')).toContain('layer 2, head 1')
    const w = run([
      'export',
      '--model',
      model,
      '--src',
      src,
      '--view',
      'whatif',
      '--mode',
      'silence',
      '--head',
      '1:2',
      '--at',
      '2',
      '--out',
      join(dir, 'w.svg'),
    ])
    expect(w.code, w.err).toBe(0)
    expect(readFileSync(join(dir, 'w.svg'), 'utf8')).toContain('layer 1, head 2')
    const bad = run(['export', '--model', model, '--src', src, '--view', 'heads', '--head', '3:1', '--out', join(dir, 'x.svg')])
    expect(bad).toMatchObject({ code: 2, err: expect.stringMatching(/--head must be LAYER:HEAD with LAYER from 1 to 2 and HEAD from 1 to 2/) })
    const rnn = run(['export', '--model', tiny('bahdanau'), '--src', src, '--view', 'heads', '--out', join(dir, 'y.svg')])
    expect(rnn.code).not.toBe(0)
    expect(rnn.err).toMatch(/not a Transformer \(it is bahdanau\)/)
  })

  it.each([
    [['export', '--model', 'README.md', '--src', 'x', '--out', 'f.gif'], /--out must end in \.png, \.svg or \.pdf/],
    [
      ['export', '--model', 'README.md', '--src', 'x', '--out', 'f.png', '--view', 'pie'],
      /--view must be heatmap, local, positions, step, lines, comparison, sidebyside, beam, whatif, corpus, contributions, occlusion or heads/,
    ],
    [['export', '--model', 'README.md', '--src', 'x', '--out', 'f.png', '--scale', '9'], /scale must be .*\b1\b.*\b4\b/],
    [['export', '--model', 'README.md', '--src', 'x', '--out', '/nonexistent/dir/f.png'], /^attention-lens: The file is not an ONNX model/],
  ])('refuses %j in one line', (argv, message) => {
    const r = run(argv as string[])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(message)
  })

  it('refuses an empty sentence, and --head where the view draws no single head', () => {
    const dir = tempDir()
    for (const src of ['', '   ']) {
      const r = run(['export', '--model', tiny('bahdanau'), '--src', src, '--out', join(dir, 'e.svg')])
      expect(r).toMatchObject({ code: 2, err: 'attention-lens: --src is empty: there is no sentence to translate (attention-lens --help)' })
    }
    const head = run(['export', '--model', tiny('transformer'), '--src', 'A dog.', '--view', 'heatmap', '--head', '1:1', '--out', join(dir, 'h.svg')])
    expect(head).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--head applies to --view heads and --view whatif, not heatmap; .*--view heads --head 1:1/),
    })
    expect(readdirSync(dir)).toEqual([])
  })

  it('a write that fails leaves no file and says why', () => {
    const r = run(['export', '--model', tiny('bahdanau'), '--src', 'A dog.', '--out', '/nonexistent/dir/f.png'])
    expect(r.code).toBe(2)
    expect(r.err).toBe('attention-lens: Could not write /nonexistent/dir/f.png: the folder does not exist.')
  })
})

describe('attention-lens forecast and forecast-eval', () => {
  const taylor = (k: string) => join(ROOT, 'resources', 'models', `taylor-${k}.onnx`)

  it('forecasts from an origin of the bundled held-out weeks and writes the figure', () => {
    const out = join(tempDir(), 'f.svg')
    const r = run(['forecast', '--model', taylor('local-p'), '--origin', '2000-08-16T06:00', '--out', out, '--step', '3', '--size', 'paper-double'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/taylor-local-p: forecast from 2000-08-16T06:00:00Z for 48 steps/)
    expect(r.out).toMatch(/MAE \d+\.\d MW, MAPE \d+\.\d\d %; same time last week \(lag 336\): MAE \d+\.\d MW/)
    expect(readFileSync(out, 'utf8')).toContain('>lag 336 · 1 week<')
    // No --font: a paper page gets paper text.
    expect(r.out).toMatch(/7 × 3\.5 in, 8 pt text/)
  })

  it('says the page it wrote: a paper figure that grew taller is reported at its real height (poppler reads the same)', () => {
    const out = join(tempDir(), 'step.pdf')
    const src = '我很确定，汤姆是唯一能告诉我们我们需要知道的事情的人。'
    const r = run([
      'export',
      '--model',
      join(ROOT, 'resources/models/zh-en-local-p.onnx'),
      '--src',
      src,
      '--view',
      'step',
      '--size',
      'paper-single',
      '--out',
      out,
    ])
    expect(r.code).toBe(0)
    const said = /3\.5 × ([\d.]+) in/.exec(r.out)
    expect(said, r.out).not.toBeNull()
    const info = spawnSync('pdfinfo', [out], { encoding: 'utf8' }).stdout
    const [, w, h] = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info)!
    expect(Number(w)).toBeCloseTo(252, 0)
    // 19 source words and their context rows do not fit 3 in: the page grew, and the line says so.
    expect(Number(h)).toBeGreaterThan(216)
    expect(Number(said![1])).toBeCloseTo(Number(h) / 72, 2)
  })

  it('re-measures MAE and MAPE on the held-out weeks next to the seasonal naive', () => {
    const r = run(['forecast-eval', '--model', taylor('none')])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(
      /^taylor-none\.onnx: MAE \d+\.\d MW, MAPE \d+\.\d\d % over 625 origins \(30000 steps\) from 2000-08-14T00:00:00Z; seasonal naive MAE 490\.1 MW, MAPE 1\.63 %/,
    )
  })

  it('one line and exit 2 for a translation model, a bad series or an origin not in it', () => {
    expect(run(['forecast', '--model', tiny('bahdanau')])).toMatchObject({ code: 2, err: expect.stringMatching(/is a translation model; use translate/) })
    const bad = join(tempDir(), 'bad.csv')
    writeFileSync(bad, 'a,b\n')
    expect(run(['forecast', '--model', taylor('none'), '--series', bad]).err).toMatch(/bad\.csv: The CSV has no rows under its header|must start with a header/)
    expect(run(['forecast', '--model', taylor('none'), '--origin', '1999-01-01'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--origin 1999-01-01 is not a timestamp of the series/),
    })
  })
})
