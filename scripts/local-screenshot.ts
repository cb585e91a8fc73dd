/**
 * Screenshots of the Local attention tab and the heatmap for one model and sentence, in browser
 * mode with the bundled models (issue 26: is local-p's window visibly narrower than the sentence?).
 *   node scripts/ensure-build.mjs && npx tsx scripts/local-screenshot.ts [model] [sentence] [name]
 * Writes test/artifacts/<name>-local.png and <name>-heatmap.png.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ARTIFACTS, launchChromium, openAndType, ROOT, startBrowserMode } from '../test/e2e/harness'

/**
 * The harness's screenshot waits for the canvases inside page.evaluate, which tsx's name-keeping
 * transform breaks (`__name is not defined` in the page): here a pause for the charts' animation.
 */
async function screenshot(page: Page, name: string, opts: { fullPage: boolean }): Promise<string> {
  await page.waitForTimeout(1500)
  const path = join(ARTIFACTS, `${name}.png`)
  await page.screenshot({ path, fullPage: opts.fullPage })
  return path
}

async function main(): Promise<void> {
  const [model = 'en-fr-local-p', sentence = 'A boy wearing a red shirt digs into the sand with a yellow shovel.', name = model] = process.argv.slice(2)
  const app = await startBrowserMode({ AL_MODELS_DIR: join(ROOT, 'resources', 'models') })
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(app.url)
    await openAndType(page, `bundled:${model}.onnx`, sentence)
    await page.getByTestId('tab-local').click()
    await page.getByTestId('local-spotlight').waitFor()
    console.log(await page.getByTestId('local-pt').innerText())
    console.log(await screenshot(page, `${name}-local`, { fullPage: true }))
    await page.getByTestId('tab-heatmap').click()
    console.log(await screenshot(page, `${name}-heatmap`, { fullPage: true }))
  } finally {
    await browser.close()
    await app.stop()
  }
}
void main()
