import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { ROOT, tempDir, tiny } from '../../helpers'
import { runCli } from './cli-runner'

// The command as users get it (package.json's bin, which loads the build); built when src/ is newer than out/.
function run(args: string[]) {
  const r = runCli(args, undefined, 60_000)
  return { code: r.code, out: r.out, err: r.err.trim() }
}
beforeAll(() => {
  ensureBuild()
}, 300_000)
const FIX = join(ROOT, 'test', 'fixtures', 'align')

describe('attention-lens aer', () => {
  it('prints AER, precision and recall of a 0-based hypothesis against a 1-based gold', () => {
    // 15 gold links, all sure; the hypothesis has 14 links (2p2 counts as proposed), 14 of them gold: the second pair misses 2-2.
    // AER = 1 − (14 + 14) / (14 + 15); P = 14/14; R = 14/15.
    const r = run(['aer', '--gold', join(FIX, 'tiny.gold'), '--hyp', join(FIX, 'tiny.hyp')])
    expect(r).toMatchObject({ code: 0, out: `AER ${(100 * (1 - 28 / 29)).toFixed(2)} P 100.00 R ${((100 * 14) / 15).toFixed(2)}\n` })
  })

  it('reads a 1-based hypothesis with --hyp-one-based, and says when the files do not match', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'one.hyp'), '1-1 2-2 3-3 4-4 5-5 6-6 7-7 8-8\n1-1 2-2 3-3\n1-1 2-2 3-3 4-4\n')
    expect(run(['aer', '--gold', join(FIX, 'tiny.gold'), '--hyp', join(dir, 'one.hyp'), '--hyp-one-based']).out).toBe('AER 0.00 P 100.00 R 100.00\n')
    writeFileSync(join(dir, 'short.hyp'), '0-0\n')
    expect(run(['aer', '--gold', join(FIX, 'tiny.gold'), '--hyp', join(dir, 'short.hyp')])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/has 3 lines but .* has 1$/),
    })
  })
})

