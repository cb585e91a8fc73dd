import { unwrap, type Envelope } from '../../../shared/errors'
import { callsOver, events, routes, type IpcBridge, type LensApi, type Subscriptions } from '../../../shared/routes'

declare global {
  interface Window {
    /** Set by the Electron preload (src/preload); absent in browser mode. */
    lensIpc?: IpcBridge
  }
}

/**
 * The Electron transport: the preload's bridge, with each envelope unwrapped here, on the page's
 * side of contextBridge, so a failed call rejects with an Error that keeps its name.
 */
export function fromBridge(bridge: IpcBridge): LensApi {
  // The bridge has one function per route method and per event method (see src/preload).
  const byMethod = bridge as unknown as Record<string, (...args: unknown[]) => Promise<Envelope<unknown>>>
  const subscriptions: Record<string, unknown> = {}
  for (const e of Object.values(events)) subscriptions[e.method] = byMethod[e.method]
  return {
    ...callsOver((channel, args) => byMethod[routes[channel].method](...args).then(unwrap)),
    ...(subscriptions as Subscriptions),
    openDroppedFile: (file) => bridge.openDroppedFile(file).then(unwrap),
    // Electron opens a folder by its path: File ▸ Open Model Folder…, or a drop (openDroppedFile).
    openDroppedFolder: () => Promise.reject(new Error('Open the folder with File ▸ Open Model Folder…, or drop it on the window.')),
    transport: 'electron',
  }
}
