import { afterEach, describe, expect, it, vi } from 'vitest'
import { probeVideo } from '../../../src/renderer/src/lib/video'

/**
 * The export dialog asks which video formats the window can encode each time it opens and each time
 * its page size changes; Chromium answers a VP9 question by starting an encoder of that size (about
 * 0.5 CPU s at 2000 × 1124). Each configuration is asked once per window.
 */
describe('probeVideo', () => {
  afterEach(() => vi.unstubAllGlobals())

  /** A window whose encoder answers as `isConfigSupported` does, and the questions it was asked. */
  function stubWindow(isConfigSupported: (c: VideoEncoderConfig) => Promise<VideoEncoderSupport>) {
    const asked: string[] = []
    vi.stubGlobal('ImageDecoder', { isTypeSupported: async () => true })
    vi.stubGlobal('VideoEncoder', {
      isConfigSupported: (c: VideoEncoderConfig) => {
        asked.push(`${c.codec} ${c.width}×${c.height}`)
        return isConfigSupported(c)
      },
    })
    return asked
  }

  it('asks each configuration once, and again for another size', async () => {
    const asked = stubWindow(async (c) => ({ supported: c.codec !== 'vp09.00.10.08', config: c }))
    const first = await probeVideo(1001, 601)
    expect(first.mp4?.codec).toBe('avc1.42001f')
    expect(first.webm?.codec).toBe('vp8')
    expect(asked).toEqual(['avc1.42001f 1000×600', 'vp09.00.10.08 1000×600', 'vp8 1000×600'])
    expect(await probeVideo(1001, 601)).toEqual(first)
    expect(asked).toHaveLength(3)
    await probeVideo(1003, 603)
    expect(asked.slice(3)).toEqual(['avc1.42001f 1002×602', 'vp09.00.10.08 1002×602', 'vp8 1002×602'])
  })

  it('an encoder that throws is no encoder', async () => {
    stubWindow(() => Promise.reject(new Error('no')))
    expect(await probeVideo(1205, 705)).toEqual({ mp4: null, webm: null })
  })
})
