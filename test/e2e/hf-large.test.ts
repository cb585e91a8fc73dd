import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ARTIFACTS, launchChromium, screenshot, startBrowserMode, waitForTranslationOf, type Running, type TestBrowser } from './harness'

// BART-large, M2M100-418M and NLLB-600M sizes (random weights, 12 × 16 = 192 cross-attention heads),
// each as three folders: Optimum's layout with external data (fp32), transformers.js's with only
// `_quantized` files, and with only `_fp16` files (training/hf_test_models.py --large writes them,
// with reference.json: sentences, their input ids and each precision's greedy ids from
// onnxruntime-python). Each folder goes up in browser mode as a user's would, file by file, and
// every one-sentence view is drawn on it. Opt in: AL_HF_LARGE=/tmp/hf-large (AL_HF_LARGE_ONLY=a,b
// keeps the folders named); the folders are 0.5–6.9 GB and each is opened alone.
const ROOT_DIR = process.env.AL_HF_LARGE
const ONLY = process.env.AL_HF_LARGE_ONLY?.split(',').map((s) => s.trim())

interface Reference {
  generation: { no_repeat_ngram_size?: number; src_lang?: string; tgt_lang?: string }
  sentences: ({ text: string; input_ids: number[] } & Record<string, number[] | string>)[]
}

/** Which of reference.json's id lists a folder's files should give: q8, fp16, or fp32 (Optimum's). */
function precisionOf(name: string): 'onnxruntime_q8' | 'onnxruntime_fp16' | 'onnxruntime_fp32_optimum' {
  if (name.endsWith('-q8')) return 'onnxruntime_q8'
  if (name.endsWith('-fp16')) return 'onnxruntime_fp16'
  return 'onnxruntime_fp32_optimum'
}

const bytesUnder = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0)

/** The folders to open, smallest first (the quantized and fp16 ones before Optimum's fp32). */
function folders(): string[] {
  if (!ROOT_DIR || !existsSync(ROOT_DIR)) return []
  return readdirSync(ROOT_DIR)
    .map((n) => join(ROOT_DIR, n))
    .filter((d) => existsSync(join(d, 'config.json')) && existsSync(join(d, 'reference.json')))
    .filter((d) => !ONLY || ONLY.includes(basename(d)))
    .map((d) => ({ d, size: bytesUnder(d) }))
    .sort((a, b) => a.size - b.size)
    .map((x) => x.d)
}

/** id → piece from tokenizer.json itself (BPE's vocab object or Unigram's [piece, score] list, and the added tokens). */
function piecesOf(dir: string): Map<number, string> {
  const tok = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: Record<string, number> | [string, number][] }
    added_tokens?: { id: number; content: string }[]
  }
  const out = new Map<number, string>()
  if (Array.isArray(tok.model.vocab)) tok.model.vocab.forEach(([p], i) => out.set(i, p))
  else for (const [p, i] of Object.entries(tok.model.vocab)) out.set(i, p)
  for (const a of tok.added_tokens ?? []) out.set(a.id, a.content)
  return out
}

/** Opens a folder as a drop does: the page reads the dropped folder's entries (webkitGetAsEntry) and sends it up. */
async function dropFolder(page: Page, dir: string): Promise<void> {
  // The files come from a hidden folder input Playwright fills by path; the drop then hands them to
  // the app as a directory entry, the way Chromium hands a dropped folder.
  await page.evaluate(() => {
    const input = document.createElement('input')
    input.type = 'file'
    input.webkitdirectory = true
    input.id = 'al-test-drop-source'
    input.style.display = 'none'
    document.body.append(input)
  })
  await page.locator('#al-test-drop-source').setInputFiles(dir)
  await page.evaluate(() => {
    const input = document.getElementById('al-test-drop-source') as HTMLInputElement
    type Node = { name: string; file?: File; children?: Map<string, Node> }
    const root: Node = { name: '', children: new Map() }
    for (const f of Array.from(input.files!)) {
      const parts = f.webkitRelativePath.split('/')
      root.name = parts[0]
      let at = root
      for (const p of parts.slice(1, -1)) {
        if (!at.children!.has(p)) at.children!.set(p, { name: p, children: new Map() })
        at = at.children!.get(p)!
      }
      at.children!.set(parts.at(-1)!, { name: parts.at(-1)!, file: f })
    }
    const entry = (n: Node): unknown =>
      n.file
        ? { isFile: true, isDirectory: false, name: n.name, file: (ok: (f: File) => void) => ok(n.file!) }
        : {
            isFile: false,
            isDirectory: true,
            name: n.name,
            createReader: () => {
              let done = false
              return { readEntries: (ok: (e: unknown[]) => void) => ok(done ? [] : ((done = true), [...n.children!.values()].map(entry))) }
            },
          }
    const drop = new Event('drop', { bubbles: true, cancelable: true })
    Object.defineProperty(drop, 'dataTransfer', { value: { items: [{ webkitGetAsEntry: () => entry(root) }], files: [] } })
    document.querySelector('[data-testid="app"]')!.dispatchEvent(drop)
    input.remove()
  })
}

