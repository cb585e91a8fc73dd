/**
 * Animated exports in the app (issue 34), in browser mode in Chromium: the dialog shows the frames
 * drawn as an animation renders, and Cancel stops it with nothing saved; MP4 and WebM are encoded
 * in the window with WebCodecs and read back by an independent reader (ffprobe, Debian's ffmpeg):
 * one frame per decoder step at 1280 × 720, each step 0.8 s and the last held 3 s; where the window
 * has no encoder (a stubbed probe) the dialog says so and the buttons are off. Needs the app built.
 */
import { execFileSync } from '../spawn-sync'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FIXTURE_MODELS } from '../helpers'
import { ARTIFACTS, launchChromium, openAndType, SCREENSHOTS, startBrowserMode, type Running, type TestBrowser } from './harness'

const SENTENCE = 'A young man in a red jacket is standing on the corner of a busy street while his two friends wait for the bus outside .'

let app: Running
let browser: TestBrowser

beforeAll(async () => {
  app = await startBrowserMode({ AL_MODELS_DIR: FIXTURE_MODELS })
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await app?.stop()
})

/** A page with the sentence translated, on the step-through; `init` runs before the app's scripts. */
async function stepView(init?: () => void): Promise<{ context: BrowserContext; page: Page; steps: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  if (init) await context.addInitScript(init)
  const page = await context.newPage()
  await page.goto(app.url)
  await openAndType(page, 'bundled:tiny-local-p.onnx', SENTENCE)
  await page.getByTestId('tab-step').click()
  const steps = Number(await page.getByTestId('step-view').getAttribute('data-steps'))
  await page.getByTestId('export-open').click()
  await page.getByTestId('export-font').selectOption('screen')
  return { context, page, steps }
}

interface Probe {
  codec: string
  width: number
  height: number
  frames: number
  duration: number
  /** Each frame's presentation time, in seconds. */
  times: number[]
}

/** What ffprobe reads from a video: its stream, the frames it decodes, their times. */
function probe(file: string): Probe {
  const json = (args: string[]) =>
    JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-of', 'json', ...args, file], { encoding: 'utf8' })) as Record<string, never>
  const info = json(['-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height,nb_read_frames:format=duration'])
  const stream = (info.streams as Record<string, string>[])[0]
  const frames = json(['-select_streams', 'v:0', '-show_entries', 'frame=pts_time'])
  return {
    codec: stream.codec_name,
    width: Number(stream.width),
    height: Number(stream.height),
    frames: Number(stream.nb_read_frames),
    duration: Number((info.format as Record<string, string>).duration),
    times: (frames.frames as { pts_time: string }[]).map((f) => Number(f.pts_time)),
  }
}

/** Exports a video from the dialog and reads it back; checks it frame by frame against the decoder steps. */
async function exportVideo(page: Page, steps: number, format: 'mp4' | 'webm'): Promise<{ file: string; read: Probe }> {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 170_000 }), page.getByTestId(`export-${format}`).click()])
  expect(download.suggestedFilename()).toBe(`attention-lens-step-animated.${format}`)
  const file = join(ARTIFACTS, `export-step-animated.${format}`)
  await download.saveAs(file)
  await expect.poll(() => page.getByTestId('export-status').textContent()).toContain(`attention-lens-step-animated.${format}`)
  const read = probe(file)
  expect(read.codec).toBe(format === 'mp4' ? 'h264' : 'vp9')
  expect([read.width, read.height]).toEqual([1280, 720])
  // One frame per decoder step, each 0.8 s after the one before; the last held 3 s.
  expect(read.frames).toBe(steps)
  expect(read.times).toHaveLength(steps)
  read.times.forEach((t, i) => expect(t).toBeCloseTo(0.8 * i, 2))
  expect(read.duration).toBeCloseTo(0.8 * (steps - 1) + 3, 1)
  return { file, read }
}

