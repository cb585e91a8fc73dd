/**
 * Words by default, pieces with --pieces: a bundled en→fr model's figure of a sentence with a
 * split word, read back from the PDF by poppler's pdftotext (an independent reader), not from the
 * builder's options.
 */
import { spawnSync } from '../../spawn-sync'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { BUNDLED_MODELS, tempDir } from '../../helpers'
import { popplerWords, type PopplerWord as Word } from '../host/pdf-readback'
import { runCli } from './cli-runner'

const SENTENCE = 'A little girl climbing into a wooden playhouse .'
const MODEL = join(BUNDLED_MODELS, 'en-fr-luong-general.onnx')

function run(args: string[]) {
  const r = runCli(args, undefined, 120_000)
  return { code: r.code, out: r.out, err: r.err.trim() }
}

/** The value labels (".02") on the row whose label is `row`: one per column of the heatmap. */
function cellsOnRow(words: Word[], row: string): number {
  const label = words.find((w) => w.text === row)!
  const mid = (label.y0 + label.y1) / 2
  return words.filter((w) => /^(\.\d\d|1|1\.0|0)$/.test(w.text) && w.x0 > label.x1 && w.y0 < mid && w.y1 > mid).length
}

const dir = tempDir()
const exported = (name: string, extra: string[]) => {
  const out = join(dir, name)
  const r = run(['export', '--model', MODEL, '--src', SENTENCE, '--size', 'paper-double', '--out', out, ...extra])
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  return out
}

beforeAll(() => {
  ensureBuild()
  exported('words.pdf', [])
  exported('pieces.pdf', ['--pieces'])
}, 300_000)

describe('export in words (the default) and pieces (--pieces)', () => {
  it('shows "playhouse" as one column of the heatmap, and its two pieces with --pieces', () => {
    const words = popplerWords(join(dir, 'words.pdf')).words
    const texts = words.map((w) => w.text)
    expect(texts).toContain('playhouse')
    expect(texts).not.toContain('play@@')
    expect(texts).not.toContain('house')
    const pieces = popplerWords(join(dir, 'pieces.pdf')).words
    const pieceTexts = pieces.map((w) => w.text)
    expect(pieceTexts).toContain('play@@')
    expect(pieceTexts).toContain('house')
    expect(pieceTexts).not.toContain('playhouse')
    // "a little girl climbing into a wooden playhouse . </s>": 10 source words, 11 pieces; the
    // first output word's row has one value per column.
    const first = texts.find((t) => /^(une|un|la|le)$/i.test(t))!
    expect(cellsOnRow(words, first)).toBe(10)
    expect(cellsOnRow(pieces, first)).toBe(11)
  })

  it('writes the units and the rule into the PDF subject and the SVG description', () => {
    const info = spawnSync('pdfinfo', [join(dir, 'words.pdf')], { encoding: 'utf8' }).stdout
    expect(info).toMatch(/Subject:\s+Units: words\. A source word receives the sum of the weights of its subword pieces/)
    const svg = readFileSync(exported('words.svg', []), 'utf8')
    expect(svg).toMatch(/<desc>Units: words\./)
    expect(svg).toContain('>playhouse</text>')
    expect(readFileSync(exported('pieces.svg', ['--pieces']), 'utf8')).toMatch(/<desc>Units: subword pieces, as the model reads and writes them\.<\/desc>/)
    // A view of one decoder step stays in pieces and says why.
    expect(readFileSync(exported('step.svg', ['--view', 'step', '--step', '2']), 'utf8')).toMatch(
      /<desc>Units: subword pieces\. This view shows one decoder step/,
    )
  })

  it('writes words (and the pieces each spans) to translate --attention, pieces with --pieces', () => {
    const out = join(dir, 'att.jsonl')
    const r = runCli(['translate', '--model', MODEL, '--attention', out], SENTENCE + '\n')
    expect(r.code).toBe(0)
    const rec = JSON.parse(readFileSync(out, 'utf8'))
    expect(rec.units).toBe('words')
    expect(rec.srcTokens).toContain('playhouse')
    expect(rec.pieceSpans.src[7]).toEqual([7, 8])
    for (const row of rec.attention as number[][]) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5)
    runCli(['translate', '--model', MODEL, '--attention', out, '--pieces'], SENTENCE + '\n')
    const raw = JSON.parse(readFileSync(out, 'utf8'))
    expect(raw.units).toBe('pieces')
    expect(raw.srcTokens).toEqual(expect.arrayContaining(['play@@', 'house']))
    expect(raw.pieceSpans).toBeUndefined()
  })
})
