/**
 * `attention-lens export --animate --format gif|apng` and `--format html` (issue 34), run from
 * the build (out/main/cli.js in-process, cli-runner.ts, as the other CLI tests) on the tiny
 * fixture models: what is written, what is refused, and how it is said.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { GifReader } from 'omggif'
import { describe, expect, it } from 'vitest'
import { tempDir, tiny } from '../../helpers'
import { runCli } from './cli-runner'

const run = (args: string[]) => {
  const r = runCli(args, undefined, 120_000)
  return { code: r.code, out: r.out.trim(), err: r.err.trim() }
}
const SRC = 'A dog runs in the park.'

describe('export --animate', () => {
  it('writes a GIF with one frame per decoder step at 1280×720, and says so', () => {
    const out = join(tempDir(), 'a.gif')
    const r = run(['export', '--model', tiny('local-p'), '--src', SRC, '--view', 'heatmap', '--animate', '--format', 'gif', '--font', 'screen', '--out', out])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    const gif = new GifReader(new Uint8Array(readFileSync(out)))
    expect([gif.width, gif.height]).toEqual([1280, 720])
    const frames = Number(/(\d+) frames, one per decoder step/.exec(r.out)?.[1])
    expect(gif.numFrames()).toBe(frames)
    expect(gif.frameInfo(frames - 1).delay).toBe(300)
    expect(r.out).toMatch(/^wrote .*a\.gif \(GIF, \d+ frames, one per decoder step, 1280×720 pixels/)
  }, 120_000)

  it('writes an APNG from the extension, with the timing asked for', () => {
    const out = join(tempDir(), 'a.png')
    const r = run([
      'export',
      '--model',
      tiny('bahdanau'),
      '--src',
      SRC,
      '--view',
      'step',
      '--animate',
      '--frame-ms',
      '400',
      '--hold-ms',
      '1000',
      '--scale',
      '1',
      '--out',
      out,
      '--font',
      'screen',
    ])
    expect(r.code).toBe(0)
    const png = readFileSync(out)
    // acTL: the animation control chunk, before the first IDAT; its frame count is the steps'.
    const acTL = png.indexOf('acTL')
    expect(acTL).toBeGreaterThan(0)
    expect(acTL).toBeLessThan(png.indexOf('IDAT'))
    expect(png.readUInt32BE(acTL + 4)).toBe(Number(/(\d+) frames/.exec(r.out)?.[1]))
    expect(r.out).toContain('400 ms a step, last held 1000 ms')
  }, 120_000)

  it('refuses what it cannot animate, in one line', () => {
    const out = join(tempDir(), 'x.gif')
    expect(run(['export', '--model', tiny('local-p'), '--src', SRC, '--view', 'lines', '--animate', '--out', out])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--animate plays the decoding step by step: --view heatmap, step, local or beam, not lines/),
    })
    expect(run(['export', '--model', tiny('local-p'), '--src', SRC, '--animate', '--out', join(tempDir(), 'x.pdf')])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--animate needs --format gif or apng/),
    })
    expect(run(['export', '--model', tiny('local-p'), '--src', SRC, '--format', 'gif', '--out', out])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--format gif is an animation: add --animate/),
    })
    expect(run(['export', '--model', tiny('local-p'), '--src', SRC, '--animate', '--format', 'gif', '--frame-ms', '5', '--out', out])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--frame-ms must be a whole number of milliseconds from 20 to 60000/),
    })
  }, 120_000)

  it('refuses MP4 and WebM, naming the app as the place that makes them, and writes nothing', () => {
    const dir = tempDir()
    for (const [format, args] of [
      ['mp4', ['--animate', '--format', 'mp4', '--out', join(dir, 'a.mp4')]],
      ['webm', ['--animate', '--out', join(dir, 'a.webm')]],
      ['mp4', ['--format', 'mp4', '--out', join(dir, 'b.mp4')]],
    ] as const) {
      const r = run(['export', '--model', tiny('local-p'), '--src', SRC, '--view', 'step', ...args])
      expect(r).toMatchObject({ code: 2, out: '' })
      expect(r.err.split('\n')).toHaveLength(1)
      expect(r.err).toContain(`--format ${format}: a video is encoded with a browser's WebCodecs, which the command line does not have`)
      expect(r.err).toContain(`export MP4 or WebM from the app (Export ▸ ${format === 'mp4' ? 'MP4' : 'WebM'} video)`)
    }
    expect(readdirSync(dir)).toEqual([])
  }, 120_000)
})

describe('export --format html', () => {
  it('writes one self-contained page with the model card', () => {
    const out = join(tempDir(), 'p.html')
    const r = run(['export', '--model', tiny('transformer'), '--src', SRC, '--format', 'html', '--out', out])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^wrote .*p\.html \(\d+ KB, interactive heatmap, no network requests\)$/)
    const html = readFileSync(out, 'utf8')
    expect(html).toMatch(/^<!doctype html>/)
    // Nothing fetched: no src= or href= but the data: icon, and a policy that forbids connecting.
    expect(html.match(/\s(src|href)="(?!data:)/g)).toBeNull()
    expect(html).toContain("default-src 'none'")
    expect(html).toContain('Layers × heads')
    expect(html).toContain('Model card')
  }, 120_000)

  it('refuses --animate with html and a page not ending in .html', () => {
    expect(run(['export', '--model', tiny('local-p'), '--src', SRC, '--format', 'html', '--animate', '--out', join(tempDir(), 'p.html')])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--format html is interactive: it has no --animate/),
    })
    expect(run(['export', '--model', tiny('local-p'), '--src', SRC, '--format', 'html', '--out', join(tempDir(), 'p.png')])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--format html needs --out F.html/),
    })
  }, 60_000)
})