describe('animated exports in the app', () => {
  /**
   * The window the GIF was cancelled in, handed on to the video export (a page load, a model
   * opened and a sentence translated fewer; a video made after a cancel, as a user makes one).
   */
  let afterCancel: Awaited<ReturnType<typeof stepView>> | undefined

  it('shows the frames drawn while a GIF renders, and Cancel stops it with nothing saved', async () => {
    const { context, page, steps } = await stepView()
    expect(steps).toBeGreaterThan(5)
    const downloads: string[] = []
    page.on('download', (d) => downloads.push(d.suggestedFilename()))
    await page.getByTestId('export-gif').click()
    const text = page.getByTestId('export-progress-text')
    await expect.poll(() => text.textContent(), { timeout: 60_000, interval: 50 }).toMatch(new RegExp(`^Frame [1-9]\\d* of ${steps} drawn \\(\\d+%\\)$`))
    const bar = page.getByTestId('export-progress').locator('progress')
    expect(Number(await bar.getAttribute('max'))).toBe(steps + 1)
    expect(Number(await bar.getAttribute('value'))).toBeGreaterThan(0)
    // Every animation button is off while one renders.
    for (const f of ['gif', 'apng', 'mp4', 'webm']) await expect.poll(() => page.getByTestId(`export-${f}`).isDisabled()).toBe(true)
    // The dialog as it renders (not harness.screenshot, which waits for the page to settle).
    if (SCREENSHOTS) await page.screenshot({ path: join(ARTIFACTS, 'export-animation-progress.png') })
    await page.getByTestId('export-cancel').click()
    await expect.poll(() => page.getByTestId('export-status').textContent()).toBe('Export cancelled: nothing was saved.')
    await expect.poll(() => page.getByTestId('export-progress').count()).toBe(0)
    expect(await page.getByTestId('export-error').count()).toBe(0)
    // Long enough for the whole animation to have come had it not stopped.
    await page.waitForTimeout(4000)
    expect(downloads).toEqual([])
    // The dialog works on after a cancel.
    expect(await page.getByTestId('export-gif').isEnabled()).toBe(true)
    afterCancel = { context, page, steps }
  }, 120_000)

  it('exports WebM (and MP4 where the window has H.264): one frame per decoder step, read back by ffprobe', async () => {
    const { context, page, steps } = afterCancel ?? (await stepView())
    await expect.poll(() => page.getByTestId('export-webm').isEnabled(), { timeout: 10_000 }).toBe(true)
    const webm = await exportVideo(page, steps, 'webm')
    // The first, a middle and the last frame, to look at.
    for (const [name, n] of [
      ['first', 0],
      ['middle', Math.floor(steps / 2)],
      ['last', steps - 1],
    ] as const) {
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', webm.file, '-vf', `select=eq(n\\,${n})`, '-frames:v', '1', join(ARTIFACTS, `export-webm-${name}.png`)])
    }
    // Debian's Chromium has an H.264 encoder; a window without one says so (the next test).
    if (await page.getByTestId('export-mp4').isEnabled()) await exportVideo(page, steps, 'mp4')
    await context.close()
  }, 400_000)

  it('says in one line why a video cannot be made where the window has no encoder, and turns those buttons off', async () => {
    // No H.264: the probe refuses every avc1 configuration.
    const noH264 = await stepView(() => {
      const probe = VideoEncoder.isConfigSupported.bind(VideoEncoder)
      VideoEncoder.isConfigSupported = (c) => (c.codec.startsWith('avc1') ? Promise.resolve({ supported: false, config: c }) : probe(c))
    })
    const note = noH264.page.getByTestId('export-video-note')
    await expect.poll(() => note.textContent()).toBe('MP4 needs an H.264 encoder, which this window does not have; WebM is available.')
    expect(await noH264.page.getByTestId('export-mp4').isDisabled()).toBe(true)
    expect(await noH264.page.getByTestId('export-mp4').getAttribute('title')).toBe(await note.textContent())
    expect(await noH264.page.getByTestId('export-webm').isEnabled()).toBe(true)
    await noH264.context.close()
    // No video encoder at all.
    const none = await stepView(() => {
      VideoEncoder.isConfigSupported = (c) => Promise.resolve({ supported: false, config: c })
    })
    await expect
      .poll(() => none.page.getByTestId('export-video-note').textContent())
      .toBe('MP4 and WebM need a video encoder (WebCodecs), which this window does not have; GIF and APNG are available.')
    for (const f of ['mp4', 'webm']) expect(await none.page.getByTestId(`export-${f}`).isDisabled()).toBe(true)
    expect(await none.page.getByTestId('export-gif').isEnabled()).toBe(true)
    await none.context.close()
  }, 120_000)
})
