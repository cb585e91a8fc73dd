/**
 * `attention-lens export` adapts, then refuses (issue 33): the note on stderr says what the fitter
 * did, --fit strict takes only the size asked, a refusal names what fits with the options that make
 * it, --rows draws a part, and a paper-double figure has the page the app's export gives it.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuild } from '../../../scripts/ensure-build.mjs'
import { InferenceService } from '../../../src/engine/service'
import { renderFigure } from '../../../src/host/export/figure'
import { figureInUnits } from '../../../src/shared/attention/word-figure'
import { DEFAULT_FIGURE, SIZE_PRESETS } from '../../../src/shared/figure'
import { defaultCaption } from '../../../src/shared/figure-context'
import { popplerWords } from '../host/pdf-readback'
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
  it('with the defaults (16:9 slide, 20 pt) a 25-word heatmap is refused naming what fits, with the options for it', () => {
    const r = run(['export', '--model', MODEL, '--src', SENTENCE, '--out', join(tempDir(), 'h.pdf')])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(
      /cannot fit slide-16x9 with text of at least 14 pt; try: fits at 12 pt \(--font screen\); fits on paper-double \(--size paper-double\); split into two slides: steps 1–(\d+) and (\d+)–\d+ \(--rows 1-\1, then --rows \2-\d+\)\./,
    )
    const rows = /--rows (1-\d+)/.exec(r.err)![1]
    // The first of the two slides, as named.
    const out = join(tempDir(), 'part.pdf')
    const part = run(['export', '--model', MODEL, '--src', SENTENCE, '--out', out, '--rows', rows])
    expect(part.code, part.err).toBe(0)
    const { page, words } = popplerWords(out)
    expect([page.width, page.height]).toEqual([960, 540])
    expect(words.map((w) => w.text).join(' ')).toContain(`output, steps ${rows.replace('-', '–')} of`)
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
