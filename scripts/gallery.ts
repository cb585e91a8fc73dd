/**
 * Regenerates every picture in docs/images, the README's first one included, from the current
 * code: figures through the command-line exporter, app screenshots through browser mode in
 * Chromium (the e2e harness), all from real sentences of the bundled test sets (16 words or more;
 * a Chinese character counts as a word, as the example picker counts).
 *
 *   npm run build && npm run gallery        # needs poppler-utils (pdftoppm) and /usr/bin/chromium
 *
 * A figure the exporter refuses (it cannot fit) is reported with the exporter's reason and the
 * rest still run; the exit status is 1 when anything failed.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { launchChromium, openAndType, screenshot, startBrowserMode } from '../test/e2e/harness'
import { presenting } from '../test/e2e/slide-helpers'
import { boardModel, goldSet } from '../src/engine/align/board'
import { LoadedModel } from '../src/engine/model'
import { renderFigure } from '../src/host/export/figure'
import { DEFAULT_FIGURE, SIZE_PRESETS, type FigureData } from '../src/shared/figure'

const ROOT = join(__dirname, '..')
const OUT = join(ROOT, 'docs', 'images')
const M = join(ROOT, 'resources', 'models')
const T = join(ROOT, 'resources', 'testsets')
const model = (name: string) => join(M, `${name}.onnx`)

/** Multi30K test 2016, lines 4 and 71 (16 and 18 words); Tatoeba zh, line 102 (22 characters). */
const EN = 'Five people wearing winter jackets and helmets stand in the snow, with snowmobiles in the background.'
const EN2 = 'A man in a black t-shirt, cap and jeans is playing drums on an upside down yellow pail.'
const ZH = '由于我以前见过他一次，所以我马上就认出他了。'

const failures: string[] = []

function lens(file: string, args: string[]): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'attention-lens.mjs'), 'export', ...args, '--out', join(OUT, file)], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  const note = r.stderr.match(/note: (.*)/)?.[1]
  if (r.status === 0) console.log(`  ${file}${note ? ` (${note})` : ''}`)
  else failures.push(`${file}: ${(r.stderr || r.stdout).trim()}`)
}

/** A PDF's first page as a PNG at `dpi`, as pdftoppm (poppler) renders it. */
function pdfPage(pdf: string, png: string, dpi: number): void {
  const r = spawnSync('pdftoppm', ['-png', '-r', String(dpi), '-singlefile', join(OUT, pdf), join(OUT, png.replace(/\.png$/, ''))], { encoding: 'utf8' })
  if (r.status === 0) console.log(`  ${png}`)
  else failures.push(`${png}: ${r.error?.message ?? r.stderr.trim()}`)
}

function figures(): void {
  console.log('figures (attention-lens export):')
  const slide = ['--size', 'slide-16x9', '--scale', '1']
  // The export dialog's defaults (a 16:9 slide, lecture-hall text): the exporter adapts the figure
  // to the slide and says what it did on stderr.
  lens('figure-heatmap.png', [
    '--model',
    model('en-fr-luong-general'),
    '--src',
    EN,
    ...slide,
    '--font',
    'lecture',
    '--title',
    'Luong (general) attention, en→fr',
  ])
  lens('figure-local-p.svg', ['--model', model('en-fr-local-p'), '--src', EN, '--view', 'local', '--step', '14', '--size', 'slide-16x9', '--font', 'lecture'])
  lens('figure-step.png', ['--model', model('en-fr-local-p'), '--src', EN, '--view', 'step', '--step', '14', ...slide, '--font', 'screen'])
  lens('figure-lines.png', ['--model', model('en-fr-luong-general'), '--src', EN2, '--view', 'lines', ...slide, '--font', 'screen'])
  lens('figure-whatif.png', [
    '--model',
    model('en-fr-bahdanau'),
    '--src',
    EN,
    '--view',
    'whatif',
    '--mode',
    'onehot',
    '--at',
    '3',
    '--source',
    '5',
    ...slide,
    '--font',
    'screen',
  ])
  lens('figure-corpus.png', [
    ...['none', 'bahdanau', 'luong-general', 'local-p', 'transformer'].flatMap((k) => ['--model', model(`en-fr-${k}`)]),
    ...['--src', join(T, 'en-fr.en'), '--ref', join(T, 'en-fr.fr'), '--view', 'corpus', ...slide, '--font', 'lecture'],
  ])
  lens('figure-zh-en.png', ['--model', model('zh-en-local-p'), '--src', ZH, '--lang', 'zh', '--size', 'slide-4x3', '--scale', '1', '--font', 'lecture'])
  lens('figure-sidebyside.png', [
    '--model',
    model('en-fr-bahdanau'),
    '--model',
    model('en-fr-luong-general'),
    '--src',
    EN,
    '--view',
    'sidebyside',
    ...['--size', '13.33x15in', '--scale', '1'],
    '--font',
    'screen',
  ])
  lens('figure-beam.png', [
    '--model',
    model('en-fr-luong-general'),
    '--src',
    EN,
    '--view',
    'beam',
    '--beam',
    '3',
    '--size',
    'paper-double',
    '--font',
    'paper',
    '--scale',
    '2',
  ])
  lens('figure-comparison.pdf', [
    ...['none', 'bahdanau', 'local-p'].flatMap((k) => ['--model', model(`en-fr-${k}`)]),
    ...['--src', EN2, '--view', 'comparison', '--size', 'paper-double', '--font', 'paper'],
  ])
  pdfPage('figure-comparison.pdf', 'figure-comparison-pdf-page.png', 150)
  lens('figure-paper-single.pdf', ['--model', model('en-fr-local-p'), '--src', EN, '--size', 'paper-single', '--font', 'paper'])
  pdfPage('figure-paper-single.pdf', 'figure-paper-single-pdf-page.png', 300)
  // Words (the default) against pieces: "snowmobiles" is one column or three.
  lens('figure-pieces.png', ['--model', model('en-fr-luong-general'), '--src', EN, '--size', 'paper-double', '--font', 'paper', '--scale', '2', '--pieces'])
  lens('figure-words.png', ['--model', model('en-fr-luong-general'), '--src', EN, '--size', 'paper-double', '--font', 'paper', '--scale', '2'])
  // For a lecture: the heatmap filling one decoder step a frame (local-p: the window moves), and one offline interactive page.
  const animate = ['--view', 'heatmap', '--animate', '--format', 'gif', '--font', 'screen']
  lens('animation-heatmap-local-p.gif', ['--model', model('en-fr-local-p'), '--src', EN, ...animate])
  lens('interactive-transformer.html', ['--model', model('en-fr-transformer'), '--src', EN, '--format', 'html'])
}

