/**
 * `attention-lens export` adapts, then refuses (issues 33 and 40): the note on stderr says what the fitter
 * did (a long sentence split into slides at the preset's text size, every file named), --fit strict takes only the size asked, a refusal names what fits with the options that make
 * it, --rows draws a part, and a paper-double figure has the page the app's export gives it.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { InferenceService } from '../../../src/engine/service'
import { renderFigure } from '../../../src/host/export/figure'
import { figureInUnits } from '../../../src/shared/attention/word-figure'
import { DEFAULT_FIGURE, SIZE_PRESETS } from '../../../src/shared/figure'
import { defaultCaption } from '../../../src/shared/figure-context'
import { parseBboxLayout, popplerWords } from '../host/pdf-readback'
import { ROOT, tempDir } from '../../helpers'

const BIN = join(ROOT, 'bin', 'attention-lens.mjs')
const run = (args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 })
  return { code: r.status, out: r.stdout, err: r.stderr.trim() }
}
const MODEL = join(ROOT, 'resources', 'models', 'en-fr-luong-general.onnx')
/** A held-out sentence of 25 words (the bundled en→fr test set). */
const SENTENCE = readFileSync(join(ROOT, 'resources', 'testsets', 'en-fr.en'), 'utf8')
  .split('\n')
  .find((l) => l.split(' ').length === 25)!

beforeAll(() => {
  ensureBuild()
}, 300_000)

describe('export adapts, then refuses', () => {
  it('with the defaults (16:9 slide, 20 pt) a 25-word heatmap is split into slides at 20 pt: one PDF page each, and --rows draws one part', () => {
    const out = join(tempDir(), 'h.pdf')
    const r = run(['export', '--model', MODEL, '--src', SENTENCE, '--out', out])
    expect(r.code, r.err).toBe(0)
    const m = /^attention-lens: note: split into (\d) slides to fit at 20 pt: steps 1–(\d+), /.exec(r.err)
    expect(m, r.err).not.toBeNull()
    const k = Number(m![1])
    expect(r.out).toContain(`wrote ${out} (`)
    expect(r.out).toMatch(new RegExp(`${k} pages: steps 1–${m![2]}, `))
    // Read back by poppler: a 16:9 page per slide, nothing under 14 pt.
    const pages = parseBboxLayout(execFileSync('pdftotext', ['-bbox-layout', out, '-']).toString('utf8'))
    expect(pages).toHaveLength(k)
    for (const p of pages) {
      expect([p.width, p.height]).toEqual([960, 540])
      for (const w of p.words) expect(w.size, w.text).toBeGreaterThan(14 * 0.75 - 0.05)
    }
    // The first of the slides, as --rows draws it.
    const part = join(tempDir(), 'part.pdf')
    const one = run(['export', '--model', MODEL, '--src', SENTENCE, '--out', part, '--rows', `1-${m![2]}`])
    expect(one.code, one.err).toBe(0)
    const { page, words } = popplerWords(part)
    expect([page.width, page.height]).toEqual([960, 540])
    expect(words.map((w) => w.text).join(' ')).toContain(`output, steps 1–${m![2]} of`)
  }, 300_000)

  it('as PNG, a split figure is one file per slide, -1, -2, …, and the CLI names every file it wrote', () => {
    const dir = tempDir()
    const out = join(dir, 'lines.png')
    const r = run(['export', '--model', MODEL, '--src', SENTENCE, '--view', 'lines', '--out', out])
    expect(r.code, r.err).toBe(0)
    const k = Number(/split into (\d) slides/.exec(r.err)?.[1])
    expect(k).toBeGreaterThan(1)
    const wrote = [...r.out.matchAll(/^wrote (\S+) \(/gm)].map((x) => x[1])
    expect(wrote).toEqual(Array.from({ length: k }, (_, i) => join(dir, `lines-${i + 1}.png`)))
    for (const f of wrote) expect(readFileSync(f).subarray(1, 4).toString('latin1')).toBe('PNG')
    expect(existsSync(out)).toBe(false)
  }, 300_000)

  it('auto lays the lines down the page on paper-double and says so; strict refuses, naming --fit auto', () => {
    const out = join(tempDir(), 'l.pdf')
    const auto = run(['export', '--model', MODEL, '--src', SENTENCE, '--view', 'lines', '--size', 'paper-double', '--out', out])
    expect(auto.code, auto.err).toBe(0)
    expect(auto.err).toBe('attention-lens: note: lines drawn down the page to fit')
    expect(popplerWords(out).page.width).toBe(504)
    const strict = run(['export', '--model', MODEL, '--src', SENTENCE, '--view', 'lines', '--size', 'paper-double', '--fit', 'strict', '--out', out])
    expect(strict.code).toBe(2)
    expect(strict.err).toMatch(
      /cannot fit paper-double with 8 pt text laid out the usual way; try: fits when adapted \(lines drawn down the page to fit\) \(--fit auto\)\./,
    )
    expect(run(['export', '--model', MODEL, '--src', SENTENCE, '--fit', 'loose', '--out', out]).err).toMatch(/--fit must be auto or strict/)
  }, 300_000)

  it('a paper-double heatmap has the page the app exports: 7 in wide, the same height', async () => {
    const out = join(tempDir(), 'p.pdf')
    const r = run(['export', '--model', MODEL, '--src', SENTENCE, '--size', 'paper-double', '--out', out])
    expect(r.code, r.err).toBe(0)
    // The app: the dialog's spec for "paper, two columns: 7 in wide" and its default caption, rendered by the host.
    const svc = new InferenceService()
    const t = await svc.translate(MODEL, SENTENCE)
    await svc.closeAll()
    const data = figureInUnits({ view: 'heatmap', translation: t }, 'words')
    const spec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['paper-double'], fontSize: 8, format: 'pdf' as const, caption: defaultCaption(data, 'en') }
    const app = join(tempDir(), 'app.pdf')
    writeFileSync(app, await renderFigure(data, spec))
    const [cli, dialog] = [popplerWords(out).page, popplerWords(app).page]
    expect(cli.width).toBe(504)
    expect(cli).toEqual(dialog)
  }, 300_000)
})
