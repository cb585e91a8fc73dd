/**
 * The interactive figure as one self-contained HTML file (issue 34): the data and a small
 * hand-made DOM renderer inlined (no ECharts: a table of coloured cells is all a heatmap needs, and
 * keeps a 25-word sentence's page near 100 KB, a Transformer's with every head a few hundred), no
 * request to any network or file. It opens offline in any modern browser, embeds in Reveal.js or
 * Quarto by an <iframe>, and goes into a course page as a file.
 *
 * It holds: the sentence, its translation, the model's name and card and the units note; the
 * heatmap (value on hover and on keyboard focus, words/pieces switch, a text summary); the step
 * slider with scores → softmax (→ × Gaussian) → context; for a Transformer the layers × heads grid,
 * a click opening a head; and "Predict, then reveal": the next step's row is not in the page until
 * it is revealed, and a tally counts the guesses that matched the model's strongest source word.
 *
 * Plain TypeScript without Node: the CLI writes the page, and the app's export dialog makes it in
 * the renderer and saves it as text.
 */
import type { ModelInfo, Translation } from '../../api'
import { inUnits } from '../../attention/word-translation'
import { unitsNote } from '../../attention/word-figure'
import { COLORMAPS, type ColormapName } from '../colormaps'
import { maskedPositions } from '../step'
import type { FigureData, FigureLang } from '../../figure'
import { modelNameOf } from '../../figure-context'
import { HTML_CLIENT, HTML_STYLE } from './client'

export interface HtmlOptions {
  lang: FigureLang
  colormap: ColormapName
  title?: string
  caption?: string
  /** The model's name and card (a few lines), where known. */
  model?: { name: string; card: string } | null
  /** The units the heatmap opens in (the switch offers the other). */
  units?: 'words' | 'pieces'
  /**
   * The translation over decoder steps (pieces) that a view's words were made from: a view drawn in
   * words hands it over, so the page counts decoder steps and offers both units whichever dialog
   * wrote it (issue 40 #4).
   */
  pieces?: Translation | null
}

/** The model's card as a few lines for the page: name, attention, languages, data, licence, test BLEU. */
export function modelCard(info: Pick<ModelInfo, 'name' | 'attention' | 'srcLang' | 'tgtLang' | 'trainingData' | 'licence' | 'testScore'>): string {
  const score = info.testScore ? `BLEU ${info.testScore.bleu.toFixed(2)} on ${info.testScore.set} (${info.testScore.sentences} sentences)` : null
  return [
    `${info.name}: ${info.attention} attention, ${info.srcLang} → ${info.tgtLang}`,
    info.trainingData && `Trained on: ${info.trainingData}`,
    score && `Test score: ${score}`,
    info.licence && `Licence: ${info.licence}`,
  ]
    .filter(Boolean)
    .join('\n')
}

/** The budget: a page that goes into a course page as one file. */
export const HTML_MAX_BYTES = 2_000_000

const round = (x: number, d: number) => {
  const k = 10 ** d
  return Math.round(x * k) / k
}
const roundRows = (m: number[][] | null | undefined, d = 4) => (m ? m.map((r) => r.map((x) => round(x, d))) : null)