/**
 * Guided against unguided (issue 35): the same Hansards sentence's attention from en-fr-luong-general
 * and en-fr-luong-general-guided, with the gold links on it. The sentence is chosen by a rule, not
 * by its look: the first pair of the gold's dev half (pairs 1–100) with 12 to 16 words a side.
 */
async function guidedFigures(): Promise<void> {
  console.log('guided vs unguided (the engine and the figure exporter):')
  const dir = join(ROOT, '..', 'shared', 'datasets', 'alignment-gold')
  const set = goldSet(readFileSync(join(dir, 'enfr.src-tgt'), 'utf8'), readFileSync(join(dir, 'enfr.gold'), 'utf8'), {
    pairs: 'enfr.src-tgt',
    gold: 'enfr.gold',
  })
  const n = set.pairs.slice(0, 100).findIndex((p) => [p.src.length, p.tgt.length].every((k) => k >= 12 && k <= 16))
  const pair = set.pairs[n]
  for (const name of ['en-fr-luong-general', 'en-fr-luong-general-guided']) {
    const m = await LoadedModel.open(model(name))
    try {
      const b = await boardModel(m, [pair], [set.gold[n]])
      const title = `${name} · Hansards dev pair ${n + 1}: AER ${b.sentenceAer[0].toFixed(1)}`
      const data: FigureData = {
        view: 'goldlinks',
        title,
        srcWords: pair.src,
        tgtWords: pair.tgt,
        matrix: b.matrices[0],
        gold: set.gold[n],
        extracted: b.links[0],
        statistical: null,
      }
      const spec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-4x3'], fontSize: 14, dpi: 96, title }
      writeFileSync(join(OUT, `guided-${name}.png`), await renderFigure(data, spec))
      console.log(`  guided-${name}.png`)
    } catch (e) {
      failures.push(`guided-${name}.png: ${(e as Error).message}`)
    } finally {
      await m.release()
    }
  }
}

async function shot(page: Page, name: string): Promise<void> {
  copyFileSync((await screenshot(page, `gallery-${name}`, { always: true }))!, join(OUT, `${name}.png`))
  console.log(`  ${name}.png`)
}

/** Multi30K test 2016, line 6 (25 words), and a Tatoeba-style Chinese sentence of about 25 words. */
const EN25 = 'A man in light colored clothing photographs a group of men wearing dark suits and hats standing around a woman dressed in a strapless gown.'
const ZH25 = '如果一个人在成人前没有机会习得目标语言，他对该语言的认识达到母语者程度的机会是相当小的。'

async function slide(page: Page, tab: string): Promise<void> {
  await page.getByTestId(`tab-${tab}`).click()
  await page.getByTestId(`slide-${tab}`).waitFor({ timeout: 60_000 })
  await page.evaluate(() => new Promise((r) => setTimeout(r, 700)))
}

