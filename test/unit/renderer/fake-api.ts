/// <reference types="svelte" />
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the renderer's ambient types (Vite's import.meta), as its tsconfig sees them
/// <reference path="../../../src/renderer/src/env.d.ts" />
// A LensApi whose calls wait until the test answers them, in any order, so the state classes can
// be driven through the races they guard against (a late answer to an older request, …).
import type { api as realApi } from '../../../src/renderer/src/lib/api'
import type { ForecastResult, ModelInfo, ModelSummary, SeriesData, Translation } from '../../../src/shared/api'
import { CancelledError } from '../../../src/shared/errors'
import type { ForecastWhatIfResult, SentenceScore } from '../../../src/shared/teaching'

type LensApi = typeof realApi

/** One call the fake received: its arguments, and the answer the test gives it. */
export interface Pending<T> {
  args: unknown[]
  resolve(value: T): void
  reject(error: Error): void
}

/** A call that waits for the test: every call is recorded in order and answered when told. */
export function waiting<T>() {
  const calls: Pending<T>[] = []
  const fn = (...args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      calls.push({ args, resolve, reject })
    })
  return { calls, fn }
}

/** A cancellation as every transport delivers it: an Error named CancelledError. */
export function cancelled(what = 'translation'): Error {
  return new CancelledError(`The ${what} was cancelled.`)
}

export function summary(id: string, patch: Partial<ModelSummary> = {}): ModelSummary {
  return { id, name: id, fileName: `${id}.onnx`, task: 'translation', attention: 'bahdanau', srcLang: 'en', tgtLang: 'fr', bundled: true, ...patch }
}

export function info(id: string, patch: Partial<ModelInfo> = {}): ModelInfo {
  return {
    ...summary(id),
    windowD: 0,
    srcVocabSize: 10,
    tgtVocabSize: 10,
    trainingData: '',
    licence: '',
    testScore: null,
    forecast: null,
    forecastScore: null,
    provider: 'cpu',
    providerNote: null,
    ...patch,
  }
}

/** A translation whose source tokens are the words of `text`, and as many output steps. */
export function translation(modelId: string, text: string, steps = text.split(' ').length + 1): Translation {
  const srcTokens = [...text.toLowerCase().split(' '), '</s>']
  const tgtTokens = Array.from({ length: steps }, (_, t) => (t === steps - 1 ? '</s>' : `w${t}`))
  return {
    modelId,
    source: text,
    srcTokens,
    srcUnknown: srcTokens.map(() => false),
    tgtTokens,
    text: tgtTokens.slice(0, -1).join(' '),
    attention: tgtTokens.map(() => srcTokens.map(() => 1 / srcTokens.length)),
    scores: [],
    encoderStates: [],
    align: null,
    positions: null,
    windows: null,
    gaussian: null,
    tokenLogProbs: tgtTokens.map(() => -0.1),
    alternatives: [],
    tgtUnknown: null,
    mode: 'greedy',
    beam: 1,
    logProb: -1,
    truncated: false,
    decodeMs: 1,
    provider: 'cpu',
  }
}

export function forecastResult(modelId: string, history: number, horizon: number, first: number): ForecastResult {
  return {
    modelId,
    historyTimes: Array.from({ length: history }, (_, i) => `t${i}`),
    history: Array.from({ length: history }, (_, i) => first + i),
    times: Array.from({ length: horizon }, (_, i) => `f${i}`),
    forecast: Array.from({ length: horizon }, () => first),
    actual: Array.from({ length: horizon }, () => null),
    seasonalNaive: Array.from({ length: horizon }, () => null),
    attention: [],
    scores: [],
    positions: null,
    windows: null,
    gaussian: null,
    align: null,
    mae: null,
    mape: null,
    naiveMae: null,
    naiveMape: null,
    unit: 'MW',
    periodMinutes: 30,
    seasonalLags: [],
    decodeMs: 1,
    provider: 'cpu',
  }
}

