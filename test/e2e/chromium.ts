/**
 * Debian's Chromium as the e2e files start it: each test worker launches one, the first time one of
 * its files asks (harness `launchChromium`), and every file it runs after that opens its pages in it.
 */
import { join } from 'node:path'

/**
 * Every context a file opens is a browser window, and Chromium 156 loads the address bar's popup
 * (chrome://omnibox-popup.top-chrome, a WebUI page of its own) in a renderer process of its own for
 * each: 1.5–2 CPU s a window that no test sees (Puppeteer turns it off by default too, its PR
 * #15278). Each context also started a spare renderer process for a next navigation that no
 * test's page makes (SpareRendererForSitePerProcess): about 0.1 CPU s a context. Playwright passes
 * a --disable-features list of its own, which CHROMIUM merges with this one. --in-process-gpu: with
 * the GPU off, the GPU process only composites in software, and as a thread of the browser process
 * it saves the frames' hand-off between two processes (five e2e files, two rounds interleaved:
 * 116.6 and 117.5 CPU s against 120.2 and 122.3 without). --single-process, cheaper still, cannot
 * serve the files: its browser dies when a second browser context is made, and each file and many
 * tests make their own (every e2e file failed, with a page held open so its renderer never ended).
 *
 * --efficiency-mode (V8's, in every renderer): a page in a window on show tiers its JavaScript up
 * for latency, and the test pages are short-lived. At 1280 × 720 the English slides of
 * presentation-slide.test made 2,559 Maglev compilations (2.9 CPU s) and 244 TurboFan ones (2.4
 * CPU s) on the renderer's thread pool, beside 10.7 CPU s on its main thread; in efficiency mode
 * 2,461 Maglev ones (1.1 CPU s) and no TurboFan one. The e2e project, two rounds interleaved:
 * 478.8 and 476.9 CPU s, 7.18 and 7.26 M page faults, against 490.6 and 530.0, 7.84 and 7.96 M.
 * The app's own window keeps V8's defaults.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--in-process-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess',
  '--js-flags=--efficiency-mode',
]

/** Debian's Chromium (/usr/bin/chromium), through a script that merges its --disable-features lists. */
export const CHROMIUM = join(__dirname, 'chromium.sh')
