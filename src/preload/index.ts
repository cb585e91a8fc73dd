/**
 * One function per route of src/shared/routes.ts, and one subscribe function per event; no raw
 * ipcRenderer reaches the page. Calls answer the {result}/{error} envelope as plain data: an Error
 * crossing contextBridge keeps only its message (electron/electron#25596), so the page decodes the
 * error itself (src/renderer/src/lib/ipc-api.ts) and gets its name back.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import type { Envelope } from '../shared/errors'
import { events, routes, type Channel, type IpcBridge } from '../shared/routes'

const DROPPED: Channel = 'models:open-dropped'

function bridge(): IpcBridge {
  const calls: Record<string, unknown> = {}
  for (const [channel, route] of Object.entries(routes)) {
    calls[route.method] = (...args: unknown[]): Promise<Envelope<unknown>> => ipcRenderer.invoke(channel, ...args)
  }
  for (const [channel, e] of Object.entries(events)) {
    calls[e.method] = (listener: (payload: unknown) => void) => {
      const l = (_e: IpcRendererEvent, payload: unknown) => listener(payload)
      ipcRenderer.on(channel, l)
      return () => void ipcRenderer.removeListener(channel, l)
    }
  }
  // The page has no paths: the preload turns a dropped File into its path here.
  calls.openDroppedFile = (file: File) => ipcRenderer.invoke(DROPPED, webUtils.getPathForFile(file))
  // Built from the same tables IpcBridge is typed from.
  return calls as IpcBridge
}

contextBridge.exposeInMainWorld('lensIpc', bridge())
