/**
 * Animated exports (issue 34), read back by decoders that are not the encoders: omggif for the
 * GIF, Pillow (/usr/bin/python3, where installed) for the APNG. One frame per decoder step, the
 * last held longer; every frame 1280×720; frame t of the heatmap has rows 1…t coloured and the
 * rest blank; the same input gives the same bytes; each frame's text, drawn as PDF and read back by
 * pdftotext, stays at or above its floor.
 */
import { spawnSync } from '../../spawn-sync'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GifReader } from 'omggif'
import { beforeAll, describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { beamAt, planAnimation, renderAnimation, stepCaption, type Animation, type AnimatedData } from '../../../src/host/export/animation'
import { locateCell, renderPdf } from '../../../src/host/export/figure'
import { FigureWorker } from '../../../src/host/export/pool'
import { DEFAULT_ANIMATION } from '../../../src/shared/animation'
import { parseArgs } from '../../../src/shared/routes'
import { floorsFor, NUMBER } from '../../../src/shared/charts/fit'
import type { Translation } from '../../../src/shared/api'
import { DEFAULT_FIGURE, FONT_PRESETS, SIZE_PRESETS, type FigureSpec } from '../../../src/shared/figure'
import { BUNDLED_MODELS, tempDir } from '../../helpers'
import { readPdfs } from './pdf-readback'

const LONG = 'A young man in a red jacket is standing on the corner of a busy street while his two friends wait for the bus outside .'
const SHORT = 'Two dogs are playing in the snow .'
/** 1280×720: a 16:9 slide at 96 dpi, screen text. */
const SPEC: FigureSpec = { ...DEFAULT_FIGURE, ...SIZE_PRESETS['slide-16x9'], dpi: 96, fontSize: FONT_PRESETS.screen }
const PILLOW = existsSync('/usr/bin/python3') && spawnSync('/usr/bin/python3', ['-c', 'import PIL']).status === 0

let long: Translation
let short: Translation
let gif: Animation

beforeAll(async () => {
  const svc = new InferenceService()
  const model = join(BUNDLED_MODELS, 'en-fr-local-p.onnx')
  long = await svc.translate(model, LONG)
  short = await svc.translate(model, SHORT)
  await svc.closeAll()
  gif = await renderAnimation({ view: 'heatmap', translation: long }, SPEC, { format: 'gif' })
}, 180_000)

/** Every frame of a GIF as RGBA, composed as a viewer shows it (omggif blits a frame over the last). */
function gifFrames(bytes: Buffer): { width: number; height: number; delays: number[]; frames: Uint8Array[] } {
  const r = new GifReader(new Uint8Array(bytes))
  const canvas = new Uint8Array(r.width * r.height * 4)
  const frames: Uint8Array[] = []
  const delays: number[] = []
  for (let i = 0; i < r.numFrames(); i++) {
    r.decodeAndBlitFrameRGBA(i, canvas)
    frames.push(canvas.slice())
    delays.push(r.frameInfo(i).delay * 10)
  }
  return { width: r.width, height: r.height, delays, frames }
}

/** A point inside cell (s, t), clear of its value label, p_t marker and window outline, in pixels. */
function cellPoints(data: AnimatedData, spec: FigureSpec): (s: number, t: number) => [number, number] {
  const c = locateCell(data, spec, 0, 0)
  const k = SPEC.dpi / 72
  return (s, t) => [Math.round((c.x + s * c.w - 0.3 * c.w) * k), Math.round((c.y + t * c.h + 0.25 * c.h) * k)]
}

const isBackground = (px: ArrayLike<number>, at: number) => px[at] > 250 && px[at + 1] > 250 && px[at + 2] > 250

describe('animated GIF of the heatmap filling, 25 words (en-fr-local-p)', () => {
  it('has one frame per decoder step, each 1280×720, the last held longer', () => {
    const got = gifFrames(gif.bytes)
    expect(gif.frames).toBe(long.tgtTokens.length)
    expect(got.frames.length).toBe(long.tgtTokens.length)
    expect([got.width, got.height]).toEqual([1280, 720])
    expect(got.delays.slice(0, -1).every((d) => d === 800)).toBe(true)
    expect(got.delays.at(-1)).toBe(3000)
    expect(gif.bytes.length).toBeLessThan(5e6)
  })

  it('frame t has rows 1…t coloured and the rest blank', () => {
    const { frames, width } = gifFrames(gif.bytes)
    const data: AnimatedData = { view: 'heatmap', translation: long }
    const T = long.tgtTokens.length
    const S = long.srcTokens.length
    // Sample three columns of every row: coloured exactly when the row is decoded by frame t.
    const at = cellPoints(data, gif.plan.fittedWith)
    const points = Array.from({ length: T }, (_, row) => [0, Math.floor(S / 2), S - 1].map((s) => at(s, row)))
    frames.forEach((px, t) => {
      const coloured = points.map((row) => row.filter(([x, y]) => !isBackground(px, 4 * (y * width + x))).length)
      expect(coloured, `frame ${t + 1}`).toEqual(Array.from({ length: T }, (_, row) => (row <= t ? 3 : 0)))
    })
  })

  it('names the step in each frame and keeps one text size', () => {
    expect(gif.plan.frames.map((f) => f.caption)).toEqual(long.tgtTokens.map((tok, t) => stepCaption(t, tok, 'en')))
    expect(gif.plan.frames[6].caption).toBe(`step 7: « ${long.tgtTokens[6]} »`)
    expect(gif.plan.frames.every((f) => f.svg.includes(`step ${f.step + 1}:`))).toBe(true)
  })

  it('is deterministic: the same input gives the same bytes', async () => {
    const again = await renderAnimation({ view: 'heatmap', translation: long }, SPEC, { format: 'gif' })
    expect(Buffer.compare(again.bytes, gif.bytes)).toBe(0)
  }, 120_000)

  it("keeps every frame's text at or above its floor, read back from the frame drawn as PDF", async () => {
    const dir = tempDir()
    const picks = [0, Math.floor(gif.frames / 2), gif.frames - 1]
    const files = []
    for (const i of picks) {
      const f = join(dir, `frame-${i}.pdf`)
      writeFileSync(f, await renderPdf(gif.plan.frames[i].svg, gif.plan.spec))
      files.push(f)
    }
    const floors = floorsFor(SPEC.fontSize)
    const pages = readPdfs(files, dir)
    expect(pages.length).toBe(3)
    pages.forEach((page, k) => {
      expect(page.words.length).toBeGreaterThan(picks[k])
      const under = page.words.filter((w) => w.size < (NUMBER.test(w.text) ? floors.number : floors.label) - 0.05)
      expect(under, `frame ${picks[k] + 1}`).toEqual([])
      // The caption is on the page, and only the decoded rows' words are.
      expect(page.words.map((w) => w.text).join(' ')).toContain(`step ${picks[k] + 1}:`)
    })
  }, 60_000)
})

describe('animated PNG (APNG) and the step-through, a short sentence', () => {
  let apng: Animation

  beforeAll(async () => {
    apng = await renderAnimation({ view: 'heatmap', translation: short }, SPEC, { format: 'apng', stepMs: 500, holdMs: 2000 })
  }, 120_000)

  it('is deterministic', async () => {
    const again = await renderAnimation({ view: 'heatmap', translation: short }, SPEC, { format: 'apng', stepMs: 500, holdMs: 2000 })
    expect(Buffer.compare(again.bytes, apng.bytes)).toBe(0)
  }, 120_000)

  it.skipIf(!PILLOW)('reads back in Pillow: one frame per step, 1280×720, the delays, rows filling', () => {
    const dir = tempDir()
    const file = join(dir, 'a.png')
    writeFileSync(file, apng.bytes)
    const data: AnimatedData = { view: 'heatmap', translation: short }
    const T = short.tgtTokens.length
    const at = cellPoints(data, apng.plan.fittedWith)
    const points = Array.from({ length: T }, (_, row) => at(0, row))
    const script = [
      'import json, sys',
      'from PIL import Image',
      'im = Image.open(sys.argv[1]); pts = json.loads(sys.argv[2]); out = []',
      'for i in range(im.n_frames):',
      '    im.seek(i); rgb = im.convert("RGB")',
      '    out.append({"size": list(im.size), "duration": im.info.get("duration"), "px": [list(rgb.getpixel((x, y))) for x, y in pts]})',
      'print(json.dumps({"n": im.n_frames, "format": im.format, "frames": out}))',
    ].join('\n')
    const r = spawnSync('/usr/bin/python3', ['-c', script, file, JSON.stringify(points)], { encoding: 'utf8' })
    expect(r.stderr).toBe('')
    const got = JSON.parse(r.stdout) as { n: number; format: string; frames: { size: number[]; duration: number; px: number[][] }[] }
    expect(got.format).toBe('PNG')
    expect(got.n).toBe(T)
    got.frames.forEach((f, t) => {
      expect(f.size).toEqual([1280, 720])
      expect(f.duration).toBe(t === T - 1 ? 2000 : 500)
      expect(f.px.map((p) => !isBackground(p, 0))).toEqual(Array.from({ length: T }, (_, row) => row <= t))
    })
  })

  it('plays the step-through one still figure per step, at one text size, on one page', async () => {
    const data: AnimatedData = { view: 'step', translation: short, step: 0, attention: 'local-p' }
    const a = await renderAnimation(data, SPEC, { format: 'gif', captions: false })
    const got = gifFrames(a.bytes)
    expect(got.frames.length).toBe(short.tgtTokens.length)
    expect(a.plan.frames.every((f) => f.caption === null)).toBe(true)
    // Each step draws its own numbers: no two consecutive frames alike.
    for (let i = 1; i < got.frames.length; i++) expect(Buffer.compare(Buffer.from(got.frames[i]), Buffer.from(got.frames[i - 1]))).not.toBe(0)
    expect(new Set(a.plan.frames.map((f) => /width="([\d.]+)" height="([\d.]+)"/.exec(f.svg)?.slice(1).join('x'))).size).toBe(1)
  }, 120_000)

  it('reports progress and stops when cancelled', async () => {
    const seen: number[] = []
    const stop = new AbortController()
    const run = renderAnimation({ view: 'heatmap', translation: short }, SPEC, {
      format: 'gif',
      signal: stop.signal,
      onProgress: (done) => {
        seen.push(done)
        if (done === 2) stop.abort()
      },
    })
    await expect(run).rejects.toMatchObject({ name: 'AbortError' })
    expect(seen).toEqual([1, 2])
  }, 60_000)

  it('refuses an empty translation in one sentence', () => {
    expect(() => planAnimation({ view: 'heatmap', translation: { ...short, tgtTokens: [], attention: [] } }, SPEC)).toThrow(/nothing to animate/)
  })
})

describe("the app's route: export:animation", () => {
  it('checks its settings where they arrive', () => {
    const data = { view: 'heatmap', translation: short }
    expect(() => parseArgs('export:animation', [data, SPEC, DEFAULT_ANIMATION])).not.toThrow()
    expect(() => parseArgs('export:animation', [data, SPEC, { ...DEFAULT_ANIMATION, format: 'mp4' }])).toThrow(/refused: 2\.format:/)
    expect(() => parseArgs('export:animation', [data, SPEC, { ...DEFAULT_ANIMATION, stepMs: 5 }])).toThrow(/milliseconds from 20 to 60000/)
  })

  it('draws on the figure worker, which refuses a view that does not animate', async () => {
    const worker = new FigureWorker()
    try {
      await expect(worker.animate({ view: 'lines', translation: short, threshold: 0.1 }, SPEC, DEFAULT_ANIMATION)).rejects.toThrow(/does not animate/)
      const bytes = await worker.animate({ view: 'heatmap', translation: short }, SPEC, DEFAULT_ANIMATION)
      const direct = await renderAnimation({ view: 'heatmap', translation: short }, SPEC, DEFAULT_ANIMATION)
      expect(Buffer.compare(bytes, direct.bytes)).toBe(0)
    } finally {
      await worker.close()
    }
  }, 120_000)
})

describe('the beam tree growing', () => {
  it('keeps, at frame t, the hypotheses kept up to step t, parents renumbered, the winner shown only at the end', async () => {
    const svc = new InferenceService()
    const t = await svc.translate(join(BUNDLED_MODELS, 'en-fr-local-p.onnx'), SHORT, { beam: 3 })
    await svc.closeAll()
    const tree = t.beamTree!
    const steps = Math.max(...tree.nodes.map((n) => n.step)) + 1
    for (let k = 0; k < steps; k++) {
      const grown = beamAt(tree, k, k === steps - 1)
      expect(grown.nodes.length).toBe(tree.nodes.filter((n) => n.step <= k && n.status !== 'pruned').length)
      grown.nodes.forEach((n, i) => {
        expect(n.parent).toBeLessThan(i)
        if (n.parent >= 0) expect(grown.nodes[n.parent].step).toBe(n.step - 1)
      })
      expect(grown.nodes.some((n) => n.status === 'chosen')).toBe(k === steps - 1)
    }
    const a = await renderAnimation({ view: 'beam', translation: t }, SPEC, { format: 'gif' })
    expect(new GifReader(new Uint8Array(a.bytes)).numFrames()).toBe(steps)
  }, 120_000)
})
