/**
 * The one route table: every call the renderer can make, by channel (`domain:action`), with the
 * valibot schema its arguments must pass where the call arrives (Electron main, the browser-mode
 * server) and the type it answers. The preload, the HTTP client, Electron main and browser mode
 * all read this table, so adding a call is one entry here and one handler in src/host/handlers.ts.
 */
import { DTYPE, LANGUAGE_CODE } from './model-id'
import * as v from 'valibot'
import type {
  CorpusProgress,
  CorpusResult,
  EngineStatus,
  ForecastResult,
  ModelInfo,
  ModelSummary,
  ProviderInfo,
  SeriesData,
  Translation,
  WhatIfResult,
} from './api'
import type { AblationTable, AlignmentBoard, AlignmentProgress, OcclusionResult } from './alignment'
import type { ContributionsResult } from './contributions'
import type { ExampleList, ForecastWhatIfResult, SentenceScore } from './teaching'
import { RefusedError, type Envelope } from './errors'
import { FigureArgs } from './figure'
import { AnimationArgs, type AnimationProgress } from './animation'
import { MAX_SERIES_ROWS } from './series'
import { MAX_GUARD_SETTING } from './repeat-guard'
import type { UploadProgress } from './upload-progress'

type Args = v.GenericSchema<unknown[]>

/** One call: the renderer-facing method name, its argument schema and (as a type only) its result. */
export interface Route<M extends string = string, A extends Args = Args, R = unknown> {
  method: M
  args: A
  /** Never set: carries the result type. */
  result?: () => R
}

/** `call<Result>()(method, argsSchema)`: the result is named, the rest is inferred. */
function call<R>() {
  return <const M extends string, A extends Args>(method: M, args: A): Route<M, A, R> => ({ method, args })
}

/** One event the host pushes to the page: its subscribe method and (as a type only) its payload. */
export interface EventRoute<M extends string = string, P = unknown> {
  method: M
  payload?: () => P
}

function event<P>() {
  return <const M extends string>(method: M): EventRoute<M, P> => ({ method })
}

const id = v.pipe(v.string(), v.maxLength(4096))
const text = v.pipe(v.string(), v.maxLength(100_000))
const decode = {
  beam: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(16))),
  lengthPenalty: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(3))),
  topK: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20))),
  encoderStates: v.optional(v.boolean()),
}
/** The repeat guards (src/shared/repeat-guard.ts): each a whole number, 0 = off, absent = the default. */
const guardSetting = v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_GUARD_SETTING)))
const guard = { noRepeatNgram: guardSetting, maxRepeat: guardSetting }
const ids = v.pipe(v.array(id), v.minLength(1), v.maxLength(32))
const none = v.strictTuple([])
/** The largest file the window hands over to be saved (a video). */
const MAX_SAVED_BYTES = 1024 ** 3
/** A test-set file the user picked: its name and its text, one sentence per line. */
const testFile = v.strictObject({ name: v.pipe(v.string(), v.maxLength(255)), text: v.pipe(v.string(), v.maxLength(50_000_000)) })

// The figure's data and spec, checked in full by their one schema (src/shared/figure.ts).
const figure = FigureArgs

