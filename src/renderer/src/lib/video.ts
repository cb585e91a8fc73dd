/**
 * Animations as video (issue 34): MP4 (H.264) or WebM (VP9, else VP8), made in the window, where
 * WebCodecs has an encoder. The host draws the animation as an APNG (lossless, one frame per
 * decoder step, each with its delay); here ImageDecoder reads its frames back, VideoEncoder
 * encodes them, each lasting its frame's delay (the last one held), and Mediabunny writes the
 * container. Mediabunny is the maintained successor of mp4-muxer and webm-muxer (same author), one
 * package for both containers, in TypeScript with no dependencies of its own.
 *
 * Every frame is a key frame: a video of a dozen frames, each shown for most of a second, costs
 * little more so, and a slide player can jump to any step.
 */
import { BufferTarget, EncodedPacket, EncodedVideoPacketSource, Mp4OutputFormat, Output, WebMOutputFormat } from 'mediabunny'
import { CancelledError } from '../../../shared/errors'
import type { VideoFormat } from '../../../shared/animation'

/** One way to encode: the WebCodecs codec string, and the codec's name for the muxer. */
export interface VideoCodecChoice {
  format: VideoFormat
  codec: string
  mux: 'avc' | 'vp9' | 'vp8'
}

/**
 * H.264 Baseline at the level the frame needs (3.1 up to 1280 × 720, 4.0 up to 2048 × 1024, 5.1
 * beyond); for WebM, VP9 before VP8.
 */
function candidates(format: VideoFormat, width: number, height: number): VideoCodecChoice[] {
  if (format === 'webm')
    return [
      { format, codec: 'vp09.00.10.08', mux: 'vp9' },
      { format, codec: 'vp8', mux: 'vp8' },
    ]
  const macroblocks = Math.ceil(width / 16) * Math.ceil(height / 16)
  const levels = ['1f', '28', '33'].filter((_, i) => macroblocks <= [3600, 8192, 36864][i] || i === 2)
  return levels.map((l) => ({ format, codec: `avc1.4200${l}`, mux: 'avc' }))
}

/** H.264 and VP8/9 take even sizes only: the frame loses its last column or row (page margin) if odd. */
const even = (n: number) => n - (n % 2)

function encoderConfig(choice: VideoCodecChoice, width: number, height: number): VideoEncoderConfig {
  return {
    codec: choice.codec,
    width: even(width),
    height: even(height),
    // Crisp text on every frame, each a key frame: some 250 KB a frame at a step a second.
    bitrate: 2_000_000,
    latencyMode: 'quality',
    ...(choice.mux === 'avc' ? { avc: { format: 'avc' as const } } : {}),
  }
}

/**
 * Each configuration's answer, kept for the window's life. Chromium answers a VP9 question by
 * starting an encoder of that size (half a CPU second at 2000 × 1124 on a two-core machine), and
 * the export dialog asks each time it opens and each time its page size changes.
 */
const supported = new Map<string, Promise<boolean>>()

function isSupported(config: VideoEncoderConfig): Promise<boolean> {
  const key = JSON.stringify(config)
  let answer = supported.get(key)
  if (!answer) {
    answer = VideoEncoder.isConfigSupported(config).then(
      (r) => r.supported === true,
      () => false,
    )
    supported.set(key, answer)
  }
  return answer
}

/** What the window can encode a frame of this size as: a codec per format, or null where it has none. */
export async function probeVideo(width: number, height: number): Promise<Record<VideoFormat, VideoCodecChoice | null>> {
  const out: Record<VideoFormat, VideoCodecChoice | null> = { mp4: null, webm: null }
  // ImageDecoder reads the APNG back; without it (or WebCodecs) there is nothing to encode from.
  if (typeof VideoEncoder === 'undefined' || typeof ImageDecoder === 'undefined' || !(await ImageDecoder.isTypeSupported('image/png'))) return out
  for (const format of ['mp4', 'webm'] as const) {
    for (const c of candidates(format, width, height)) {
      if (await isSupported(encoderConfig(c, width, height))) {
        out[format] = c
        break
      }
    }
  }
  return out
}

