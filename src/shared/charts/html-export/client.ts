/**
 * The interactive HTML file's style and script (page.ts inlines both). Plain ES2017 in a string,
 * run by the browser that opens the file: it draws from the JSON in #data and asks for nothing.
 */
export const HTML_STYLE = `
:root { color-scheme: light; --ink: #111827; --muted: #475569; --accent: #c2410c; --line: #cbd5e1; --cell: 22px; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Noto Sans CJK SC", sans-serif; color: var(--ink); background: #fff; margin: 0 auto; padding: 1rem 1.25rem; max-width: 1200px; }
h1 { font-size: 1.35rem; margin: 0 0 .4rem; } h2 { font-size: 1.1rem; margin: 1.2rem 0 .4rem; }
.muted { color: var(--muted); } .label { display: inline-block; min-width: 4.2em; color: var(--muted); }
.sentence { margin: .15rem 0; font-size: 1.05rem; }
.controls { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin: .3rem 0; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .1rem .6rem .3rem; margin: 0; } legend { color: var(--muted); padding: 0 .2rem; }
button { font: inherit; padding: .2rem .6rem; border: 1px solid #64748b; border-radius: 5px; background: #f8fafc; color: var(--ink); cursor: pointer; }
button:focus-visible, input:focus-visible, td:focus-visible { outline: 3px solid #2563eb; outline-offset: 1px; }
.hm-wrap { overflow-x: auto; max-width: 100%; }
table.grid { border-collapse: collapse; table-layout: fixed; }
table.grid td { width: var(--cell); min-width: var(--cell); height: var(--cell); padding: 0; border: 1px solid rgba(255,255,255,.55); }
table.grid th { font-weight: normal; white-space: nowrap; padding: 0 .35rem; }
table.grid thead th { vertical-align: bottom; height: 1px; }
table.grid thead th span { writing-mode: vertical-rl; transform: rotate(180deg); display: inline-block; padding: .2rem 0; }
table.grid tbody th { text-align: right; }
table.grid tr.now th { color: var(--accent); font-weight: bold; }
table.grid tr.now td { border-top: 2px solid var(--accent); border-bottom: 2px solid var(--accent); }
table.grid td.win { border-top: 2px solid #f97316; border-bottom: 2px solid #f97316; }
table.grid td.win-first { border-left: 2px solid #f97316; } table.grid td.win-last { border-right: 2px solid #f97316; }
table.grid td.pt { position: relative; }
table.grid td.pt::after { content: '\\25BE'; position: absolute; left: 0; right: 0; top: -2px; text-align: center; font-size: 14px; line-height: 1; color: #111827; text-shadow: 0 0 2px #fff, 0 0 2px #fff; }
.readout { min-height: 1.5em; font-variant-numeric: tabular-nums; }
.tip { position: absolute; pointer-events: none; background: #111827; color: #fff; padding: .15rem .45rem; border-radius: 4px; font-size: .85rem; white-space: nowrap; }
table.stages { border-collapse: collapse; margin: .4rem 0; }
table.stages th, table.stages td { padding: .15rem .2rem; text-align: center; font-variant-numeric: tabular-nums; font-size: .8rem; border: 1px solid #fff; }
table.stages th[scope=row] { text-align: right; color: var(--muted); font-size: .9rem; }
table.stages th[scope=col] { vertical-align: bottom; font-weight: normal; }
table.stages th[scope=col] span { writing-mode: vertical-rl; transform: rotate(180deg); display: inline-block; }
table.stages td.out { background: #f1f5f9 !important; color: #475569 !important; }
.strip { display: flex; height: 26px; border: 1px solid var(--line); max-width: 100%; } .strip span { flex: 1; }
.heads { display: grid; gap: .4rem; }
.heads button { padding: .2rem; display: flex; flex-direction: column; align-items: center; gap: .1rem; font-size: .8rem; }
.heads button[aria-pressed=true] { border: 2px solid var(--accent); }
.heads canvas { image-rendering: pixelated; width: 72px; height: 72px; }
.choices { display: flex; flex-wrap: wrap; gap: .3rem; margin: .3rem 0; }
.choices button[aria-pressed=true] { background: #1e3a8a; color: #fff; }
.card { white-space: pre-wrap; background: #f8fafc; border: 1px solid var(--line); padding: .5rem .7rem; border-radius: 6px; font-size: .85rem; }
@media print {
  @page { size: A4 landscape; margin: 10mm; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  .noprint, .readout, .tip { display: none !important; }
  h2 { margin: .4rem 0 .2rem; }
  table.grid td { width: var(--print-cell); min-width: var(--print-cell); height: var(--print-cell); }
  table.grid th { font-size: 8pt; line-height: 1; padding: 0 .15rem; }
  table.grid thead th span { padding: .1rem 0; }
  .card { font-size: 8pt; padding: .2rem .4rem; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`

