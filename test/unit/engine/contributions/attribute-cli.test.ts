import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { attribute, type Attribution } from '../../../../src/cli/attribute'
import { ROOT } from '../../../helpers'

/** `attention-lens attribute` (src/cli/attribute.ts), run in-process on the bundled en→fr Transformer. */
const MODEL = join(ROOT, 'resources/models/en-fr-transformer.onnx')
const FIXTURE = JSON.parse(gunzipSync(readFileSync(join(ROOT, 'test/fixtures/contributions/en-fr-transformer.json.gz'))).toString('utf8')) as {
  cases: { source: string; tgt_tokens: string[]; alti_plus: { source: number[][]; sourceShare: number[] } }[]
}

async function output(argv: string[]): Promise<string[]> {
  const logged: string[] = []
  const spy = vi.spyOn(console, 'log').mockImplementation((s: string) => void logged.push(s))
  try {
    await attribute(argv)
  } finally {
    spy.mockRestore()
  }
  return logged
}

afterEach(() => vi.restoreAllMocks())

describe('attention-lens attribute', () => {
  it('--json writes the reference ALTI+ matrix [target][source] and source share of the greedy output', async () => {
    const c = FIXTURE.cases[0]
    const [line] = await output(['--model', MODEL, '--src', c.source, '--json'])
    const a = JSON.parse(line) as Attribution
    expect(a.method).toBe('alti+')
    expect(a.tgtTokens).toEqual(c.tgt_tokens)
    expect(a.matrix).toHaveLength(c.tgt_tokens.length)
    a.matrix.forEach((row, t) => row.forEach((v, j) => expect(Math.abs(v - c.alti_plus.source[t][j])).toBeLessThan(1e-4)))
    a.sourceShare.forEach((s, t) => expect(Math.abs(s - c.alti_plus.sourceShare[t])).toBeLessThan(1e-4))
  }, 60_000)

  it('--input and --targets attribute one forced target a line, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attribute-'))
    writeFileSync(join(dir, 'src.txt'), 'A dog runs.\nTwo men are talking.\n')
    writeFileSync(join(dir, 'tgt.txt'), 'Un chien court.\nDeux hommes parlent.\n')
    const lines = await output(['--model', MODEL, '--input', join(dir, 'src.txt'), '--targets', join(dir, 'tgt.txt'), '--method', 'rollout', '--json'])
    const got = lines.map((l) => JSON.parse(l) as Attribution)
    expect(got.map((a) => [a.source, a.forced, a.method])).toEqual([
      ['A dog runs.', true, 'rollout'],
      ['Two men are talking.', true, 'rollout'],
    ])
    expect(got[0].tgtTokens).toEqual(['un', 'chien', 'court', '.', '</s>'])
    expect(got[0].prefixTokens).toEqual(['<s>', 'un', 'chien', 'court', '.'])
    for (const a of got) for (const row of a.matrix) expect(row).toHaveLength(a.srcTokens.length)
  }, 60_000)

  it('the text form lists each output piece with its source share', async () => {
    const out = (await output(['--model', MODEL, '--src', 'A dog runs.', '--target', 'Un chien court.', '--method', 'norm'])).join('\n')
    expect(out).toMatch(/\(forced\) {3}\[norm\]/)
    expect(out).toMatch(/^ {2}chien +source 0\.\d\d {3}dog /m)
  }, 60_000)

  it('refuses a missing source, an unknown method, and the RNN analogue on a Transformer', async () => {
    await expect(output(['--model', MODEL])).rejects.toThrow(/--src "sentence" or --input FILE/)
    await expect(output(['--model', MODEL, '--src', 'x', '--method', 'flow'])).rejects.toThrow(
      /--method must be one of norm, alti, alti\+, rollout, context-norm/,
    )
    await expect(output(['--model', MODEL, '--src', 'x', '--method', 'context-norm'])).rejects.toThrow(/RNN analogue; a Transformer has norm/)
  }, 60_000)

  it('an RNN with attention: context-norm by default, the reference share and the weights as the matrix; other methods refused with the reason', async () => {
    const BAHDANAU = join(ROOT, 'resources/models/en-fr-bahdanau.onnx')
    const rnn = (
      JSON.parse(gunzipSync(readFileSync(join(ROOT, 'test/fixtures/contributions/rnn-context-norm.json.gz'))).toString('utf8')) as {
        models: Record<string, { cases: { source: string; tgt_tokens: string[]; source_share: number[]; weights: number[][] }[] }>
      }
    ).models['en-fr-bahdanau'].cases[0]
    const [line] = await output(['--model', BAHDANAU, '--src', rnn.source, '--json'])
    const a = JSON.parse(line) as Attribution
    expect(a.method).toBe('context-norm')
    expect(a.tgtTokens).toEqual(rnn.tgt_tokens)
    a.sourceShare.forEach((s, t) => expect(Math.abs(s - rnn.source_share[t])).toBeLessThan(1e-4))
    a.matrix.forEach((row, t) => row.forEach((v, j) => expect(Math.abs(v - rnn.weights[t][j])).toBeLessThan(1e-4)))
    const text = (await output(['--model', BAHDANAU, '--src', 'A dog runs.', '--target', 'Un chien court.'])).join('\n')
    expect(text).toMatch(/\(forced\) {3}\[context-norm\]/)
    await expect(output(['--model', BAHDANAU, '--src', 'x', '--method', 'alti+'])).rejects.toThrow(
      /is an RNN: --method alti\+ needs a Transformer \(ALTI\+ combines/,
    )
    await expect(output(['--model', join(ROOT, 'resources/models/en-fr-none.onnx'), '--src', 'x'])).rejects.toThrow(/no "attention" output/)
  }, 60_000)
})
