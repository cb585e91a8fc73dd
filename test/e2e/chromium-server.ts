/**
 * One Chromium for the whole run: the e2e files connect to it (harness `launchChromium`) instead
 * of each starting its own. A start and stop of Chromium costs about 1.6 CPU s on this kind of
 * machine, and 33 files did it (issue 40, "Performance"). Each file still gets fresh browser
 * contexts (`newPage`/`newContext`), so no cookies, storage or permissions pass between files.
 */
import { join } from 'node:path'
import { chromium, type BrowserServer } from 'playwright-core'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's Playwright endpoint. */
    chromiumWs: string
  }
}

/**
 * Every context a file opens is a browser window, and Chromium 156 loads the address bar's popup
 * (chrome://omnibox-popup.top-chrome, a WebUI page of its own) in a renderer process of its own for
 * each: 1.5–2 CPU s a window that no test sees (Puppeteer turns it off by default too, its PR
 * #15278). Each context also started a spare renderer process for a next navigation that no
 * test's page makes (SpareRendererForSitePerProcess): about 0.1 CPU s a context. Playwright passes
 * a --disable-features list of its own, which CHROMIUM merges with this one.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess',
]

/** Debian's Chromium (/usr/bin/chromium), through a script that merges its --disable-features lists. */
export const CHROMIUM = join(__dirname, 'chromium.sh')

let server: BrowserServer | undefined

// A project's global setup runs only when the run has a file of that project (the e2e project in
// vitest.config.ts), so a unit-only run starts no browser.
export async function setup(project: TestProject): Promise<void> {
  server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  project.provide('chromiumWs', server.wsEndpoint())
}

export async function teardown(): Promise<void> {
  await server?.close()
}