export const HTML_CLIENT = String.raw`
(function () {
  'use strict';
  var el = document.getElementById('data');
  var D = JSON.parse(el.textContent);
  // Out of the page once read: the inspector shows no matrix, so a hidden row stays hidden.
  el.remove();
  var $ = function (id) { return document.getElementById(id); };
  var hex = function (c) { return [1, 3, 5].map(function (i) { return parseInt(c.slice(i, i + 2), 16); }); };
  var STOPS = D.colormap.map(hex);
  function colour(x) {
    x = Math.max(0, Math.min(1, x));
    var f = x * (STOPS.length - 1), i = Math.min(STOPS.length - 2, Math.floor(f)), u = f - i, a = STOPS[i], b = STOPS[i + 1];
    return [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * u); });
  }
  var css = function (rgb) { return 'rgb(' + rgb.join(',') + ')'; };
  // Dark or white text, whichever has the higher WCAG contrast on the cell.
  function inkOn(rgb) {
    var lin = rgb.map(function (c) { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); });
    var L = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    return 1.05 / (L + 0.05) >= (L + 0.05) / 0.0616 ? '#ffffff' : '#111827';
  }
  var q = function (s) { return '\u201c' + s + '\u201d'; };
  function make(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  var T = D.pieces.tgt.length;
  var S = D.pieces.src.length;
  var state = { units: D.words ? D.units : D.wordsOnly ? 'words' : 'pieces', head: null, step: 0, focus: [0, 0] };

  function current() {
    if (state.head) return { src: D.pieces.src, tgt: D.pieces.tgt, attention: D.heads.map(function (st) { return st[state.head[0]][state.head[1]]; }), steps: true };
    var m = state.units === 'words' && D.words ? D.words : D.pieces;
    return { src: m.src, tgt: m.tgt, attention: m.attention, steps: m === D.pieces && !D.wordsOnly, spans: m === D.words ? m.spans : null, windows: m.windows, positions: m.positions };
  }

  // ---- the heatmap ----
  var grid = $('hm'), readout = $('readout'), tip = $('tip');
  grid.className = 'grid';
  function say(m, t, s) { return q(m.tgt[t]) + ' \u2190 ' + q(m.src[s]) + ': ' + m.attention[t][s].toFixed(4); }
  function drawHeatmap() {
    var m = current();
    grid.textContent = '';
    var head = make('thead'), hr = make('tr');
    hr.appendChild(make('td', { 'aria-hidden': 'true', class: 'corner' }));
    m.src.forEach(function (s) { var th = make('th', { scope: 'col' }); th.appendChild(make('span', null, s)); hr.appendChild(th); });
    head.appendChild(hr);
    grid.appendChild(head);
    var body = make('tbody');
    m.tgt.forEach(function (w, t) {
      var tr = make('tr');
      if ((m.steps && t === state.step) || (m.spans && m.spans[t][0] <= state.step && state.step <= m.spans[t][1])) tr.className = 'now';
      tr.appendChild(make('th', { scope: 'row' }, w));
      // A local model's window [p_t - D, p_t + D] outlined on its row, and p_t marked.
      var win = !state.head && m.windows ? m.windows[t] : null;
      var lo = win ? Math.ceil(win[0] - 1e-6) : -1, hi = win ? Math.floor(win[1] + 1e-6) : -2;
      var pt = !state.head && m.positions ? Math.round(m.positions[t]) : null;
      m.attention[t].forEach(function (v, s) {
        var rgb = colour(v);
        var td = make('td', { role: 'gridcell', tabindex: t === state.focus[0] && s === state.focus[1] ? '0' : '-1', 'aria-label': say(m, t, s), 'data-t': t, 'data-s': s });
        var cls = [];
        if (s >= lo && s <= hi) cls.push('win');
        if (s === lo) cls.push('win-first');
        if (s === hi) cls.push('win-last');
        if (s === pt) cls.push('pt');
        if (cls.length) td.className = cls.join(' ');
        td.style.background = css(rgb);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    grid.appendChild(body);
    var sum = $('summary');
    sum.textContent = '';
    m.tgt.forEach(function (w, t) {
      var row = m.attention[t], best = 0;
      row.forEach(function (v, s) { if (v > row[best]) best = s; });
      sum.appendChild(make('li', null, q(w) + ' reads ' + q(m.src[best]) + ' most (' + row[best].toFixed(2) + ')'));
    });
    $('note').textContent = (state.head ? 'Units: subword pieces (one head draws over decoder steps).' : D.notes[state.units === 'words' && D.words ? 'words' : 'pieces'] || '') +
      (!state.head && m.windows ? ' Orange outline: the local window [p\u209c \u2212 D, p\u209c + D] of each row; \u25be: p\u209c, the position the model predicted.' : '');
    $('showing').textContent = state.head ? 'Showing layer ' + (state.head[0] + 1) + ', head ' + (state.head[1] + 1) : (D.heads ? "Showing the heads' average" : '');
    $('average').hidden = !state.head;
    var shown = state.head ? 'pieces' : D.wordsOnly ? 'words' : state.units === 'words' && D.words ? 'words' : 'pieces';
    document.querySelectorAll('#units input').forEach(function (r) { r.checked = r.value === shown; r.disabled = !D.words || !!state.head; });
  }
  function cellOf(e) { var td = e.target.closest && e.target.closest('td[data-t]'); return td; }
  function show(td, where) {
    var m = current(), t = +td.dataset.t, s = +td.dataset.s;
    readout.textContent = say(m, t, s);
    if (where) {
      tip.textContent = m.attention[t][s].toFixed(4);
      tip.hidden = false;
      var r = td.getBoundingClientRect();
      tip.style.left = (r.left + window.scrollX + r.width + 4) + 'px';
      tip.style.top = (r.top + window.scrollY - 4) + 'px';
    }
  }
  grid.addEventListener('mouseover', function (e) { var td = cellOf(e); if (td) show(td, true); });
  grid.addEventListener('mouseleave', function () { tip.hidden = true; });
  grid.addEventListener('focusin', function (e) { var td = cellOf(e); if (td) show(td, false); });
  grid.addEventListener('keydown', function (e) {
    var td = cellOf(e);
    if (!td) return;
    var m = current(), t = +td.dataset.t, s = +td.dataset.s;
    var moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (e.key === 'Enter' && (m.steps || m.spans)) { setStep(m.spans ? m.spans[t][0] : t); $('step').focus(); e.preventDefault(); return; }
    var d = moves[e.key];
    if (e.key === 'Home') d = [0, -s];
    if (e.key === 'End') d = [0, m.src.length - 1 - s];
    if (!d) return;
    e.preventDefault();
    var nt = Math.max(0, Math.min(m.tgt.length - 1, t + d[0])), ns = Math.max(0, Math.min(m.src.length - 1, s + d[1]));
    var next = grid.querySelector('td[data-t="' + nt + '"][data-s="' + ns + '"]');
    td.tabIndex = -1;
    next.tabIndex = 0;
    state.focus = [nt, ns];
    next.focus();
  });
  document.querySelectorAll('#units input').forEach(function (r) {
    r.addEventListener('change', function () { state.units = r.value; state.focus = [0, 0]; drawHeatmap(); });
  });
  $('average').addEventListener('click', function () { openHead(null); });

  // ---- the step slider: scores -> softmax (-> x Gaussian) -> context ----
  var slider = $('step');
  slider.max = String(T);
  function stageRow(table, name, values, scaled, window, masked) {
    if (!values || !values.length) return;
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    var tr = make('tr');
    tr.appendChild(make('th', { scope: 'row' }, name));
    values.forEach(function (v, s) {
      var x = scaled ? (hi > lo ? (v - lo) / (hi - lo) : 0) : v;
      var rgb = colour(x);
      // As the figures' cells: no leading zero, so a 25-word sentence's row fits the page.
      var off = masked && masked.indexOf(s) >= 0;
      var td = make('td', off ? { title: 'masked: the score is set to \u2212\u221e before the softmax' } : null, off ? '\u2212\u221e' : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2).replace(/^(-?)0\./, '$1.'));
      if (off || (window && (s < window[0] || s > window[1]))) td.className = 'out';
      td.style.background = css(rgb);
      td.style.color = inkOn(rgb);
      tr.appendChild(td);
    });
    table.appendChild(tr);
  }
  function setStep(t) {
    state.step = Math.max(0, Math.min(T - 1, t));
    slider.value = String(state.step + 1);
    $('step-out').textContent = (state.step + 1) + ' of ' + T + ': \u00ab ' + D.pieces.tgt[state.step] + ' \u00bb';
    var st = D.steps, box = $('stages');
    box.textContent = '';
    var win = st.windows && st.windows[state.step];
    var cells = win ? [Math.max(0, Math.ceil(win[0] - 1e-6)), Math.min(S - 1, Math.floor(win[1] + 1e-6))] : null;
    box.appendChild(make('p', null, 'Writing \u00ab ' + D.pieces.tgt[state.step] + ' \u00bb: the decoder scores every source piece, softmax turns the scores into weights' +
      (st.gaussian ? ', a Gaussian around p\u209c = ' + st.positions[state.step].toFixed(2) + ' reweights them inside the window' : '') + ', and the context vector is the weighted sum of the encoder states.'));
    var table = make('table', { class: 'stages' });
    var head = make('tr');
    head.appendChild(make('td', { 'aria-hidden': 'true' }));
    D.pieces.src.forEach(function (s) { var th = make('th', { scope: 'col' }); th.appendChild(make('span', null, s)); head.appendChild(th); });
    table.appendChild(head);
    var masked = st.masked && st.masked[state.step] || [];
    stageRow(table, '1. scores', st.scores && st.scores[state.step], true, cells, masked);
    stageRow(table, '2. softmax', st.softmax[state.step], false, cells);
    if (st.gaussian) stageRow(table, '3. \u00d7 Gaussian', st.gaussian[state.step], false, cells);
    if (st.gaussian) stageRow(table, '4. weights', st.final[state.step], false, cells);
    if (masked.length) box.appendChild(make('p', { class: 'muted', id: 'masked' }, 'Masked: ' + masked.map(function (j) { return '\u00ab ' + D.pieces.src[j] + ' \u00bb'; }).join(', ') +
      '. The model computed a score, but sets it to \u2212\u221e before the softmax (\u03b1 = exp(e) / \u03a3 exp(e)), so its weight is exactly 0 however high the score.'));
    var wrap = make('div', { class: 'hm-wrap', tabindex: '0', role: 'region', 'aria-label': 'The stages of step ' + (state.step + 1) });
    wrap.appendChild(table);
    box.appendChild(wrap);
    var w = st.final[state.step];
    var order = w.map(function (v, s) { return s; }).sort(function (a, b) { return w[b] - w[a]; }).slice(0, 3);
    var parts = order.map(function (s) { return q(D.pieces.src[s]) + ' ' + w[s].toFixed(2); });
    var ctx = make('p', null, (st.gaussian ? '5' : '3') + '. context c = \u03a3 \u03b1\u2c7c h\u2c7c: mostly ' + parts.join(', '));
    box.appendChild(ctx);
    if (st.states && st.states.length === S) {
      var dims = st.states[0].length, c = new Array(dims).fill(0);
      st.states.forEach(function (h, s) { for (var k = 0; k < dims; k++) c[k] += w[s] * h[k]; });
      var big = Math.max.apply(null, c.map(Math.abs)) || 1;
      var strip = make('div', { class: 'strip', role: 'img', 'aria-label': 'The context vector, ' + dims + ' numbers, coloured from its smallest to its largest' });
      c.forEach(function (v) { var sp = make('span'); sp.style.background = css(colour((v / big + 1) / 2)); strip.appendChild(sp); });
      box.appendChild(strip);
    }
    var cur = current();
    if (cur.steps || cur.spans) drawHeatmap();
  }
  slider.addEventListener('input', function () { setStep(+slider.value - 1); });

  // ---- predict, then reveal ----
  var P = { step: 0, guess: null, right: 0, done: 0, revealed: false };
  function predict() {
    var box = $('predict');
    box.textContent = '';
    if (P.step >= T) { box.appendChild(make('p', { id: 'tally' }, 'Done: ' + P.right + ' of ' + P.done + ' guesses matched the model.')); return; }
    box.appendChild(make('p', null, 'Step ' + (P.step + 1) + ' of ' + T + ': the model writes \u00ab ' + D.pieces.tgt[P.step] + ' \u00bb. Which source piece does it read most?'));
    var choices = make('div', { class: 'choices', role: 'group', 'aria-label': 'Your guess' });
    D.pieces.src.forEach(function (s, j) {
      var b = make('button', { type: 'button', 'aria-pressed': String(P.guess === j), 'data-source': j }, s);
      b.disabled = P.revealed;
      b.addEventListener('click', function () { P.guess = j; predict(); box.querySelector('[data-source="' + j + '"]').focus(); });
      choices.appendChild(b);
    });
    box.appendChild(choices);
    var go = make('button', { type: 'button', id: P.revealed ? 'next' : 'reveal' }, P.revealed ? 'Next step' : 'Reveal (R)');
    go.addEventListener('click', function () { P.revealed ? advance() : reveal(); });
    box.appendChild(go);
    if (P.revealed) {
      // Made only now: before the reveal the row is nowhere in the page.
      var row = D.pieces.attention[P.step], best = 0;
      row.forEach(function (v, s) { if (v > row[best]) best = s; });
      var t = make('table', { class: 'stages', id: 'revealed' }), tr = make('tr');
      tr.appendChild(make('th', { scope: 'row' }, D.pieces.tgt[P.step]));
      row.forEach(function (v) { var rgb = colour(v), td = make('td', null, v.toFixed(2)); td.style.background = css(rgb); td.style.color = inkOn(rgb); tr.appendChild(td); });
      t.appendChild(tr);
      box.appendChild(t);
      box.appendChild(make('p', null, 'The model read ' + q(D.pieces.src[best]) + ' most, with weight ' + row[best].toFixed(2) + '. ' + (P.guess === best ? 'Your guess matched.' : P.guess === null ? 'No guess.' : 'Your guess: ' + q(D.pieces.src[P.guess]) + '.')));
    }
    box.appendChild(make('p', { id: 'tally', 'aria-live': 'polite' }, 'Tally: ' + P.right + ' of ' + P.done + ' correct'));
  }
  function reveal() {
    if (P.revealed || P.step >= T) return;
    var row = D.pieces.attention[P.step], best = 0;
    row.forEach(function (v, s) { if (v > row[best]) best = s; });
    P.revealed = true;
    P.done += 1;
    if (P.guess === best) P.right += 1;
    predict();
    $('next') && $('next').focus();
  }
  function advance() { P.step += 1; P.guess = null; P.revealed = false; predict(); var r = $('reveal'); if (r) r.focus(); }
  document.addEventListener('keydown', function (e) {
    if ((e.key === 'r' || e.key === 'R') && !e.ctrlKey && !e.metaKey && !e.altKey && e.target.tagName !== 'INPUT') reveal();
  });

  // ---- a Transformer's layers x heads ----
  function openHead(h) {
    state.head = h;
    state.focus = [0, 0];
    document.querySelectorAll('#heads button').forEach(function (b) { b.setAttribute('aria-pressed', String(!!h && b.dataset.head === h.join(','))); });
    drawHeatmap();
  }
  if (D.heads) {
    var L = D.heads[0].length, H = D.heads[0][0].length, box = $('heads');
    box.style.gridTemplateColumns = 'repeat(' + H + ', max-content)';
    for (var l = 0; l < L; l++) for (var h = 0; h < H; h++) (function (l, h) {
      var b = make('button', { type: 'button', 'aria-pressed': 'false', 'data-head': l + ',' + h, title: 'Draw this head in the heatmap' });
      var cv = make('canvas', { width: S, height: T, 'aria-hidden': 'true' });
      var g = cv.getContext('2d'), img = g.createImageData(S, T);
      for (var t = 0; t < T; t++) for (var s = 0; s < S; s++) { var c = colour(D.heads[t][l][h][s]), i = 4 * (t * S + s); img.data[i] = c[0]; img.data[i + 1] = c[1]; img.data[i + 2] = c[2]; img.data[i + 3] = 255; }
      g.putImageData(img, 0, 0);
      b.appendChild(cv);
      b.appendChild(make('span', null, 'Layer ' + (l + 1) + ', head ' + (h + 1)));
      b.addEventListener('click', function () { openHead([l, h]); grid.scrollIntoView({ block: 'nearest' }); });
      box.appendChild(b);
    })(l, h);
  }

  setStep(0);
  drawHeatmap();
  predict();
})();
`
