/**
 * Screenshots of the Local attention tab and the heatmap for one model and sentence, in browser
 * mode with the bundled models (issue 26: is local-p's window visibly narrower than the sentence?).
 *   node scripts/ensure-build.mjs && npx tsx scripts/local-screenshot.mts [model] [sentence] [name]
 * Writes test/artifacts/<name>-local.png and <name>-heatmap.png.
 */
import { join } from 'node:path'
import { launchChromium, openAndType, ROOT, screenshot, startBrowserMode } from '../test/e2e/harness'

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
