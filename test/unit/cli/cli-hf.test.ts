import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { ROOT, tempDir } from '../../helpers'
import { runCli } from './cli-runner'

// The command as users run it on Hugging Face folders (test/fixtures/hf): --model DIR, or one of the folder's .onnx files.
const HF = join(ROOT, 'test', 'fixtures', 'hf')
function run(args: string[], input?: string) {
  const r = runCli(args, input, 120_000)
  return { code: r.code, out: r.out, err: r.err.trim() }
}

beforeAll(() => {
  ensureBuild()
}, 300_000)

describe('the CLI on Hugging Face folders', () => {
  it('check DIR names the family, layers × heads, where the attention comes from and the tokenizer', () => {
    const r = run(['check', join(HF, 't5')])
    // What-if cannot work on Optimum's graph: the format does not offer it, which is no fault of
    // the folder (exit 0, listed as not offered); the rest works.
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^t5: t5 \(transformer 2 layers × 4 heads, und→und\) — the app can use every feature this format offers/)
    expect(r.out).toMatch(/\n {2}– what-if attention: not offered by this format \(/)
    expect(r.out).not.toMatch(/✗/)
    expect(r.out).toMatch(/Hugging Face t5 folder: encoder_model\.onnx, decoder_model\.onnx, decoder_with_past_model\.onnx/)
    expect(r.out).toMatch(/attention from 2 Softmax nodes \(\/m\/decoder\/block\.0\/layer\.1\/EncDecAttention\/Softmax_output_0/)
    expect(r.out).toMatch(/tokenizer: tokenizer\.json \(Unigram\); decoding starts from id 0/)
    expect(r.out).toMatch(/✓ beam search with 4 hypotheses/)
  })

  it('check --json DIR: exit 0, what-if as a finding the format does not offer', () => {
    const r = run(['check', '--json', join(HF, 'marian')])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.out) as { exitCode: number; findings: { feature: string; notOffered?: boolean }[] }
    expect(report.exitCode).toBe(0)
    expect(report.findings).toEqual([expect.objectContaining({ feature: 'what-if', notOffered: true })])
  })

  it('translate --model DIR --attention writes each head, --model FILE.onnx opens the same folder', () => {
    const out = join(tempDir(), 'att.jsonl')
    const ref = JSON.parse(readFileSync(join(HF, 'marian', 'reference.json'), 'utf8')) as { sentences: { text: string }[] }
    const r = run(['translate', '--model', join(HF, 'marian'), '--raw', '--attention', out], ref.sentences[0].text + '\n')
    expect(r.code).toBe(0)
    const rec = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]) as { crossAttention?: number[][][][] }
    expect(rec.crossAttention?.[0]).toHaveLength(3)
    expect(rec.crossAttention?.[0][0]).toHaveLength(4)
    const again = run(['translate', '--model', join(HF, 'marian', 'onnx', 'decoder_model_merged.onnx'), '--raw'], ref.sentences[0].text + '\n')
    expect(again.out).toBe(r.out)
  })

  it("--src-lang/--tgt-lang choose a multilingual model's pair; a language it lacks is refused with those it knows", () => {
    const ok = run(['translate', '--model', join(HF, 'm2m100'), '--src-lang', 'en', '--tgt-lang', 'de', '--raw'], 'A dog runs.\n')
    expect(ok.code).toBe(0)
    const bad = run(['translate', '--model', join(HF, 'm2m100'), '--src-lang', 'en', '--tgt-lang', 'xx'], 'A dog runs.\n')
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/m2m100 has no target language "xx"; it knows 3 languages \(English \(en\), French \(fr\), German \(de\)\), by code/)
    const half = run(['translate', '--model', join(HF, 'm2m100'), '--src-lang', 'en'], 'A dog runs.\n')
    expect(half.err).toMatch(/--src-lang and --tgt-lang go together/)
  })

  it("attribute --model DIR on the fp16 and q8 files: the fp32 folder's output and, within their rounding, its numbers", () => {
    const attribute = (name: string) => {
      const r = run(['attribute', '--model', join(HF, name), '--src', 'the cat sat on the mat', '--json'])
      expect(r.code, r.err).toBe(0)
      return JSON.parse(r.out.trim().split('\n')[0]) as { method: string; tgtTokens: string[]; matrix: number[][] }
    }
    const fp32 = attribute('marian')
    for (const [name, tol] of [
      ['marian-fp16', 2e-3],
      ['marian-q8', 2e-2],
    ] as const) {
      const got = attribute(name)
      expect(got.method).toBe('alti+')
      expect(got.tgtTokens).toEqual(fp32.tgtTokens)
      const diff = Math.max(...got.matrix.flatMap((row, t) => row.map((v, j) => Math.abs(v - fp32.matrix[t][j]))))
      expect(diff).toBeLessThan(tol)
    }
  })
})
