/**
 * Animated exports in the app (issue 34), in browser mode in Chromium: the dialog shows the frames
 * drawn as an animation renders, and Cancel stops it with nothing saved; MP4 and WebM are encoded
 * in the window with WebCodecs and read back by an independent reader (Chromium's own player):
 * one frame per decoder step at 1280 × 720, each step 0.8 s and the last held 3 s; where the window
 * has no encoder (a stubbed probe) the dialog says so and the buttons are off. Needs the app built.
 */
import { readFileSync, writeFileSync } from 'node:fs'
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
  /** Frames decoded in playing it through. */
  frames: number
  /** Frames the player was too late to show (none, for every frame to have been seen). */
  dropped: number
  duration: number
  /** Each frame's presentation time, in seconds, in the order shown. */
  times: number[]
  /** The player's count of frames shown, at each frame: 1, 2, 3 … where none was skipped. */
  shown: number[]
  /** PNG data URLs of the frames asked for, to look at. */
  stills: string[]
}

/**
 * The codec a video's container declares: an MP4's first sample entry (moov › trak › mdia › minf ›
 * stbl › stsd), a WebM's CodecID element (EBML id 0x86). Read from the bytes here, not by the
 * muxer that wrote them.
 */
function declaredCodec(bytes: Buffer, format: 'mp4' | 'webm'): string {
  if (format === 'webm') {
    // The ID, then its size in one byte (a vint: the top bit set, then the length), then the name.
    const text = bytes.toString('latin1')
    const m = /\x86([\x81-\x9f])V_/.exec(text)
    if (!m) return 'unknown'
    const id = text.slice(m.index + 2, m.index + 2 + (m[1].charCodeAt(0) & 0x7f))
    return { V_VP8: 'vp8', V_VP9: 'vp9', V_AV1: 'av1' }[id] ?? id
  }
  const PATH = ['moov', 'trak', 'mdia', 'minf', 'stbl', 'stsd']
  let [start, end] = [0, bytes.length]
  for (const [depth, want] of PATH.entries()) {
    let [at, size] = [start, 0]
    for (;;) {
      if (at + 8 > end) return 'unknown'
      size = bytes.readUInt32BE(at)
      if (size < 8) return 'unknown'
      if (bytes.toString('latin1', at + 4, at + 8) === want) break
      at += size
    }
    // stsd is a full box: version and flags, then the entry count, then the entries.
    ;[start, end] = [at + 8 + (depth === PATH.length - 1 ? 8 : 0), at + size]
  }
  const entry = bytes.toString('latin1', start + 4, start + 8)
  return { avc1: 'h264', avc3: 'h264', vp09: 'vp9', av01: 'av1' }[entry] ?? entry
}

/**
 * A video as Chromium's own media stack reads it (its demuxers and decoders, not the app's muxer):
 * played through at 4 × in a page of its own (again in real time where a frame was dropped), every
 * frame shown reported by requestVideoFrameCallback with its presentation time, the frames decoded
 * and dropped counted by the player. Debian's ffmpeg read them before; it and the 79 packages it
 * brings took 24 s of a fresh machine's setup (issue 40, "Performance").
 */
