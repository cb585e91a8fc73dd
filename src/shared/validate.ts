/**
 * The arguments each API channel accepts, checked where a call arrives (Electron main, the
 * browser-mode server) before anything runs. Anything else is refused with one sentence.
 */
import * as v from 'valibot'
import { Channels } from './api'
import { MAX_SERIES_ROWS } from './series'

const id = v.pipe(v.string(), v.maxLength(4096))
const text = v.pipe(v.string(), v.maxLength(100_000))
const decode = {
  beam: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(16))),
  lengthPenalty: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(3))),
  topK: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20))),
}
const ids = v.pipe(v.array(id), v.minLength(1), v.maxLength(32))
const none = v.strictTuple([])
// Figure data is checked in depth by figureDataProblem/figureProblem; here only its outline.
const figure = v.strictTuple([v.looseObject({ view: v.picklist(['heatmap', 'local', 'comparison', 'corpus', 'forecast']) }), v.looseObject({ format: v.picklist(['png', 'svg', 'pdf']) })])

export const ARGS: Record<string, v.GenericSchema> = {
  [Channels.modelsList]: none,
  [Channels.modelsOpen]: v.strictTuple([id]),
  [Channels.modelsOpenDialog]: none,
  [Channels.modelsOpenDropped]: v.strictTuple([id]),
  [Channels.translateRun]: v.strictTuple([v.strictObject({ modelId: id, text, ...decode })]),
  [Channels.translateCancel]: none,
  [Channels.compareRun]: v.strictTuple([v.strictObject({ modelIds: ids, text })]),
  [Channels.whatIfRun]: v.strictTuple([
    v.strictObject({
      modelId: id,
      text,
      steps: v.union([v.literal('all'), v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(0))), v.maxLength(1000))]),
      mode: v.picklist(['uniform', 'onehot', 'diagonal', 'custom']),
      sourceIndex: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      weights: v.optional(v.pipe(v.array(v.number()), v.maxLength(1000))),
    }),
  ]),
  [Channels.forcedRun]: v.strictTuple([v.strictObject({ modelId: id, text, target: text })]),
  [Channels.corpusRun]: v.strictTuple([v.strictObject({ modelIds: ids })]),
  [Channels.corpusCancel]: none,
  [Channels.exportFigure]: figure,
  [Channels.exportCopy]: figure,
  [Channels.exportData]: v.strictTuple([v.pipe(v.string(), v.maxLength(200)), v.pipe(v.string(), v.maxLength(50_000_000))]),
  [Channels.appNotice]: none,
  [Channels.forecastSeries]: none,
  [Channels.forecastRun]: v.strictTuple([
    v.strictObject({
      modelId: id,
      timestamps: v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(MAX_SERIES_ROWS)),
      values: v.pipe(v.array(v.number()), v.maxLength(MAX_SERIES_ROWS)),
      origin: v.pipe(v.number(), v.integer(), v.minValue(0)),
    }),
  ]),
  [Channels.providersList]: none,
  [Channels.providersSet]: v.strictTuple([v.pipe(v.string(), v.regex(/^[a-z]{2,16}$/))]),
}

/** Throws one sentence when `args` are not what `channel` takes. */
export function checkArgs(channel: string, args: unknown[]): void {
  const schema = ARGS[channel]
  if (!schema) throw new Error(`There is no call named ${channel}.`)
  const r = v.safeParse(schema, args)
  if (!r.success) {
    const issue = r.issues[0]
    const where = issue.path?.map((p) => String(p.key)).join('.') || 'arguments'
    throw new Error(`The ${channel} call was refused: ${where}: ${issue.message}.`)
  }
}