export const routes = {
  'models:list': call<ModelSummary[]>()('listModels', none),
  'models:open': call<ModelInfo>()('openModel', v.strictTuple([id])),
  /** File ▸ Open: null when the user cancels (always null in browser mode, which uses a file input). */
  'models:open-dialog': call<ModelInfo | null>()('openModelDialog', none),
  /** Electron: the path of a dropped file, from the preload's webUtils.getPathForFile. Browser mode takes an upload instead. */
  'models:open-dropped': call<ModelInfo>()('openDroppedFile', v.strictTuple([id])),
  /** File ▸ Open Folder…: a Hugging Face model folder (Electron's folder dialog); null when cancelled or in browser mode. */
  'models:open-folder-dialog': call<ModelInfo | null>()('openModelFolderDialog', none),
  /**
   * Browser mode: one file of a dropped or picked folder per call (src/web/server.ts); the model
   * once the last file is in, null before. Electron opens a dropped folder by its path instead.
   */
  'models:open-dropped-folder': call<ModelInfo | null>()('openDroppedFolder', v.strictTuple([id])),
  /** A multilingual model (ModelInfo.languages): the open model again, translating from one of its languages into another. */
  'models:set-languages': call<ModelInfo>()(
    'setModelLanguages',
    v.strictTuple([v.pipe(v.string(), v.regex(LANGUAGE_CODE)), v.pipe(v.string(), v.regex(LANGUAGE_CODE))]),
  ),
  /** A Hugging Face folder with several precisions (ModelInfo.variants): the open folder again in another one, remembered for the folder. */
  'models:set-variant': call<ModelInfo>()('setModelVariant', v.strictTuple([v.pipe(v.string(), v.regex(DTYPE))])),
  'translate:run': call<Translation>()('translate', v.strictTuple([v.strictObject({ modelId: id, text, ...decode, ...guard })])),
  /** Stops the translation in progress; its call then fails with a CancelledError. */
  'translate:cancel': call<void>()('cancelTranslate', none),
  /** The same source through several models (with / without attention). */
  'compare:run': call<Translation[]>()('compare', v.strictTuple([v.strictObject({ modelIds: ids, text, ...guard })])),
  'whatif:run': call<WhatIfResult>()(
    'whatIf',
    v.strictTuple([
      v.strictObject({
        modelId: id,
        text,
        steps: v.union([v.literal('all'), v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(0))), v.maxLength(1000))]),
        mode: v.picklist(['uniform', 'onehot', 'diagonal', 'custom', 'silence']),
        sourceIndex: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
        weights: v.optional(v.pipe(v.array(v.number()), v.maxLength(1000))),
        head: v.optional(
          v.strictObject({
            layer: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(63)),
            head: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(63)),
          }),
        ),
        beam: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(16))),
        ...guard,
      }),
    ]),
  ),
  'forced:run': call<Translation>()('forced', v.strictTuple([v.strictObject({ modelId: id, text, target: text })])),
  /** Sentence BLEU and chrF of a hypothesis against a reference (sacreBLEU's definitions). */
  'score:sentence': call<SentenceScore>()('scoreSentence', v.strictTuple([v.strictObject({ hypothesis: text, reference: text })])),
  /** Example sentences (with references) from the bundled test set of a language pair. */
  'examples:list': call<ExampleList>()(
    'listExamples',
    v.strictTuple([
      v.strictObject({
        pair: v.pipe(v.string(), v.regex(/^[a-z]{2,3}-[a-z]{2,3}$/)),
        search: v.optional(v.pipe(v.string(), v.maxLength(200))),
        minLength: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000))),
        maxLength: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000))),
        random: v.optional(v.boolean()),
        seed: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
        limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50))),
      }),
    ]),
  ),
  /**
   * One sentence through several models or decodings (side by side), each run to the end: unlike
   * translate:run, a call does not stop the one before it.
   */
  'translate:each': call<Translation[]>()(
    'translateEach',
    v.strictTuple([
      v.strictObject({ text, runs: v.pipe(v.array(v.strictObject({ modelId: id, beam: decode.beam, ...guard })), v.minLength(1), v.maxLength(4)) }),
    ]),
  ),
  /** Scores models on the user's test set (source and reference text), or on their language pair's bundled one; progress comes as corpus:progress events. */
  'corpus:run': call<CorpusResult>()(
    'runCorpus',
    v.strictTuple([v.strictObject({ modelIds: ids, source: v.optional(testFile), reference: v.optional(testFile) })]),
  ),
  'corpus:cancel': call<void>()('cancelCorpus', none),
  /** The Alignment panel: a gold set (`src-tgt` pairs and 1-based links) against the chosen models, the statistical aligner and awesome-align's file; alignment:cancel stops it. */
  'alignment:run': call<AlignmentBoard>()(
    'runAlignment',
    v.strictTuple([v.strictObject({ modelIds: ids, pairs: testFile, gold: testFile, awesome: v.optional(testFile) })]),
  ),
  /** Stops this client's alignment run; its call then fails with a CancelledError. */
  'alignment:cancel': call<void>()('cancelAlignment', none),
  /** Corpus attention ablation (own, uniform, permuted attention) on the first `limit` sentences of the user's test set or the bundled one; progress comes as alignment:progress events, ablation:cancel stops it. */
  'ablation:run': call<AblationTable>()(
    'runAblation',
    v.strictTuple([
      v.strictObject({
        modelIds: ids,
        limit: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000)),
        source: v.optional(testFile),
        reference: v.optional(testFile),
      }),
    ]),
  ),
  'ablation:cancel': call<void>()('cancelAblation', none),
  /** Leave-one-word-out importance of one sentence beside its attention. */
  'occlusion:run': call<OcclusionResult>()('occlusion', v.strictTuple([v.strictObject({ modelId: id, text })])),
  /**
   * Every contribution method (issue 41) for one sentence: `pieces` (the output on show) forced
   * through, or the greedy output; a ContributionsNotOfferedError says why a model has none. The
   * same client's next request, or contributions:cancel, stops it (a CancelledError).
   */
  'contributions:run': call<ContributionsResult>()(
    'contributions',
    v.strictTuple([v.strictObject({ modelId: id, text, pieces: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(1000))), v.maxLength(2048))) })]),
  ),
  'contributions:cancel': call<void>()('cancelContributions', none),
  /** Renders a figure and saves it (a save dialog); null when cancelled. Browser mode answers the figure's bytes instead. */
  'export:figure': call<string | null>()('exportFigure', figure),
  /** Renders the figure as PNG onto the clipboard. */
  'export:copy': call<void>()('copyFigure', figure),
  /** Renders an animated GIF or APNG of a view over its decoder steps and saves it; null when cancelled. Browser mode answers the file's bytes. */
  'export:animation': call<string | null>()('exportAnimation', AnimationArgs),
  /** The animation's bytes, not saved: the window encodes the APNG as a video (MP4 or WebM) with WebCodecs. */
  'export:animation-bytes': call<Uint8Array>()('animationBytes', AnimationArgs),
  /** Stops this client's animation in progress (progress comes as export:progress events); its call fails with a CancelledError. */
  'export:cancel': call<void>()('cancelExport', none),
  /** Saves a file the window made (a video) under a suggested name; null when cancelled. Browser mode downloads it in the page. */
  'export:bytes': call<string | null>()(
    'saveBytes',
    v.strictTuple([
      v.pipe(v.string(), v.maxLength(200)),
      v.pipe(
        v.instance(Uint8Array),
        v.check((b) => b.byteLength <= MAX_SAVED_BYTES, 'must be at most 1 GB'),
      ),
    ]),
  ),
  /** Saves text (the matrix as CSV or JSON) under a suggested name; null when cancelled. */
  'export:data': call<string | null>()('saveData', v.strictTuple([v.pipe(v.string(), v.maxLength(200)), v.pipe(v.string(), v.maxLength(50_000_000))])),
  /** A one-time notice from start-up (a damaged settings file set aside), or null. */
  'app:notice': call<string | null>()('appNotice', none),
  /** The bundled series (the held-out weeks of the Taylor data, with their history). */
  'forecast:series': call<SeriesData>()('forecastSeries', none),
  'forecast:run': call<ForecastResult>()(
    'forecast',
    v.strictTuple([
      v.strictObject({
        modelId: id,
        timestamps: v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(MAX_SERIES_ROWS)),
        values: v.pipe(v.array(v.number()), v.maxLength(MAX_SERIES_ROWS)),
        origin: v.pipe(v.number(), v.integer(), v.minValue(0)),
      }),
    ]),
  ),
  /** A forecast again with the attention overridden at one step or all (uniform, one lag, or weights at lags). */
  'forecast:whatif': call<ForecastWhatIfResult<ForecastResult>>()(
    'forecastWhatIf',
    v.strictTuple([
      v.strictObject({
        modelId: id,
        timestamps: v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(MAX_SERIES_ROWS)),
        values: v.pipe(v.array(v.number()), v.maxLength(MAX_SERIES_ROWS)),
        origin: v.pipe(v.number(), v.integer(), v.minValue(0)),
        steps: v.union([v.literal('all'), v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(0))), v.maxLength(1000))]),
        mode: v.picklist(['uniform', 'onehot', 'custom']),
        lag: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
        lags: v.optional(
          v.pipe(
            v.array(v.strictObject({ lag: v.pipe(v.number(), v.integer(), v.minValue(1)), weight: v.pipe(v.number(), v.minValue(0)) })),
            v.maxLength(1000),
          ),
        ),
      }),
    ]),
  ),
  /** Execution providers this machine offers, and the one chosen. */
  'providers:list': call<{ providers: ProviderInfo[]; chosen: string }>()('listProviders', none),
  /** Choose a provider (remembered); the open model reopens on it and the result says what runs. */
  'providers:set': call<ModelInfo | null>()('setProvider', v.strictTuple([v.pipe(v.string(), v.regex(/^[a-z]{2,16}$/))])),
} satisfies Record<string, Route>

