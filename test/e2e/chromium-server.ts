/**
 * One Chromium for the whole run: the e2e files connect to it (harness `launchChromium`) instead
 * of each starting its own. A start and stop of Chromium costs about 1.6 CPU s on this kind of
 * machine, and 33 files did it (issue 40, "Performance"). Each file still gets fresh browser
 * contexts (`newPage`/`newContext`), so no cookies, storage or permissions pass between files.
 */
import { chromium, type BrowserServer } from 'playwright-core'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's Playwright endpoint. */
    chromiumWs: string
  }
}

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run']

let server: BrowserServer | undefined

// A project's global setup runs only when the run has a file of that project (the e2e project in
// vitest.config.ts), so a unit-only run starts no browser.
export async function setup(project: TestProject): Promise<void> {
  server = await chromium.launchServer({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
  project.provide('chromiumWs', server.wsEndpoint())
}

export async function teardown(): Promise<void> {
  await server?.close()
}