export interface EncodedVideo {
  bytes: Uint8Array<ArrayBuffer>
  frames: number
  width: number
  height: number
  durationMs: number
}

const cancelled = () => new CancelledError('The export was cancelled; nothing was saved.')

/**
 * The APNG's frames as a video: each frame lasts its own delay, read from the file (`delaysMs`
 * where the decoder gives none). `onProgress(done, total)` after each frame encoded; `signal`
 * stops it between frames (a CancelledError).
 */
export async function encodeVideo(
  apng: Uint8Array,
  choice: VideoCodecChoice,
  opts: { delaysMs: (frame: number, frames: number) => number; onProgress?: (done: number, total: number) => void; signal?: AbortSignal },
): Promise<EncodedVideo> {
  const decoder = new ImageDecoder({ data: apng, type: 'image/png' })
  let encoder: VideoEncoder | null = null
  const output = new Output({
    format: choice.format === 'mp4' ? new Mp4OutputFormat({ fastStart: 'in-memory' }) : new WebMOutputFormat(),
    target: new BufferTarget(),
  })
  try {
    await decoder.tracks.ready
    await decoder.completed
    const frames = decoder.tracks.selectedTrack?.frameCount ?? 0
    if (frames === 0) throw new Error('The animation came back with no frames.')
    const first = (await decoder.decode({ frameIndex: 0 })).image
    const [width, height] = [first.displayWidth, first.displayHeight]
    first.close()

    const source = new EncodedVideoPacketSource(choice.mux)
    output.addVideoTrack(source)
    await output.start()
    // Each frame's duration (µs) by its timestamp (µs): a chunk is matched to its frame by the timestamp it keeps.
    const durations = new Map<number, number>()
    let written = Promise.resolve()
    let failure: Error | null = null
    encoder = new VideoEncoder({
      output: (chunk, meta) => {
        const data = new Uint8Array(chunk.byteLength)
        chunk.copyTo(data)
        const duration = durations.get(chunk.timestamp) ?? chunk.duration ?? 0
        const packet = new EncodedPacket(data, chunk.type, chunk.timestamp / 1e6, duration / 1e6)
        written = written.then(() => source.add(packet, meta))
      },
      error: (e) => (failure = e),
    })
    encoder.configure(encoderConfig(choice, width, height))
    let at = 0
    for (let i = 0; i < frames; i++) {
      if (opts.signal?.aborted) throw cancelled()
      if (failure) throw failure
      const { image } = await decoder.decode({ frameIndex: i })
      // The delay the APNG gives the frame (µs), else the animation's own.
      const ms = image.duration ? image.duration / 1000 : opts.delaysMs(i, frames)
      const timestamp = Math.round(at * 1000)
      const duration = Math.round(ms * 1000)
      durations.set(timestamp, duration)
      const frame = new VideoFrame(image, {
        timestamp,
        duration,
        visibleRect: { x: 0, y: 0, width: even(width), height: even(height) },
      })
      image.close()
      encoder.encode(frame, { keyFrame: true })
      frame.close()
      at += ms
      // Let the encoder catch up, and a cancel in.
      while (encoder.encodeQueueSize > 2) await new Promise((r) => setTimeout(r, 5))
      opts.onProgress?.(i + 1, frames)
    }
    await encoder.flush()
    if (failure) throw failure
    await written
    source.close()
    await output.finalize()
    const buffer = (output.target as BufferTarget).buffer
    if (!buffer) throw new Error('The video came out empty.')
    return { bytes: new Uint8Array(buffer), frames, width: even(width), height: even(height), durationMs: at }
  } catch (e) {
    if (output.state !== 'finalized' && output.state !== 'canceled') await output.cancel().catch(() => undefined)
    throw opts.signal?.aborted ? cancelled() : e
  } finally {
    if (encoder && encoder.state !== 'closed') encoder.close()
    decoder.close()
  }
}