async function readBack(file: string, format: 'mp4' | 'webm', stills: number[]): Promise<Probe> {
  const bytes = readFileSync(file)
  const context = await browser.newContext()
  try {
    await context.route('http://video.invalid/**', (route) =>
      route.request().url().endsWith('/video')
        ? route.fulfill({ body: bytes, contentType: `video/${format}` })
        : route.fulfill({ body: '<!doctype html><title>read back</title><body></body>', contentType: 'text/html' }),
    )
    const page = await context.newPage()
    await page.goto('http://video.invalid/')
    const read = await page.evaluate(async (stills) => {
      /**
       * The video played through at `rate` in an element of its own: each frame shown, by the
       * player's count, and the frames asked for in `stills` copied as they are shown (a paused
       * video's frame drawn after a seek was the first frame whatever the time, in this Chromium).
       */
      const play = async (rate: number) => {
        const v = document.createElement('video')
        v.muted = true
        v.preload = 'auto'
        const shown = new Map<number, number>()
        const copies = new Map<number, HTMLCanvasElement>()
        const onFrame: VideoFrameRequestCallback = (_now, m) => {
          shown.set(m.presentedFrames, m.mediaTime)
          if (stills.includes(m.presentedFrames - 1)) {
            const canvas = document.createElement('canvas')
            ;[canvas.width, canvas.height] = [m.width, m.height]
            canvas.getContext('2d')!.drawImage(v, 0, 0)
            copies.set(m.presentedFrames - 1, canvas)
          }
          v.requestVideoFrameCallback(onFrame)
        }
        v.requestVideoFrameCallback(onFrame)
        document.body.append(v)
        await new Promise((resolve, reject) => {
          v.oncanplaythrough = resolve
          v.onerror = () => reject(new Error(`the video did not load: ${v.error?.code} ${v.error?.message}`))
          v.src = '/video'
        })
        const ended = new Promise((resolve) => (v.onended = resolve))
        v.playbackRate = rate
        await v.play()
        await ended
        return { v, shown, copies, quality: v.getVideoPlaybackQuality() }
      }
      // A frame the player was too late for (a machine busy with other tests) is dropped, not shown:
      // played again in real time, once, before the file is judged on it.
      let run = await play(4)
      if (run.quality.droppedVideoFrames > 0) run = await play(1)
      const { v, shown, copies, quality } = run
      const order = [...shown.keys()].sort((a, b) => a - b)
      const times = order.map((n) => shown.get(n)!)
      const pictures = stills.map((n) => copies.get(n)?.toDataURL('image/png') ?? '')
      return {
        width: v.videoWidth,
        height: v.videoHeight,
        duration: v.duration,
        frames: quality.totalVideoFrames,
        dropped: quality.droppedVideoFrames,
        times,
        shown: order,
        stills: pictures,
      }
    }, stills)
    return { codec: declaredCodec(bytes, format), ...read }
  } finally {
    await context.close()
  }
}

/** Exports a video from the dialog and reads it back; checks it frame by frame against the decoder steps. */
async function exportVideo(page: Page, steps: number, format: 'mp4' | 'webm', stills: number[] = []): Promise<{ file: string; read: Probe }> {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 170_000 }), page.getByTestId(`export-${format}`).click()])
  expect(download.suggestedFilename()).toBe(`attention-lens-step-animated.${format}`)
  const file = join(ARTIFACTS, `export-step-animated.${format}`)
  await download.saveAs(file)
  await expect.poll(() => page.getByTestId('export-status').textContent()).toContain(`attention-lens-step-animated.${format}`)
  const read = await readBack(file, format, stills)
  expect(read.codec).toBe(format === 'mp4' ? 'h264' : 'vp9')
  expect([read.width, read.height]).toEqual([1280, 720])
  // One frame per decoder step, each 0.8 s after the one before, every one shown; the last held 3 s.
  expect(read.frames).toBe(steps)
  expect(read.dropped).toBe(0)
  expect(read.shown).toEqual(Array.from({ length: steps }, (_, i) => i + 1))
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

  it("exports WebM (and MP4 where the window has H.264): one frame per decoder step, read back by Chromium's player", async () => {
    const { context, page, steps } = afterCancel ?? (await stepView())
    await expect.poll(() => page.getByTestId('export-webm').isEnabled(), { timeout: 10_000 }).toBe(true)
    // The first, a middle and the last frame, to look at.
    const stills = { first: 0, middle: Math.floor(steps / 2), last: steps - 1 }
    const webm = await exportVideo(page, steps, 'webm', Object.values(stills))
    // Each a picture of its own step (the step's label differs, if nothing else).
    expect(new Set(webm.read.stills).size).toBe(3)
    expect(webm.read.stills.every((png) => png.startsWith('data:image/png;base64,'))).toBe(true)
    for (const [i, name] of Object.keys(stills).entries()) {
      writeFileSync(join(ARTIFACTS, `export-webm-${name}.png`), Buffer.from(webm.read.stills[i].replace(/^data:image\/png;base64,/, ''), 'base64'))
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