describe('attention-lens align', () => {
  it("prints one 0-based Pharaoh line per pair from a model's attention, and its AER against --gold", () => {
    const r = run(['align', '--model', tiny('bahdanau'), '--input', join(FIX, 'tiny.src-tgt'), '--gold', join(FIX, 'tiny.gold')])
    expect(r.code).toBe(0)
    const out = r.out.trim().split('\n')
    expect(out).toHaveLength(3)
    // argmax: one link per target word.
    expect(out.map((l) => l.split(' ').length)).toEqual([8, 3, 4])
    for (const l of out) expect(l).toMatch(/^(\d+-\d+ ?)+$/)
    expect(r.err).toMatch(/AER \d+\.\d\d P \d+\.\d\d R \d+\.\d\d$/)
  })

  it('counts from 1 with --one-based, reads one head, and refuses a head a model lacks', () => {
    const zero = run(['align', '--model', tiny('transformer'), '--input', join(FIX, 'tiny.src-tgt'), '--head', '2:1'])
    const one = run(['align', '--model', tiny('transformer'), '--input', join(FIX, 'tiny.src-tgt'), '--head', '2:1', '--one-based'])
    expect(zero.code).toBe(0)
    const shift = (l: string) =>
      l
        .split(' ')
        .map((x) =>
          x
            .split('-')
            .map((n) => String(Number(n) + 1))
            .join('-'),
        )
        .join(' ')
    expect(one.out.trim().split('\n')).toEqual(zero.out.trim().split('\n').map(shift))
    expect(run(['align', '--model', tiny('bahdanau'), '--input', join(FIX, 'tiny.src-tgt'), '--head', '1:1'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/not a Transformer/),
    })
  })

  it('--method alti+ (norm, alti, rollout): a contribution method aligns as the weights do, scored against --gold; --every-reading scores each method', async () => {
    const { methodAttentions } = await import('../../../src/engine/align/contributions')
    const { ContributionModel } = await import('../../../src/engine/contributions')
    const { readPairs } = await import('../../../src/engine/align/gold')
    const { wordMatrix } = await import('../../../src/engine/align/attention')
    const { extractLinks } = await import('../../../src/engine/align/extract')
    const { formatPharaohLine } = await import('../../../src/engine/align/pharaoh')
    const model = join(ROOT, 'resources', 'models', 'en-fr-transformer.onnx')
    const r = run(['align', '--model', model, '--input', join(FIX, 'tiny.src-tgt'), '--method', 'alti+', '--gold', join(FIX, 'tiny.gold'), '--every-reading'])
    expect(r.code, r.err).toBe(0)
    // The engine's own path (bench/contributions-aer.ts's) gives the same links.
    const cm = await ContributionModel.open(model)
    const by = await methodAttentions(cm, await readPairs(join(FIX, 'tiny.src-tgt')), ['alti+'])
    await cm.release()
    expect(r.out).toBe(
      by
        .get('alti+')!
        .map((p) => formatPharaohLine(extractLinks(wordMatrix(p)), false) + '\n')
        .join(''),
    )
    for (const m of ['norm', 'alti', 'alti+', 'rollout']) expect(r.err).toMatch(new RegExp(`^${m.replace('+', '\\+')} +AER \\d+\\.\\d\\d`, 'm'))
    expect(r.err).toMatch(/en-fr-transformer.*, alti\+, argmax\n/)
    expect(r.err).toMatch(/AER \d+\.\d\d P \d+\.\d\d R \d+\.\d\d$/)
    expect(run(['align', '--model', model, '--input', join(FIX, 'tiny.src-tgt'), '--method', 'alti+', '--head', '1:1'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--method alti\+ reads the whole model/),
    })
    expect(run(['align', '--model', model, '--input', join(FIX, 'tiny.src-tgt'), '--method', 'alti++'])).toMatchObject({ code: 2 })
  }, 120_000)

  it('aligns statistically, with progress on stderr', () => {
    const r = run(['align', '--statistical', '--input', join(FIX, 'tiny.src-tgt'), '--iterations', '3'])
    expect(r.code).toBe(0)
    expect(r.out.trim().split('\n')).toHaveLength(3)
    expect(r.err).toMatch(/forward EM iteration 3\/3[\s\S]*backward EM iteration 3\/3/)
  })
})

describe('attention-lens occlusion and eval --ablate', () => {
  it('prints occlusion as JSON', () => {
    const r = run(['occlusion', '--model', tiny('bahdanau'), '--src', 'a man is sitting on a bench .', '--json'])
    expect(r.code).toBe(0)
    const o = JSON.parse(r.out) as { srcWords: string[]; importance: number[][]; tgtTokens: string[] }
    expect(o.srcWords).toEqual(['a', 'man', 'is', 'sitting', 'on', 'a', 'bench', '.'])
    expect(o.importance).toHaveLength(o.tgtTokens.length)
  })

  it('scores the own and the ablated attention', () => {
    const src = join(ROOT, 'test', 'fixtures', 'multi30k-test-50.en')
    const ref = join(ROOT, 'test', 'fixtures', 'multi30k-test-50.fr')
    const r = run(['eval', '--model', tiny('bahdanau'), '--src', src, '--ref', ref, '--ablate', 'uniform'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/own attention +BLEU +\d+\.\d\d +mean reference log p -\d\.\d{3}\n +uniform attention +BLEU/)
    // Refused before any decoding, in one line: a model without attention has none to replace.
    expect(run(['eval', '--model', tiny('none'), '--src', src, '--ref', ref, '--ablate', 'uniform'])).toMatchObject({
      code: 2,
      out: '',
      err: 'attention-lens: tiny-none has no attention to ablate',
    })
    expect(run(['eval', '--model', tiny('bahdanau'), '--src', src, '--ref', ref, '--ablate', 'zero'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--ablate must be uniform or permuted/),
    })
  })
})
