import { spawnSync } from '../../spawn-sync'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { naiveBaselineLabel } from '../../../src/cli/baseline'
import { BUNDLED_MODELS, editedModel, ROOT, setMeta, tempDir, tiny } from '../../helpers'
import { itWithTorch, PY } from '../../torch'
import { after, BATCH_TENSORS, constant, fixAxis, nanOf, node } from '../engine/check-edits'
import { TensorProto_DataType } from '../../../src/engine/onnx-proto'
import { copyFileSync, existsSync } from 'node:fs'
import { runCli } from './cli-runner'

const UNUSUAL = join(ROOT, 'test', 'fixtures', 'unusual')
const STATE_WIDTH =
  "The decoder state's width depends on the source length: 26 floats for a 10-token source, 20 for 4. Attention Lens needs a fixed-width state: keep what grows with the source (a coverage vector, say) in a fixed-size buffer of max_source floats (padded to that width in the encoder, its first S read in the step), or compute it in the step from encoder_states and src_mask."

// The command as users get it: package.json's bin, which loads the build in out/main/cli.js.
const BIN = join(ROOT, 'bin', 'attention-lens.mjs')
function run(args: string[]) {
  const r = runCli(args, undefined, 120_000)
  return { code: r.code, out: r.out, err: r.err.trim() }
}

beforeAll(() => {
  ensureBuild()
}, 300_000)

describe('attention-lens check', () => {
  it('exit 0 and what was tried when the app can use every feature', () => {
    const r = run(['check', tiny('local-p')])
    expect(r.code).toBe(0)
    expect(r.out.split('\n')[0]).toBe('tiny-local-p.onnx: tiny-local-p (local-p, en→fr) — the app can use every feature')
    expect(r.out).toContain('  ✓ beam search with 4 hypotheses\n')
    expect(r.out).toContain('  ✓ an overridden step (what-if attention)\n')
  })

  it('exit 1 with one line per thing that will not work, and why (the batch fixed at 1)', () => {
    const r = run(['check', editedModel(tiny('bahdanau'), (m) => fixAxis(m, BATCH_TENSORS, 0, 1))])
    expect(r.code).toBe(1)
    const lines = r.out.trim().split('\n')
    expect(lines[0]).toBe('edited.onnx: tiny-bahdanau (bahdanau, en→fr) — 1 feature will not work')
    expect(lines[1]).toMatch(
      /^ {2}✗ beam search: Beam search decodes its hypotheses as one batch, but the batch size is fixed at 1 \(input "src_ids" is \[1, src_len\]/,
    )
    expect(lines[2]).toMatch(/^ {2}! batches \(BLEU by length, forecast-eval\): The batch size is fixed at 1/)
  })

  it('exit 2 when a file cannot be opened, every contract problem listed; the worst file decides', () => {
    const broken = editedModel(tiny('bahdanau'), (m) => {
      setMeta(m, 'al.tgt_lang', 'Deutsch')
      setMeta(m, 'al.attention', 'none')
    })
    const r = run(['check', tiny('none'), broken])
    expect(r.code).toBe(2)
    expect(r.out).toContain('tiny-none.onnx: tiny-none (none, en→fr) — the app can use every feature')
    expect(r.out).toContain(
      [
        'edited.onnx: tiny-bahdanau — the app cannot open it',
        '  ✗ The model\'s "al.tgt_lang" is "Deutsch", not a language code such as "en", "zh" or "pt-BR".',
        '  ✗ The model is declared without attention (al.attention "none") but has the outputs "attention", "scores": declare the attention kind it computes, or leave those outputs out.',
      ].join('\n'),
    )
    const text = run(['check', join(ROOT, 'README.md')])
    expect(text.code).toBe(2)
    expect(text.out).toMatch(/^README\.md — the app cannot open it\n {2}✗ The file is not an ONNX model: /)
  })

  it('--json: the same report as data', () => {
    const r = run(['check', '--json', editedModel(tiny('bahdanau'), (m) => nanOf(m, 'logits'))])
    expect(r.code).toBe(1)
    const report = JSON.parse(r.out)
    expect(report).toMatchObject({ name: 'tiny-bahdanau', exitCode: 1, fatal: [] })
    expect(report.findings[0]).toMatchObject({ level: 'error', feature: 'translate' })
    expect(report.findings[0].message).toMatch(/^The logits hold NaN or infinite values at output step 1/)
  })

  it('a decoder state that grows with the source (coverage): the cause in words, no onnxruntime node names', () => {
    const r = run(['check', join(UNUSUAL, 'coverage-state.onnx')])
    expect(r.code).toBe(1)
    expect(r.out).toBe(`coverage-state.onnx: coverage-state (bahdanau, en→fr) — 1 feature will not work\n  ✗ translation: ${STATE_WIDTH}\n`)
  })

  it("--verbose adds onnxruntime's own message under a finding it caused; without it, no node names", () => {
    // The state reshaped to a batch of 1 inside the graph: beam search fails in a Reshape node.
    const model = editedModel(tiny('bahdanau'), (m) =>
      after(m, 'next_state', (raw) => node(m, 'Reshape', [raw, constant(m, [1, 32], [2], TensorProto_DataType.INT64)], ['next_state'])),
    )
    const plain = run(['check', model])
    expect(plain.out).not.toMatch(/Name:'|onnxruntime:/)
    const verbose = run(['check', '--verbose', model])
    expect(verbose.out).toMatch(/\n {6}onnxruntime: .*node/)
    expect(verbose.out.replace(/\n {6}onnxruntime: [^\n]*/g, '')).toBe(plain.out)
  })

  it('without a file: usage, exit 2', () => {
    const r = run(['check'])
    expect(r.code).toBe(2)
    expect(r.err).toBe('attention-lens: check needs a model file: attention-lens check M.onnx (attention-lens --help)')
  })
})

describe('the Python export helper runs this check', () => {
  itWithTorch('run_check calls attention-lens check and returns its exit code', () => {
    const model = editedModel(tiny('bahdanau'), (m) => fixAxis(m, BATCH_TENSORS, 0, 1))
    const code = 'import sys; sys.path.insert(0, "training"); from attention_lens_export import run_check; sys.exit(run_check(sys.argv[1]))'
    const r = spawnSync(PY, ['-c', code, model], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, ATTENTION_LENS: `${process.execPath} ${BIN}` },
    })
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/^edited\.onnx: tiny-bahdanau \(bahdanau, en→fr\) — 1 feature will not work\n {2}✗ beam search: /)
  })
})

