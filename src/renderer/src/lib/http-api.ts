import { Channels, type CorpusProgress, type EngineStatus, type Envelope, type LensApi } from '../../../shared/api'
import { figureFileName, type FigureData, type FigureSpec } from '../../../shared/figure'

/** The browser-mode transport: the same API as the preload, over HTTP to 127.0.0.1. */
export function createHttpApi(): LensApi {
  const token = document.querySelector<HTMLMetaElement>('meta[name="al-token"]')?.content ?? ''

  async function call<T>(channel: string, init: RequestInit): Promise<T> {
    const res = await fetch(`/api/${channel}`, {
      method: 'POST',
      ...init,
      headers: { 'x-al-token': token, ...(init.headers ?? {}) },
    })
    const env = (await res.json()) as Envelope<T>
    if ('error' in env) throw new Error(env.error)
    return env.result
  }
  const invoke = <T>(channel: string, ...args: unknown[]) =>
    call<T>(channel, { body: JSON.stringify(args), headers: { 'content-type': 'application/json' } })

  async function figure(data: FigureData, spec: FigureSpec): Promise<Blob> {
    const res = await fetch(`/api/${Channels.exportFigure}`, {
      method: 'POST',
      headers: { 'x-al-token': token, 'content-type': 'application/json' },
      body: JSON.stringify([data, spec]),
    })
    if (!res.ok) throw new Error(((await res.json()) as { error: string }).error)
    return res.blob()
  }

  function download(name: string, blob: Blob): void {
    const a = document.createElement('a')
    a.href = URL.createObjectURL(blob)
    a.download = name
    a.click()
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000)
  }

  // One event stream for every event channel, opened on first use.
  let source: EventSource | null = null
  function subscribe<T>(channel: string, listener: (v: T) => void): () => void {
    source ??= new EventSource(`/api/events?token=${token}`)
    const l = (e: MessageEvent) => listener(JSON.parse(e.data as string) as T)
    source.addEventListener(channel, l as EventListener)
    return () => source?.removeEventListener(channel, l as EventListener)
  }

  return {
    transport: 'browser',
    listModels: () => invoke(Channels.modelsList),
    openModel: (id) => invoke(Channels.modelsOpen, id),
    openModelDialog: async () => null, // browser mode opens files through an <input type=file>
    openDroppedFile: (file) =>
      call(Channels.modelsOpenDropped, { body: file, headers: { 'x-file-name': encodeURIComponent(file.name) } }),
    translate: (req) => invoke(Channels.translateRun, req),
    cancelTranslate: () => invoke(Channels.translateCancel),
    exportFigure: async (data, spec) => {
      const name = figureFileName(data.view, spec.format)
      download(name, await figure(data, spec))
      return name
    },
    copyFigure: async (data, spec) => {
      const png = await figure(data, { ...spec, format: 'png' })
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': png })])
    },
    saveData: async (name, text) => {
      download(name, new Blob([text], { type: name.endsWith('.json') ? 'application/json' : 'text/csv' }))
      return name
    },
    appNotice: () => invoke(Channels.appNotice),
    forecastSeries: () => invoke(Channels.forecastSeries),
    forecast: (req) => invoke(Channels.forecastRun, req),
    listProviders: () => invoke(Channels.providersList),
    setProvider: (name) => invoke(Channels.providersSet, name),
    onEngineStatus: (listener) => subscribe<EngineStatus>(Channels.engineStatus, listener),
    onCorpusProgress: (listener) => subscribe<CorpusProgress>(Channels.corpusProgress, listener),
    compare: (req) => invoke(Channels.compareRun, req),
    whatIf: (req) => invoke(Channels.whatIfRun, req),
    forced: (req) => invoke(Channels.forcedRun, req),
    runCorpus: (req) => invoke(Channels.corpusRun, req),
    cancelCorpus: () => invoke(Channels.corpusCancel),
    onMenuOpenModel: () => () => undefined,
  }
}
