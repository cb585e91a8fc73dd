/**
 * `attention-lens export` beyond still figures (issue 34):
 *   --animate --format gif|apng   the decoding one decoder step a frame (heatmap, step, local)
 *   --format mp4|webm             refused: videos are encoded in the app's window (WebCodecs), not here
 *   --format html                 one self-contained interactive page (see src/shared/charts/html-export/page.ts)
 */
import { writeAtomic } from '../host/export/atomic'
import type { FigureData, FigureSpec } from '../shared/figure'
import { DPI_PER_SCALE } from '../shared/figure'
import { UsageError } from './options'

export const EXTRA_FORMAT_OPTIONS = {
  animate: { type: 'boolean' },
  format: { type: 'string' },
  'frame-ms': { type: 'string' },
  'hold-ms': { type: 'string' },
  'no-captions': { type: 'boolean' },
} as const

export const EXTRA_FORMAT_USAGE = [
  '       attention-lens export ... --view heatmap|step|local|beam --animate --format gif|apng --out F.gif|F.png [--frame-ms 800] [--hold-ms 3000] [--no-captions]',
  '              one frame per decoder step (the heatmap fills row by row in pieces; for a local model its window moves), the last frame held;',
  '              1280×720 (slide-16x9 at 96 dpi) unless --dpi/--scale say otherwise',
  '       attention-lens export ... --format html --out F.html   one self-contained page: heatmap, step slider, heads grid (offline, no requests)',
  '              MP4 and WebM are made in the app (Export ▸ MP4/WebM video, WebCodecs in its window); the command line has no video encoder',
].join('\n')

export type ExtraFormat = { kind: 'animation'; format: 'gif' | 'apng'; stepMs: number; holdMs: number; captions: boolean } | { kind: 'html' }

type Values = Record<string, string | boolean | string[] | undefined>

const ms = (value: unknown, what: string, fallback: number) => {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!(Number.isInteger(n) && n >= 20 && n <= 60_000)) throw new UsageError(`${what} must be a whole number of milliseconds from 20 to 60000`)
  return n
}

/** The export's format when it is not a still figure, or null; checks the options that go with it. */
export function extraFormat(v: Values, view: string): ExtraFormat | null {
  const format = typeof v.format === 'string' ? v.format.toLowerCase() : undefined
  const out = typeof v.out === 'string' ? v.out.toLowerCase() : ''
  const video = format === 'mp4' || format === 'webm' ? format : /\.(mp4|webm)$/.exec(out)?.[1]
  if (video)
    throw new UsageError(
      `--format ${video}: a video is encoded with a browser's WebCodecs, which the command line does not have; export MP4 or WebM from the app (Export ▸ ${video === 'mp4' ? 'MP4' : 'WebM'} video), or use --animate --format gif|apng here`,
    )
  if (format === 'html' || (!v.animate && format === undefined && out.endsWith('.html'))) {
    if (v.animate) throw new UsageError('--format html is interactive: it has no --animate')
    if (!out.endsWith('.html')) throw new UsageError('--format html needs --out F.html')
    return { kind: 'html' }
  }
  if (!v.animate) {
    if (format !== undefined && !['png', 'svg', 'pdf'].includes(format))
      throw new UsageError(
        format === 'gif' || format === 'apng'
          ? `--format ${format} is an animation: add --animate`
          : '--format must be png, svg, pdf, html, or gif|apng with --animate',
      )
    return null
  }
  const anim = format ?? (out.endsWith('.gif') ? 'gif' : out.endsWith('.png') || out.endsWith('.apng') ? 'apng' : undefined)
  if (anim !== 'gif' && anim !== 'apng') throw new UsageError('--animate needs --format gif or apng (or --out ending in .gif or .png)')
  if (!['heatmap', 'step', 'local', 'beam'].includes(view))
    throw new UsageError(`--animate plays the decoding step by step: --view heatmap, step, local or beam, not ${view}`)
  if (!out) throw new UsageError(`--out F.${anim === 'gif' ? 'gif' : 'png'} is missing`)
  return {
    kind: 'animation',
    format: anim,
    stepMs: ms(v['frame-ms'], '--frame-ms', 800),
    holdMs: ms(v['hold-ms'], '--hold-ms', 3000),
    captions: v['no-captions'] !== true,
  }
}

/** The spec an extra format starts from: an animation at 96 dpi (1280×720 on a 16:9 slide) unless a resolution was asked for. */
export function adjustSpec(spec: FigureSpec, extra: ExtraFormat, v: Values): FigureSpec {
  if (extra.kind === 'animation' && v.dpi === undefined && v.scale === undefined) return { ...spec, dpi: DPI_PER_SCALE }
  return spec
}

/** The model's card, the one the app's HTML page writes (one text for both). */
export { modelCard } from '../shared/charts/html-export/page'

/** Renders and writes the animation or page, and says what was written. */
export async function writeExtra(
  out: string,
  data: FigureData,
  spec: FigureSpec,
  extra: ExtraFormat,
  model: { name: string; card: string } | null = null,
  units: 'words' | 'pieces' = 'words',
): Promise<void> {
  if (extra.kind === 'html') {
    const { htmlExport, HTML_MAX_BYTES } = await import('../shared/charts/html-export/page')
    const html = htmlExport(data, { lang: spec.lang, colormap: spec.colormap, title: spec.title, caption: spec.caption, model, units })
    if (Buffer.byteLength(html) > HTML_MAX_BYTES)
      console.error(`attention-lens: the page is ${(Buffer.byteLength(html) / 1e6).toFixed(1)} MB, over the 2 MB a course page takes`)
    await writeAtomic(out, Buffer.from(html, 'utf8'))
    console.log(`wrote ${out} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KB, interactive ${data.view}, no network requests)`)
    return
  }
  const { isAnimated, renderAnimation } = await import('../host/export/animation')
  if (!isAnimated(data)) throw new UsageError(`--animate plays the decoding step by step: --view heatmap, step, local or beam, not ${data.view}`)
  const t0 = performance.now()
  const a = await renderAnimation(data, spec, extra)
  await writeAtomic(out, a.bytes)
  const kb = (a.bytes.length / 1024).toFixed(0)
  console.log(
    `wrote ${out} (${extra.format.toUpperCase()}, ${a.frames} frames, one per decoder step, ${a.width}×${a.height} pixels, ${kb} KB, ${extra.stepMs} ms a step, last held ${extra.holdMs} ms; ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  )
}