const FOUND = folders()
const times: Record<string, Record<string, number | string>> = {}

describe.skipIf(!FOUND.length)(
  `large Hugging Face folders in browser mode (${ROOT_DIR ? `${FOUND.length} under ${ROOT_DIR}` : 'set AL_HF_LARGE=/tmp/hf-large to run'})`,
  () => {
    afterAll(() => {
      writeFileSync(join(ARTIFACTS, 'hf-large-times.json'), JSON.stringify(times, null, 1))
    })

    describe.each(FOUND.map((d) => [basename(d), d]))('%s', (name, dir) => {
      const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reference
      const sentence = ref.sentences[0]
      const expected = (sentence[precisionOf(name)] as number[]).map((id) => piecesOf(dir).get(id))
      let app: Running
      let browser: TestBrowser
      let page: Page
      // The server's temporary folder (uploads) and the tapped decoders' cache, both this file's own.
      const tmp = mkdtempSync(join(tmpdir(), 'al-hf-large-tmp-'))
      const cache = mkdtempSync(join(tmpdir(), 'al-hf-large-cache-'))
      const got: string[][] = []
      times[name] = {}

      beforeAll(async () => {
        app = await startBrowserMode({ AL_MODELS_DIR: mkdtempSync(join(tmpdir(), 'al-no-models-')), TMPDIR: tmp, AL_CACHE_DIR: cache })
        // The worker's Chromium is launched by the worker itself, so Playwright hands it the folder
        // by its files' paths; over a browser server's connection it would first copy every byte
        // through its websocket (bart-large-q8, 0.5 GB: 78 s, then 6 s for the page's upload itself;
        // bench/upload.ts).
        browser = await launchChromium()
        page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
        // What the page is answered for each translation: its output pieces, read here, not from the page.
        page.on('response', (res) => {
          if (!res.url().endsWith('/api/translate:run')) return
          void res
            .json()
            .then((e: { result?: { tgtTokens: string[] } }) => e.result && got.push(e.result.tgtTokens))
            .catch(() => undefined)
        })
        await page.goto(app.url)
      }, 120_000)
      afterAll(async () => {
        await browser?.close()
        await app?.stop()
        times[name].cacheBytes = existsSync(cache) ? bytesUnder(cache) : 0
        rmSync(cache, { recursive: true, force: true })
        // The app deletes its uploads when it stops (other programs' files in TMPDIR are not its own).
        const left = readdirSync(tmp).filter((n) => n.startsWith('attention-lens-'))
        rmSync(tmp, { recursive: true, force: true })
        expect(left).toEqual([])
      }, 120_000)

      it('opens with Open folder… (file by file) and offers its languages by name', async () => {
        const t0 = Date.now()
        await page.getByTestId('folder-input').setInputFiles(dir)
        // Up: the page's progress says it is opening (or the model is already open).
        await page.waitForFunction(
          (n) =>
            document.querySelector('[data-testid="model-name"]')?.textContent === n ||
            (document.querySelector('[data-testid="upload-progress"]') !== null && document.querySelector('[data-testid="upload-overall"]') === null),
          name,
          { timeout: 1_200_000, polling: 200 },
        )
        times[name].uploadMs = Date.now() - t0
        await expect.poll(() => page.getByTestId('model-name').textContent(), { timeout: 1_200_000, interval: 1000 }).toBe(name)
        times[name].openMs = Date.now() - t0
        expect(await page.getByTestId('error').count()).toBe(0)
        const uploads = readdirSync(tmp).filter((n) => n.startsWith('attention-lens-'))
        expect(uploads.length).toBe(1)
        times[name].uploadedBytes = bytesUnder(join(tmp, uploads[0]))
        const tgt = page.getByTestId('model-tgt-lang')
        if (name.startsWith('bart')) {
          // BART-large is English only: no language picker, and no pair named (not und→und).
          expect(await tgt.count()).toBe(0)
          expect(await page.locator('#model-select option:checked').textContent()).not.toMatch(/\bund\b/)
          for (const box of ['source', 'reference']) expect(await page.locator(`label[for="${box}"]`).textContent()).not.toMatch(/\bund\b/i)
          return
        }
        const options = await page.locator('#model-tgt-langs option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
        expect(options.length).toBeGreaterThan(90)
        const code = name.startsWith('nllb') ? { en: 'eng_Latn', fr: 'fra_Latn' } : { en: /^(__)?en(__)?$/, fr: /^(__)?fr(__)?$/ }
        const named = (lang: string, c: string | RegExp) =>
          options.find((o) => o.startsWith(`${lang} (`) && (typeof c === 'string' ? o === `${lang} (${c})` : c.test(o.slice(lang.length + 2, -1))))
        const fr = named('French', code.fr)
        const en = named('English', code.en)
        expect(fr, options.slice(0, 20).join(', ')).toBeTruthy()
        expect(en).toBeTruthy()
        await page.getByTestId('model-src-lang').fill(en!)
        await page.getByTestId('model-src-lang').dispatchEvent('change')
        await tgt.fill(fr!)
        await tgt.dispatchEvent('change')
        // The pair's open (new sessions, the checks at opening) is timed here, not as the first translation.
        const t1 = Date.now()
        await page.getByTestId('model-needs-languages').waitFor({ state: 'detached', timeout: 600_000 })
        times[name].pairOpenMs = Date.now() - t1
        await expect.poll(() => tgt.inputValue()).toBe(fr)
        expect(await page.getByTestId('model-src-lang').inputValue()).toBe(en)
      }, 1_300_000)

      it("translates a sentence of reference.json to the reference's pieces for its precision", async () => {
        // The reference decodes with the folder's own rules: its n-gram guard, no run-length guard.
        await page.getByTestId('guard-ngram').selectOption(String(ref.generation.no_repeat_ngram_size ?? 0))
        await page.getByTestId('guard-repeat').selectOption('0')
        const t0 = Date.now()
        await page.getByTestId('source').fill(sentence.text)
        await waitForTranslationOf(page, sentence.text, 300_000).catch(async (e: unknown) => {
          await screenshot(page, `hf-large-${name}-no-translation`, { fullPage: false })
          throw e
        })
        times[name].firstTranslationMs = Date.now() - t0
        expect(await page.getByTestId('error').count()).toBe(0)
        expect((await page.getByTestId('translation').textContent())!.trim().length).toBeGreaterThan(0)
        await expect.poll(() => got.length).toBeGreaterThan(0)
        const pieces = got.at(-1)!
        // The reference made 40 new tokens (max_new_tokens); the app keeps to the folder's own length
        // limit (BART-large's: transformers' default max_length 20, its last step the forced </s>).
        // The steps both chose freely must agree.
        const forcedEnd = pieces.length < expected.length && pieces.at(-1) === '</s>'
        const n = Math.min(pieces.length - (forcedEnd ? 1 : 0), expected.length)
        times[name].pieces = `${pieces.length} (reference ${expected.length})`
        expect(n).toBeGreaterThan(Math.min(expected.length, 10) - 1)
        expect(pieces.slice(0, n)).toEqual(expected.slice(0, n))
      }, 700_000)

      it('draws every view: the 192-head overview, step-through, lines, beam, side by side, contributions, alignment score', async () => {
        await page.getByTestId('tab-heatmap').click()
        const ov = page.getByTestId('heads-overview')
        await ov.waitFor({ timeout: 60_000 })
        expect(await ov.getAttribute('data-layers')).toBe('12')
        expect(await ov.getAttribute('data-heads')).toBe('16')
        await expect.poll(() => ov.getAttribute('data-cells')).toBe('192')
        await screenshot(page, `hf-large-${name}-heads`)
        const views: [string, string][] = [
          ['step', 'step-view'],
          ['lines', 'alignment'],
          ['sidebyside', 'sidebyside-view'],
        ]
        for (const [tab, view] of views) {
          const t0 = Date.now()
          await page.getByTestId(`tab-${tab}`).click()
          await page.getByTestId(view).first().waitFor({ timeout: 120_000 })
          times[name][`${tab}Ms`] = Date.now() - t0
          expect(await page.getByTestId('error').count(), tab).toBe(0)
          if (tab === 'step') await screenshot(page, `hf-large-${name}-step`)
        }
        let t0 = Date.now()
        await page.getByTestId('tab-contributions').click()
        const contributions = page.getByTestId('contributions-view')
        await contributions.waitFor({ timeout: 120_000 })
        await expect.poll(() => contributions.getAttribute('data-busy'), { timeout: 600_000, interval: 1000 }).toBe('false')
        times[name].contributionsMs = Date.now() - t0
        expect(await page.getByTestId('error').count()).toBe(0)
        // The view's own notice: an uploaded folder deleted under it showed ENOENT here, not in the banner.
        expect(await page.getByTestId('contrib-error').count()).toBe(0)
        await screenshot(page, `hf-large-${name}-contributions`)
        t0 = Date.now()
        await page.getByTestId('beam-select').selectOption('3')
        await page.getByTestId('tab-beam').click()
        await page.getByTestId('beam-view').waitFor({ timeout: 600_000 })
        await waitForTranslationOf(page, sentence.text, 600_000)
        times[name].beamMs = Date.now() - t0
        expect(await page.getByTestId('error').count()).toBe(0)
        await page.getByTestId('beam-select').selectOption('1')
        t0 = Date.now()
        await page.getByTestId('tab-goldlinks').click()
        const gold = join(__dirname, '..', 'fixtures', 'align')
        for (const [id, file] of [
          ['gold-pairs', 'tiny.src-tgt'],
          ['gold-links', 'tiny.gold'],
        ])
          await page.getByTestId(id).setInputFiles({ name: file, mimeType: 'text/plain', buffer: readFileSync(join(gold, file)) })
        await page.getByTestId('gold-run').click()
        const row = page.locator('[data-testid="gold-board"] tbody tr:not([data-method])', { hasText: name })
        // The run's own error line ends the wait with what it says.
        const goldError = page.getByTestId('gold-error')
        await expect
          .poll(async () => ((await goldError.count()) ? `error: ${await goldError.innerText()}` : await row.count()), { timeout: 600_000, interval: 1000 })
          .toBe(1)
        expect(await row.innerText()).toMatch(/best head \d+:\d+: AER \d+\.\d\d/)
        times[name].alignmentScoreMs = Date.now() - t0
        expect(await page.getByTestId('error').count()).toBe(0)
      }, 1_500_000)

      it.runIf(name.endsWith('-q8'))(
        'opens by a folder drop too',
        async () => {
          // Another folder first, so that the drop is seen to open this one.
          await page.getByTestId('folder-input').setInputFiles(join(__dirname, '..', 'fixtures', 'hf', 'marian'))
          await expect.poll(() => page.getByTestId('model-name').textContent(), { timeout: 120_000 }).toBe('marian')
          const t0 = Date.now()
          await dropFolder(page, dir)
          await expect.poll(() => page.getByTestId('model-name').textContent(), { timeout: 1_200_000, interval: 1000 }).toBe(name)
          times[name].dropOpenMs = Date.now() - t0
          expect(await page.getByTestId('error').count()).toBe(0)
          await page.getByTestId('source').fill(ref.sentences[1].text)
          await waitForTranslationOf(page, ref.sentences[1].text, 600_000)
          expect(await page.getByTestId('error').count()).toBe(0)
        },
        1_300_000,
      )
    })
  },
)