/** The translation a page draws (the view's, or the first of several). */
export function htmlTranslation(data: FigureData): Translation | null {
  if ('translation' in data) return data.translation
  if (data.view === 'comparison') return data.translations[0] ?? null
  if (data.view === 'sidebyside') return data.a
  if (data.view === 'whatif') return data.result.original
  return null
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

/**
 * The page's data: the pieces (one per decoder step) and, where they differ, the words. `t` is the
 * view's translation; in words (`t.words`) the pieces come from `opts.pieces`. Without them the
 * page has words only: it says so, and counts its rows as words.
 */
function pageData(t: Translation, opts: HtmlOptions) {
  const own = t.words ? (opts.pieces ?? null) : t
  const p = own ?? t
  const words = own ? inUnits(own, 'words') : t
  const sameUnits = !own || (words.srcTokens.length === p.srcTokens.length && words.tgtTokens.length === p.tgtTokens.length)
  const heads = p.crossAttention ? p.crossAttention.map((step) => step.map((layer) => roundRows(layer, 3)!)) : null
  const marks = (x: Translation) => ({
    windows: x.windows?.map((w) => w.map((v) => round(v, 3))) ?? null,
    positions: x.positions?.map((v) => round(v, 3)) ?? null,
  })
  return {
    colormap: COLORMAPS[opts.colormap],
    units: opts.units ?? 'words',
    /** True when the page holds words and no pieces (a view in words that did not hand its pieces over). */
    wordsOnly: !own,
    pieces: { src: p.srcTokens, tgt: p.tgtTokens, attention: roundRows(p.attention), ...marks(p) },
    words: sameUnits
      ? null
      : { src: words.srcTokens, tgt: words.tgtTokens, attention: roundRows(words.attention), spans: words.words?.tgt ?? null, ...marks(words) },
    notes: { words: unitsNote({ view: 'heatmap', translation: words }, opts.lang), pieces: unitsNote({ view: 'heatmap', translation: p }, opts.lang) },
    steps: {
      scores: roundRows(p.scores, 3),
      softmax: roundRows(p.align ?? p.attention),
      gaussian: roundRows(p.gaussian),
      final: roundRows(p.attention),
      windows: p.windows,
      positions: p.positions,
      // The positions each step masks before the softmax (their score is −∞ there, their weight 0).
      masked: p.scores.map((row, k) => maskedPositions(row, (p.align ?? p.attention)[k] ?? [], p.windows?.[k] ?? null).flatMap((x, j) => (x ? [j] : []))),
      // Three decimals hold a context vector's colour and its top contributions.
      states: roundRows(p.encoderStates, 3),
    },
    heads,
  }
}

/** A heatmap cell's side on paper: the whole map on one landscape A4 page under the header. */
const printCell = (t: Translation) => Math.max(4, Math.floor(Math.min(22, 760 / Math.max(1, t.srcTokens.length), 340 / Math.max(1, t.tgtTokens.length))))

/** The page. */
export function htmlExport(data: FigureData, opts: HtmlOptions): string {
  const t = htmlTranslation(data)
  if (!t || t.attention.length === 0) throw new Error(`The ${data.view} view has no attention matrix to make an interactive page of.`)
  const name = opts.model?.name ?? modelNameOf(t.modelId)
  const title = opts.title ?? `${name}: attention`
  // "</" cannot end the script early; U+2028/9 are line ends to old parsers.
  const json = JSON.stringify(pageData(t, opts))
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
  const card = opts.model?.card ? `<pre class="card">${esc(opts.model.card)}</pre>` : ''
  const heads = t.crossAttention
    ? `<section aria-labelledby="heads-h" class="noprint"><h2 id="heads-h">Layers × heads</h2>
<p class="muted">Each head's cross-attention. Choose one to draw it in the heatmap above; the heatmap shows their average until then.</p>
<div id="heads" class="heads"></div></section>`
    : ''
  return `<!doctype html>
<html lang="${opts.lang === 'zh' ? 'zh' : 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>${esc(title)}</title>
<style>${HTML_STYLE}</style>
</head>
<body style="--print-cell: ${printCell(t)}px">
<header>
<h1>${esc(title)}</h1>
<p class="sentence"><span class="label">Source</span> <span>${esc(t.source)}</span></p>
<p class="sentence"><span class="label">Output</span> <span>${esc(t.text)}</span></p>
<p class="muted">Model: <strong>${esc(name)}</strong> · ${t.mode === 'beam' ? `beam ${t.beam}` : t.mode}</p>
</header>
<main>
<section aria-labelledby="hm-h">
<h2 id="hm-h">Attention heatmap</h2>
<div class="controls noprint">
<fieldset id="units"><legend>Units</legend>
<label><input type="radio" name="units" value="words"> words</label>
<label><input type="radio" name="units" value="pieces"> subword pieces</label>
</fieldset>
<span id="showing" class="muted"></span> <button type="button" id="average" hidden>Show the heads' average</button>
</div>
<p class="muted noprint" id="hm-help">Rows: output; columns: source. Hover a cell, or move with the arrow keys, to read its weight; Enter opens that step below.</p>
<div class="hm-wrap"><table id="hm" role="grid" aria-labelledby="hm-h" aria-describedby="hm-help"></table></div>
<p id="readout" class="readout" aria-live="polite">Hover or focus a cell to read its weight.</p>
<div id="tip" class="tip" hidden></div>
<p id="note" class="muted"></p>
<details class="noprint"><summary>Text summary: the strongest source word for each output word</summary><ol id="summary"></ol></details>
</section>
<section aria-labelledby="step-h" class="noprint">
<h2 id="step-h">Step through</h2>
<div class="controls"><label for="step">Decoder step <output id="step-out" for="step"></output></label>
<input type="range" id="step" min="1" value="1"></div>
<div id="stages"></div>
</section>
<section aria-labelledby="predict-h" class="noprint">
<h2 id="predict-h">Predict, then reveal</h2>
<p class="muted">Which source word will the model read most when it writes the next word? Choose, then reveal. Nothing is stored.</p>
<div id="predict"></div>
</section>
${heads}
<section aria-labelledby="card-h" class="noprint">
<h2 id="card-h">Model card</h2>
<p><strong>${esc(name)}</strong></p>
${card}
</section>
</main>
<footer class="muted">${opts.caption ? `<p>${esc(opts.caption)}</p>` : ''}<p>Made with Attention Lens. This file makes no network requests.</p></footer>
<script type="application/json" id="data">${json}</script>
<script>${HTML_CLIENT}</script>
</body>
</html>
`
}
