/**
 * An animated export's settings (issue 34), checked wherever they arrive (IPC, HTTP, the figure
 * worker) as the figure's are: GIF or APNG, the time per step and the hold on the last frame, a
 * caption per frame. The views that animate play the decoding one decoder step a frame.
 */
import * as v from 'valibot'
import { FigureDataSchema, FigureSpecSchema, type FigureData, type FigureLang } from './figure'
import { defaultCaption, stepOf } from './figure-context'

export const ANIMATION_FORMATS = ['gif', 'apng'] as const
export type AnimationFormat = (typeof ANIMATION_FORMATS)[number]
/** The views that animate over decoder steps. */
export const ANIMATED_VIEWS = ['heatmap', 'step', 'local', 'beam'] as const
export type AnimatedView = (typeof ANIMATED_VIEWS)[number]
export type AnimatedData = Extract<FigureData, { view: AnimatedView }>

export const isAnimated = (data: FigureData): data is AnimatedData => (ANIMATED_VIEWS as readonly string[]).includes(data.view)

const ms = v.message(v.pipe(v.number(), v.integer(), v.minValue(20), v.maxValue(60_000)), 'must be a whole number of milliseconds from 20 to 60000')

export const AnimationSettingsSchema = v.strictObject({
  format: v.picklist(ANIMATION_FORMATS, 'must be gif or apng'),
  stepMs: ms,
  holdMs: ms,
  captions: v.boolean('must be true or false'),
})
export type AnimationSettings = v.InferOutput<typeof AnimationSettingsSchema>

export const DEFAULT_ANIMATION: AnimationSettings = { format: 'gif', stepMs: 800, holdMs: 3000, captions: true }

/** The arguments of export:animation: the data, the spec, the animation's settings. */
export const AnimationArgs = v.strictTuple([FigureDataSchema, FigureSpecSchema, AnimationSettingsSchema])

/** The file name an animation is saved under. */
export function animationFileName(view: string, format: AnimationFormat | VideoFormat): string {
  return `attention-lens-${view}-animated.${format === 'apng' ? 'png' : format}`
}

/**
 * Videos: encoded in the window with WebCodecs from the host's APNG (src/renderer/src/lib/video.ts),
 * where the window has an encoder; the command line has none and refuses them.
 */
export const VIDEO_FORMATS = ['mp4', 'webm'] as const
export type VideoFormat = (typeof VIDEO_FORMATS)[number]

/** An animation on its way (export:progress): `done` of `total` steps, a frame drawn each and the file encoded last. */
export interface AnimationProgress {
  done: number
  total: number
}

/**
 * An animation's caption from the export dialog's: its default names the step on show ("… · step 3:
 * « jeune »"), which every frame's own caption line names instead, so that part is left out. A
 * caption the user wrote is kept as written.
 */
export function animationCaption(data: FigureData, lang: FigureLang, caption: string | undefined, modelName?: string): string | undefined {
  const still = defaultCaption(data, lang, modelName)
  if (caption !== still || !stepOf(data)) return caption
  // The step is the default's last part.
  return still.split(' · ').slice(0, -1).join(' · ') || undefined
}