/** Events the host pushes; each method subscribes and returns its unsubscribe function. */
export const events = {
  /** Engine crashes and restarts. */
  'engine:status': event<EngineStatus>()('onEngineStatus'),
  'corpus:progress': event<CorpusProgress>()('onCorpusProgress'),
  /** The alignment scoreboard's and the ablation's progress. */
  'alignment:progress': event<AlignmentProgress>()('onAlignmentProgress'),
  /** An animated export's frames drawn (export:animation, export:animation-bytes). */
  'export:progress': event<AnimationProgress>()('onExportProgress'),
  /** File ▸ Open from the application menu (Electron only). */
  'menu:open-model': event<void>()('onMenuOpenModel'),
  'menu:open-model-folder': event<void>()('onMenuOpenModelFolder'),
} satisfies Record<string, EventRoute>

export type Routes = typeof routes
export type Channel = keyof Routes
export type Events = typeof events
export type EventChannel = keyof Events

/** The arguments as the caller writes them, and as the handler receives them once checked. */
export type ArgsIn<C extends Channel> = v.InferInput<Routes[C]['args']>
export type ArgsOut<C extends Channel> = v.InferOutput<Routes[C]['args']>
export type Result<C extends Channel> = ReturnType<NonNullable<Routes[C]['result']>>
export type Payload<E extends EventChannel> = ReturnType<NonNullable<Events[E]['payload']>>

