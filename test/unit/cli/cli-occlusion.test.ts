/**
 * The occlusion figure (`export --view occlusion`), read back from the PDF by poppler's pdftotext
 * (an independent reader): both panels label every source word and output token, the caption
 * carries τ and top-1 agreement as `occlusion --json` computes them, and nothing leaves the page.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { BUNDLED_MODELS, tempDir } from '../../helpers'
import { popplerWords } from '../host/pdf-readback'
import { runCli } from './cli-runner'

const MODEL = join(BUNDLED_MODELS, 'en-fr-luong-general.onnx')
const SENTENCE = 'two dogs are playing in the snow near a fence .'

function run(args: string[]) {
  const r = runCli(args, undefined, 120_000)
  return { code: r.code, out: r.out, err: r.err.trim() }
}

const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())

describe('export --view occlusion', () => {
  const dir = tempDir()
  let occ: { srcWords: string[]; tgtTokens: string[]; meanTau: number; top1Rate: number }
  beforeAll(async () => {
    await ensureBuild()
    const r = run(['occlusion', '--model', MODEL, '--src', SENTENCE, '--json'])
    expect(r.code, r.err).toBe(0)
    occ = JSON.parse(r.out)
  }, 300_000)

  it.each([
    ['slide', []],
    ['paper', ['--size', 'paper-double', '--font', 'paper']],
  ])('labels every word in both panels on a %s, τ and top-1 in the caption, all on the page', (_, extra) => {
    const out = join(dir, `occlusion-${_}.pdf`)
    const r = run(['export', '--model', MODEL, '--src', SENTENCE, '--view', 'occlusion', '--out', out, ...extra])
    expect(r.code, r.err).toBe(0)
    const { words, page } = popplerWords(out)
    const seen = count(words.map((w) => w.text))
    // Each label twice (attention and importance), and twice more for a word that occurs twice.
    for (const [w, n] of count([...occ.srcWords, ...occ.tgtTokens])) expect(seen.get(w) ?? 0, w).toBeGreaterThanOrEqual(2 * n)
    const text = words.map((w) => w.text).join(' ')
    expect(text).toContain(`mean Kendall τ ${occ.meanTau.toFixed(2)} · top-1 agreement ${(100 * occ.top1Rate).toFixed(0)} %`)
    expect(text).toContain('en-fr-luong-general')
    for (const w of words) {
      expect(w.x0, w.text).toBeGreaterThanOrEqual(0)
      expect(w.y0, w.text).toBeGreaterThanOrEqual(0)
      expect(w.x1, w.text).toBeLessThanOrEqual(page.width)
      expect(w.y1, w.text).toBeLessThanOrEqual(page.height)
    }
  })
})