describe('the Python export helper refuses what the app refuses, and says when it cannot find the app', () => {
  const python = (code: string, env: NodeJS.ProcessEnv = {}) =>
    spawnSync(PY, ['-c', code], { cwd: ROOT, encoding: 'utf8', timeout: 240_000, env: { ...process.env, OMP_NUM_THREADS: '1', ...env } })

  itWithTorch("refuses the coverage-state model before writing it, in the app's words", () => {
    const out = join(tempDir(), 'coverage.onnx')
    const r = python(
      [
        'import sys',
        'sys.path.insert(0, "test/fixtures/unusual")',
        'import make_fixtures as f, attention_lens_export as ale',
        'try:',
        `    f.export_to(${JSON.stringify(out)}, f.Bahdanau(coverage=True))`,
        'except ale.ExportError as e:',
        '    print("refused:", e)',
      ].join('\n'),
    )
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      /^refused: the decoder state's width depends on the source length: \d+ floats for a 5-token source, \d+ for 9\. Attention Lens needs a fixed-width state: keep what grows with the source \(a coverage vector, say\) in a fixed-size buffer of max_source floats/,
    )
    expect(existsSync(out)).toBe(false)
  })

  itWithTorch("copied next to a user's code, away from the app: a loud note on how to set ATTENTION_LENS, then the Python checks", () => {
    const dir = tempDir()
    copyFileSync(join(ROOT, 'training', 'attention_lens_export.py'), join(dir, 'attention_lens_export.py'))
    const code = `import sys; sys.path.insert(0, ${JSON.stringify(dir)}); from attention_lens_export import run_check; sys.exit(run_check(sys.argv[1]))`
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: '/usr/bin:/bin' }
    delete env.ATTENTION_LENS
    const r = spawnSync(PY, ['-c', code, tiny('bahdanau')], { cwd: dir, encoding: 'utf8', timeout: 240_000, env })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain('the Attention Lens app was not found, so only the Python checks ran')
    expect(r.stderr).toContain('export ATTENTION_LENS="node /path/to/attention-lens/bin/attention-lens.mjs"')
    expect(r.stdout).toContain('tiny-bahdanau.onnx: the Python checks passed')
    // Asked for on purpose, the Python checks run without the note.
    const quiet = spawnSync(PY, ['-c', code, tiny('bahdanau')], { cwd: dir, encoding: 'utf8', timeout: 240_000, env: { ...env, ATTENTION_LENS: 'python' } })
    expect(quiet.stderr).not.toContain('was not found')
  })
})

describe('the forecast baseline is named from its real lag', () => {
  it('same time last week for lag 336 at 30 minutes, same time yesterday for 96 at 15, n days earlier otherwise', () => {
    expect(naiveBaselineLabel([48, 336], 30)).toBe('same time last week (lag 336)')
    expect(naiveBaselineLabel([96], 15)).toBe('same time yesterday (lag 96)')
    expect(naiveBaselineLabel([48, 96], 30)).toBe('2 days earlier (lag 96)')
    expect(naiveBaselineLabel([], 30)).toBeNull()
  })

  it('attention-lens forecast prints it for a model whose largest lag is 96 steps', () => {
    const model = editedModel(join(BUNDLED_MODELS, 'taylor-none.onnx'), (m) => {
      const f = JSON.parse(m.metadataProps.find((p) => p.key === 'al.forecast')!.value)
      setMeta(m, 'al.forecast', JSON.stringify({ ...f, seasonal_lags: [48, 96] }))
    })
    const r = run(['forecast', '--model', model])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toMatch(/; 2 days earlier \(lag 96\): MAE [\d.]+ MW, MAPE [\d.]+ %\n/)
    expect(r.out).not.toContain('last week')
  })
})