/** One handler per channel, its arguments typed from the schema. */
export type Handlers = { [C in Channel]: (...args: ArgsOut<C>) => Promise<Result<C>> }

/** The calls as the renderer sees them: one method per route. */
export type Calls = { [C in Channel as Routes[C]['method']]: (...args: ArgsIn<C>) => Promise<Result<C>> }
export type Subscriptions = { [E in EventChannel as Events[E]['method']]: (listener: (payload: Payload<E>) => void) => () => void }

/** What the renderer can call; built from the table by the Electron bridge and the HTTP client. */
export type LensApi = Omit<Calls, 'openDroppedFile' | 'openDroppedFolder'> &
  Subscriptions & {
    /** A file dropped on the window (or picked with the file input); in Electron a dropped folder too. */
    openDroppedFile(file: File): Promise<ModelInfo>
    /**
     * Browser mode: a folder's files (picked or dropped), each with its path inside the folder; the
     * bytes sent reported as they go up. `dtype`: the precision to send (default: the most precise).
     */
    openDroppedFolder(files: FolderFile[], onProgress?: (p: UploadProgress) => void, dtype?: string): Promise<ModelInfo>
    /** 'electron' or 'browser': the renderer hides what a transport cannot do. */
    readonly transport: 'electron' | 'browser'
  }

/**
 * What the Electron preload exposes as `window.lensIpc`: the same methods, each answering its
 * envelope, because an Error crossing contextBridge keeps only its message.
 */
export type IpcBridge = {
  [C in Exclude<Channel, 'models:open-dropped' | 'models:open-dropped-folder'> as Routes[C]['method']]: (...args: ArgsIn<C>) => Promise<Envelope<Result<C>>>
} & Subscriptions & { openDroppedFile(file: File): Promise<Envelope<ModelInfo>> }

/** A file of a folder the page sends up: its path inside the folder ("opus-mt-en-fr/onnx/encoder_model.onnx"). */
export interface FolderFile {
  path: string
  file: File
}

export function isChannel(name: string): name is Channel {
  return Object.hasOwn(routes, name)
}

/** The checked arguments of a call, or a RefusedError saying in one sentence what is wrong. */
export function parseArgs<C extends Channel>(channel: C, args: unknown): ArgsOut<C> {
  // The first issue is all a refusal reports: a matrix full of NaN stops at its first value.
  const r = v.safeParse(routes[channel].args, args, { abortEarly: true })
  if (r.success) return r.output
  const issue = r.issues[0]
  const where = issue.path?.map((p) => String(p.key)).join('.') || 'arguments'
  throw new RefusedError(`The ${channel} call was refused: ${where}: ${issue.message}.`, { channel, where })
}

/** Checks a call by name and runs its handler: where every transport hands a call over. */
export function dispatch(handlers: Handlers, channel: string, args: unknown): Promise<unknown> {
  if (!isChannel(channel)) return Promise.reject(new RefusedError(`There is no call named ${channel}.`, { channel }))
  return run(handlers, channel, args)
}

async function run<C extends Channel>(handlers: Handlers, channel: C, raw: unknown): Promise<Result<C>> {
  const args = parseArgs(channel, raw)
  const handler: Handlers[C] = handlers[channel]
  return handler(...args)
}

/**
 * The renderer's calls over a transport: `send` carries one call and answers its result or throws
 * its decoded error. Built from the table, so a new route needs no client code.
 */
export function callsOver(send: (channel: Channel, args: unknown[]) => Promise<unknown>): Calls {
  const calls: Record<string, (...args: unknown[]) => Promise<unknown>> = {}
  for (const channel of Object.keys(routes) as Channel[]) calls[routes[channel].method] = (...args) => send(channel, args)
  // The loop above makes exactly the methods Calls lists, from the same table.
  return calls as Calls
}
