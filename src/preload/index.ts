/** One function per call, typed from src/shared; no raw ipcRenderer reaches the page. */
import { contextBridge, ipcRenderer, webUtils } from 'electron'
import { Channels, type CorpusProgress, type EngineStatus, type Envelope, type LensApi } from '../shared/api'

async function invoke<T>(channel: string, ...args: unknown[]): Promise<T> {
  const r = (await ipcRenderer.invoke(channel, ...args)) as Envelope<T>
  if ('error' in r) throw new Error(r.error)
  return r.result
}

/** Subscribes to an event channel; returns the unsubscribe function. */
function on<T>(channel: string, listener: (v: T) => void): () => void {
  const l = (_e: unknown, v: T) => listener(v)
  ipcRenderer.on(channel, l)
  return () => void ipcRenderer.removeListener(channel, l)
}

const api: LensApi = {
  transport: 'electron',
  listModels: () => invoke(Channels.modelsList),
  openModel: (id) => invoke(Channels.modelsOpen, id),
  openModelDialog: () => invoke(Channels.modelsOpenDialog),
  openDroppedFile: (file) => invoke(Channels.modelsOpenDropped, webUtils.getPathForFile(file)),
  translate: (req) => invoke(Channels.translateRun, req),
  cancelTranslate: () => invoke(Channels.translateCancel),
  exportFigure: (data, spec) => invoke(Channels.exportFigure, data, spec),
  copyFigure: (data, spec) => invoke(Channels.exportCopy, data, spec),
  saveData: (name, text) => invoke(Channels.exportData, name, text),
  appNotice: () => invoke(Channels.appNotice),
  forecastSeries: () => invoke(Channels.forecastSeries),
  forecast: (req) => invoke(Channels.forecastRun, req),
  listProviders: () => invoke(Channels.providersList),
  setProvider: (name) => invoke(Channels.providersSet, name),
  compare: (req) => invoke(Channels.compareRun, req),
  whatIf: (req) => invoke(Channels.whatIfRun, req),
  forced: (req) => invoke(Channels.forcedRun, req),
  runCorpus: (req) => invoke(Channels.corpusRun, req),
  cancelCorpus: () => invoke(Channels.corpusCancel),
  onEngineStatus: (listener) => on<EngineStatus>(Channels.engineStatus, listener),
  onCorpusProgress: (listener) => on<CorpusProgress>(Channels.corpusProgress, listener),
  onMenuOpenModel: (listener) => on<void>(Channels.menuOpenModel, listener),
}

contextBridge.exposeInMainWorld('lensApi', api)
