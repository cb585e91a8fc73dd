/** One function per call, typed from src/shared; no raw ipcRenderer reaches the page. */
import { contextBridge, ipcRenderer, webUtils } from 'electron'
import { Channels, type EngineStatus, type Envelope, type LensApi } from '../shared/api'

async function invoke<T>(channel: string, ...args: unknown[]): Promise<T> {
  const r = (await ipcRenderer.invoke(channel, ...args)) as Envelope<T>
  if ('error' in r) throw new Error(r.error)
  return r.result
}

const api: LensApi = {
  transport: 'electron',
  listModels: () => invoke(Channels.modelsList),
  openModel: (id) => invoke(Channels.modelsOpen, id),
  openModelDialog: () => invoke(Channels.modelsOpenDialog),
  openDroppedFile: (file) => invoke(Channels.modelsOpenDropped, webUtils.getPathForFile(file)),
  translate: (req) => invoke(Channels.translateRun, req),
  listProviders: () => invoke(Channels.providersList),
  setProvider: (name) => invoke(Channels.providersSet, name),
  onEngineStatus: (listener) => {
    const l = (_e: unknown, s: EngineStatus) => listener(s)
    ipcRenderer.on(Channels.engineStatus, l)
    return () => void ipcRenderer.removeListener(Channels.engineStatus, l)
  },
  onMenuOpenModel: (listener) => {
    const l = () => listener()
    ipcRenderer.on(Channels.menuOpenModel, l)
    return () => void ipcRenderer.removeListener(Channels.menuOpenModel, l)
  },
}

contextBridge.exposeInMainWorld('lensApi', api)
