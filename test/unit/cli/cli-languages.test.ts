import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { check } from '../../../src/cli/check'
import { alignCommands } from '../../../src/cli/align'
import { ROOT } from '../../helpers'

/**
 * --src-lang/--tgt-lang on the commands that had none (issue 39 #5): check, align, occlusion. Run
 * in process (the commands' own functions), reading what they print.
 */
const HF = join(ROOT, 'test', 'fixtures', 'hf')
const temps: string[] = []
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true })
})
afterEach(() => {
  vi.restoreAllMocks()
})
function printed(): () => string {
  const out: string[] = []
  vi.spyOn(console, 'log').mockImplementation((...xs: unknown[]) => void out.push(xs.join(' ')))
  return () => out.join('\n')
}
const text = (JSON.parse(readFileSync(join(HF, 'm2m100', 'reference.json'), 'utf8')) as { sentences: { text: string }[] }).sentences[0].text

describe('the language pair on check, align and occlusion', () => {
  it('check: a bilingual model refuses a pair it was not trained for; a multilingual one is checked with the pair given by ISO code', async () => {
    let out = printed()
    const code = await check([join(HF, 'marian'), '--src-lang', 'en', '--tgt-lang', 'de'])
    expect(out()).toMatch(/translates en → fr only .* not trained for en → de/)
    expect(code).toBe(2)
    vi.restoreAllMocks()
    out = printed()
    await check([join(HF, 'm2m100'), '--src-lang', 'eng', '--tgt-lang', 'deu', '--json'])
    const report = JSON.parse(out()) as { spec?: unknown; exitCode: number; fatal: string[]; name: string; details: string[] }
    expect(report.fatal).toEqual([])
    expect(report.details.join('\n')).toMatch(/first token forced to \d+ \("__de__"\)/)
  })

  it('check: a folder whose tokenizer_config names no pair opens: checked with a stand-in pair, the pair to give listed with its codes, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'al-cli-langs-'))
    temps.push(dir)
    cpSync(join(HF, 'm2m100'), dir, { recursive: true })
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ src_lang: null, tgt_lang: null, tokenizer_class: 'M2M100Tokenizer' }))
    let out = printed()
    const code = await check([dir])
    expect(out()).toMatch(/the app can use every feature this format offers/)
    expect(out()).toMatch(
      /\? language pair: .* names no language pair .* --src-lang and --tgt-lang .*English \(en\), French \(fr\), German \(de\)\. Checked translating en → fr\./,
    )
    expect(out()).not.toMatch(/cannot open|✗/)
    expect(code).toBe(0)
    vi.restoreAllMocks()
    out = printed()
    await check([dir, '--json'])
    const report = JSON.parse(out()) as { exitCode: number; fatal: string[]; pairNeeded?: string }
    expect([report.exitCode, report.fatal]).toEqual([0, []])
    expect(report.pairNeeded).toMatch(/names no language pair/)
    // Given the pair, nothing is asked.
    vi.restoreAllMocks()
    out = printed()
    await check([dir, '--src-lang', 'en', '--tgt-lang', 'fr', '--json'])
    expect((JSON.parse(out()) as { pairNeeded?: string }).pairNeeded).toBeUndefined()
  })

  it('occlusion --src-lang en --tgt-lang de: the output is forced into German, its first token the language tag', async () => {
    const out = printed()
    await alignCommands.occlusion(['--model', join(HF, 'm2m100'), '--src', text, '--src-lang', 'en', '--tgt-lang', 'de', '--json'])
    const o = JSON.parse(out()) as { tgtTokens: string[]; srcWords: string[]; tau: (number | null)[]; top1: boolean[]; top1Rate: number }
    expect(o.tgtTokens[0]).toBe('__de__')
    // The forced language tag is no choice of the model's: it counts in neither summary.
    expect([o.tau[0], o.top1[0]]).toEqual([null, false])
    expect(o.top1Rate).toBeCloseTo(o.top1.slice(1).filter(Boolean).length / (o.top1.length - 1), 10)
    // The source's language tag is not a word to occlude.
    expect(o.srcWords).not.toContain('__en__')
  })

  it('align --src-lang/--tgt-lang: a bilingual model refuses a pair it was not trained for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'al-cli-align-'))
    temps.push(dir)
    writeFileSync(join(dir, 'pairs.en-fr'), 'a man ||| un homme\n')
    await expect(
      alignCommands.align(['--model', join(HF, 'marian'), '--input', join(dir, 'pairs.en-fr'), '--src-lang', 'en', '--tgt-lang', 'de']),
    ).rejects.toThrow(/translates en → fr only/)
  })
})