/** A regular half-hourly series of n values, 0, 1, 2, …, with the held-out part from `heldOutStart`. */
export function series(n: number, heldOutStart: number | null): SeriesData {
  const t0 = Date.UTC(2000, 7, 1)
  return {
    name: 'demand',
    timestamps: Array.from({ length: n }, (_, i) => new Date(t0 + i * 30 * 60_000).toISOString().replace('.000Z', 'Z')),
    values: Array.from({ length: n }, (_, i) => i),
    heldOutStart,
  }
}

/** The fake: the calls the state classes make wait for the test; the rest answer at once. */
export function fakeApi() {
  const openModel = waiting<ModelInfo>()
  const translate = waiting<Translation>()
  const setProvider = waiting<ModelInfo | null>()
  const forecast = waiting<ForecastResult>()
  const forecastSeries = waiting<SeriesData>()
  const forced = waiting<Translation>()
  const scoreSentence = waiting<SentenceScore>()
  const forecastWhatIf = waiting<ForecastWhatIfResult<ForecastResult>>()
  const compare = waiting<Translation[]>()
  const setModelVariant = waiting<ModelInfo>()
  const setModelLanguages = waiting<ModelInfo>()
  const openDroppedFolder = waiting<ModelInfo>()
  const statusListeners: ((s: { state: 'ready' | 'restarted'; message: string }) => void)[] = []
  let models: ModelSummary[] = []
  let cancels = 0
  const unused = () => Promise.reject(new Error('not used by the state classes'))
  const api = {
    transport: 'browser',
    listModels: async () => models,
    openModel: openModel.fn,
    openModelDialog: async () => null,
    openDroppedFile: unused,
    openDroppedFolder: openDroppedFolder.fn,
    setModelVariant: setModelVariant.fn,
    setModelLanguages: setModelLanguages.fn,
    translate: translate.fn,
    cancelTranslate: async () => {
      cancels++
    },
    compare: compare.fn,
    whatIf: unused,
    forced: forced.fn,
    scoreSentence: scoreSentence.fn,
    runCorpus: unused,
    runAlignment: unused,
    cancelAlignment: unused,
    occlusion: unused,
    runAblation: unused,
    cancelAblation: unused,
    cancelCorpus: unused,
    forecastSeries: forecastSeries.fn,
    forecast: forecast.fn,
    forecastWhatIf: forecastWhatIf.fn,
    exportFigure: unused,
    copyFigure: unused,
    saveData: unused,
    appNotice: async () => null,
    listProviders: async () => ({ providers: [], chosen: 'cpu' }),
    setProvider: setProvider.fn,
    onEngineStatus: (l: (typeof statusListeners)[number]) => {
      statusListeners.push(l)
      return () => undefined
    },
    onCorpusProgress: () => () => undefined,
    onAlignmentProgress: () => () => undefined,
    onMenuOpenModel: () => () => undefined,
  } as unknown as LensApi
  return {
    api,
    openModel: openModel.calls,
    translate: translate.calls,
    setProvider: setProvider.calls,
    forecast: forecast.calls,
    forecastSeries: forecastSeries.calls,
    forced: forced.calls,
    scoreSentence: scoreSentence.calls,
    forecastWhatIf: forecastWhatIf.calls,
    compare: compare.calls,
    setModelVariant: setModelVariant.calls,
    setModelLanguages: setModelLanguages.calls,
    openDroppedFolder: openDroppedFolder.calls,
    setModels(list: ModelSummary[]) {
      models = list
    },
    get cancels() {
      return cancels
    },
    engineRestarted(message: string) {
      for (const l of statusListeners) l({ state: 'restarted', message })
    },
  }
}

/** localStorage for a test: a Map behind the Storage methods the renderer uses. */
export function memoryStorage(): Storage {
  const m = new Map<string, string>()
  return {
    get length() {
      return m.size
    },
    clear: () => m.clear(),
    getItem: (k: string) => m.get(k) ?? null,
    key: (i: number) => [...m.keys()][i] ?? null,
    removeItem: (k: string) => void m.delete(k),
    setItem: (k: string, v: string) => void m.set(k, String(v)),
  }
}