/** Presentation mode at a projector's 1280 × 720, a 25-word sentence: the README's "In front of a class". */
async function presentShots(page: Page): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 720 })
  await openAndType(page, 'bundled:en-fr-local-p.onnx', EN25)
  await presenting(page, true)
  await slide(page, 'heatmap')
  await shot(page, 'present-heatmap')
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight')
  // A 25-word sentence is in parts at the slide's floor: the second part, and back to the first.
  await page.getByTestId('part-next').click()
  await page.evaluate(() => new Promise((r) => setTimeout(r, 700)))
  await shot(page, 'present-zoom')
  await page.getByTestId('part-prev').click()
  // Predict, then reveal: the model's first answer read while nothing is hidden, guessed right, revealed.
  const top = Number(await page.getByTestId('slide-summary').locator('tr').first().getAttribute('data-top'))
  await page.getByTestId('predict-toggle').click()
  await page.getByTestId('predict-hidden').waitFor()
  await page.getByTestId(`guess-${top}`).click()
  await page.keyboard.press('r')
  await page.locator('[data-testid="predict-tally"][data-done="1"]').waitFor()
  await page.evaluate(() => new Promise((r) => setTimeout(r, 700)))
  await shot(page, 'present-predict')
  await page.getByTestId('predict-toggle').click()
  await slide(page, 'step')
  await shot(page, 'present-step')
  await presenting(page, false)
  await page.getByTestId('lang-select').selectOption('zh')
  await openAndType(page, 'bundled:zh-en-local-p.onnx', ZH25)
  await presenting(page, true)
  await slide(page, 'heatmap')
  await shot(page, 'present-zh-en')
  await presenting(page, false)
  await page.getByTestId('lang-select').selectOption('en')
}

/**
 * The Contributions tab (issue 41) on en-fr-transformer, the 25-word sentence, in words: ALTI+
 * beside the raw weights, the source share under each output word, the residual share per layer.
 */
async function contributionsShot(page: Page): Promise<void> {
  await openAndType(page, 'bundled:en-fr-transformer.onnx', EN25)
  await page.getByTestId('units-words').click()
  await page.getByTestId('tab-contributions').click()
  await page.getByTestId('contrib-maps').waitFor({ timeout: 60_000 })
  await page.evaluate(() => new Promise((r) => setTimeout(r, 700)))
  // The harness's screenshot waits for the canvases to be drawn; the README shows the tab alone.
  await screenshot(page, 'gallery-contributions', { fullPage: true, always: true })
  await page.getByTestId('contributions-view').screenshot({ path: join(OUT, 'contributions-en-fr.png') })
  console.log('  contributions-en-fr.png')
  await page.getByTestId('tab-heatmap').click()
}

/** `npm run gallery -- --contributions`: that screenshot alone. */
async function contributionsOnly(): Promise<void> {
  const app = await startBrowserMode({ AL_MODELS_DIR: M })
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 940 } })
    await page.addInitScript({ content: 'window.__name = (f) => f' })
    await page.goto(app.url)
    await contributionsShot(page)
  } catch (e) {
    failures.push(`contributions: ${(e as Error).message.split('\n')[0]}`)
  } finally {
    await browser.close()
    await app.stop()
  }
}

async function screenshots(): Promise<void> {
  console.log('app screenshots (browser mode, Chromium):')
  const app = await startBrowserMode({ AL_MODELS_DIR: M })
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 940 } })
    // tsx keeps function names with an __name helper, which functions sent to the page then call.
    await page.addInitScript({ content: 'window.__name = (f) => f' })
    await page.goto(app.url)
    await openAndType(page, 'bundled:en-fr-luong-general.onnx', EN)
    await shot(page, 'heatmap-en-fr')
    await openAndType(page, 'bundled:en-fr-local-p.onnx', EN2)
    await shot(page, 'heatmap-local-p')
    await contributionsShot(page)

    await page.getByTestId('lang-select').selectOption('zh')
    await openAndType(page, 'bundled:zh-en-local-p.onnx', ZH)
    await shot(page, 'app-zh-en')
    await page.getByTestId('lang-select').selectOption('en')

    // Tuesday 15 August, 10:00; the first forecast step picked in the heatmap.
    await page.getByTestId('model-select').selectOption('bundled:taylor-luong-general.onnx')
    await page.getByTestId('origin-next-day').waitFor({ timeout: 30_000 })
    await page.getByTestId('origin-next-day').click()
    await page.getByTestId('origin-time').filter({ hasText: 'Tue 15 Aug' }).waitFor()
    await page.getByTestId('origin-slider').evaluate((el: HTMLInputElement) => {
      el.value = String(Number(el.value) + 20)
      el.dispatchEvent(new Event('change', { bubbles: true }))
    })
    await page.getByTestId('origin-time').filter({ hasText: 'Tue 15 Aug 10:00' }).waitFor()
    const box = (await page.getByTestId('forecast-chart').boundingBox())!
    await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.56 + 6)
    await page.getByTestId('forecast-selection').waitFor()
    await page.mouse.move(2, 2)
    await shot(page, 'forecast-view')
    await presentShots(page)
  } catch (e) {
    failures.push(`screenshots: ${(e as Error).message.split('\n')[0]}`)
  } finally {
    await browser.close()
    await app.stop()
  }
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true })
  // `npm run gallery -- --screenshots` (or `-- --figures`, `-- --guided`) remakes only those.
  const only = process.argv[2]
  if (only === '--contributions') await contributionsOnly()
  else if (only !== '--screenshots') {
    if (only !== '--guided') figures()
    await guidedFigures()
  }
  if (only !== '--figures' && only !== '--guided' && only !== '--contributions') await screenshots()
  if (failures.length) {
    console.error(`\n${failures.length} failed:\n${failures.map((f) => `  ${f}`).join('\n')}`)
    process.exitCode = 1
  }
}

void main()
