/** Electron main: window, menu, dialogs and IPC wiring. The work happens in LensHost and the engine. */
import { app, BrowserWindow, clipboard, ClipboardItem, dialog, ipcMain, Menu, session, utilityProcess, type IpcMainInvokeEvent } from 'electron'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { encodeError, envelope, LensError } from '../shared/errors'
import { dispatch, routes, type EventChannel, type Handlers, type Payload } from '../shared/routes'
import { withSuffix } from '../shared/figure'
import { writeAtomic } from '../host/export/atomic'
import { EngineClient, type EngineChannel } from '../host/engine-client'
import { engineEnv } from '../host/engine-env'
import { forwardEvents, lensHandlers, type Caller, type Transport } from '../host/handlers'
import type { EngineRequest, EngineResponse } from '../engine/protocol'
import { LensHost } from '../host/lens-host'
import { appPaths } from '../host/paths'
import { SettingsStore } from '../host/settings-store'

function utilityEngine(): EngineChannel {
  const child = utilityProcess.fork(join(__dirname, 'engine.js'), [], { serviceName: 'Attention Lens engine', env: engineEnv() })
  return {
    post: (msg: EngineRequest) => child.postMessage(msg),
    onMessage: (l) => child.on('message', (m) => l(m as EngineResponse)),
    onExit: (l) => child.on('exit', (code) => l(`exit code ${code}`)),
    kill: () => void child.kill(),
  }
}

/** The page the app's windows load: the built renderer, or electron-vite's dev server. */
function rendererUrl(): string {
  return process.env.ELECTRON_RENDERER_URL ?? pathToFileURL(join(__dirname, '../renderer/index.html')).href
}

/**
 * Whether an IPC call comes from the app itself: the main frame of one of its own windows, showing
 * its own page. A frame inside the page, or a window navigated elsewhere, gets no answer.
 */
export function isAppSender(e: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>, windows: () => BrowserWindow[]): boolean {
  const frame = e.senderFrame
  if (!frame || frame !== e.sender.mainFrame) return false
  if (!windows().some((w) => w.webContents === e.sender)) return false
  const page = new URL(rendererUrl())
  let from: URL
  try {
    from = new URL(frame.url)
  } catch {
    return false
  }
  return page.protocol === 'file:' ? from.href.split(/[?#]/)[0] === page.href : from.origin === page.origin
}

/**
 * Every route on ipcMain.handle, answering {result} or {error}: a sender that is not the app's own
 * window is refused, the arguments are checked, and the window is the caller (its id keys "the
 * latest translation wins", so two windows never cancel each other's work).
 */
export function registerRoutes(handlers: (caller: Caller) => Handlers, windows: () => BrowserWindow[] = () => BrowserWindow.getAllWindows()): void {
  for (const channel of Object.keys(routes)) {
    ipcMain.handle(channel, (e, ...args: unknown[]) => {
      if (!isAppSender(e, windows)) {
        return { error: encodeError(new LensError(`The ${channel} call came from outside the app's window.`, { name: 'ForbiddenError', code: 'forbidden' })) }
      }
      return envelope(() => dispatch(handlers({ client: `window:${e.sender.id}` }), channel, args))
    })
  }
}

export function createWindow(): BrowserWindow {
  // The options stay a literal inside `new BrowserWindow(…)`: electronegativity (run by the tests)
  // reads them there, and cannot follow them through a helper.
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'Attention Lens',
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      // A middle click must not open a link in a new window.
      disableBlinkFeatures: 'Auxclick',
    },
  })
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
  win.webContents.on('will-navigate', (e) => e.preventDefault())
  if (process.env.ELECTRON_RENDERER_URL) void win.loadURL(process.env.ELECTRON_RENDERER_URL)
  else void win.loadFile(join(__dirname, '../renderer/index.html'))
  return win
}

/** The page needs no permission (camera, notifications, …): the clipboard and files go through main. */
export function refusePermissions(): void {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  session.defaultSession.setPermissionCheckHandler(() => false)
}

/** Dialogs and the clipboard, parented to the window `win()` returns. */
export function electronTransport(win: () => BrowserWindow | null): Transport {
  const parent = () => win() ?? undefined
  /** The save dialog for a suggested name, filtered to its extension: the path chosen, or null. */
  async function savePath(name: string): Promise<string | null> {
    const ext = name.split('.').pop() ?? ''
    const options = { defaultPath: name, filters: [{ name: ext.toUpperCase(), extensions: [ext] }] }
    const w = parent()
    const r = w ? await dialog.showSaveDialog(w, options) : await dialog.showSaveDialog(options)
    return r.canceled || !r.filePath ? null : r.filePath
  }
  return {
    pickModel: async (folder = false) => {
      // A Hugging Face folder (Optimum's or transformers.js's layout) opens as a folder: Windows and Linux dialogs pick files or folders, not both.
      const options = folder
        ? { title: 'Open a Hugging Face model folder', properties: ['openDirectory' as const] }
        : { title: 'Open a model', filters: [{ name: 'ONNX models', extensions: ['onnx'] }], properties: ['openFile' as const] }
      const w = parent()
      const r = w ? await dialog.showOpenDialog(w, options) : await dialog.showOpenDialog(options)
      return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0]
    },
    save: async (name, content) => {
      const path = await savePath(name)
      if (path) await writeAtomic(path, content)
      return path
    },
    saveParts: async (name, parts) => {
      const path = await savePath(name)
      if (!path) return null
      const paths = parts.map((p) => withSuffix(path, p.suffix))
      for (const [i, p] of parts.entries()) await writeAtomic(paths[i], p.bytes)
      return paths
    },
    copyPng: async (png) => {
      await clipboard.write([new ClipboardItem({ 'image/png': new Blob([new Uint8Array(png)], { type: 'image/png' }) })])
    },
  }
}

export function applicationMenu(send: (channel: EventChannel) => void): Menu {
  return Menu.buildFromTemplate([
    {
      label: 'File',
      submenu: [
        { label: 'Open Model…', accelerator: 'CmdOrCtrl+O', click: () => send('menu:open-model') },
        { label: 'Open Model Folder…', accelerator: 'CmdOrCtrl+Shift+O', click: () => send('menu:open-model-folder') },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
  ])
}

export async function start(): Promise<void> {
  app.on('window-all-closed', () => process.platform !== 'darwin' && app.quit())
  await app.whenReady()
  refusePermissions()
  const paths = appPaths()
  const resources = (dir: string, dev: string) => (app.isPackaged ? join(process.resourcesPath, dir) : dev)
  const engine = new EngineClient(utilityEngine)
  const host = new LensHost(
    engine,
    {
      models: resources('models', paths.models),
      testsets: resources('testsets', paths.testsets),
      series: resources('series', paths.series),
      cache: join(app.getPath('userData'), 'eval-cache'),
    },
    new SettingsStore(join(app.getPath('userData'), 'settings.json')),
  )
  let win: BrowserWindow | null = null
  const send = <E extends EventChannel>(channel: E, payload?: Payload<E>) => win?.webContents.send(channel, payload)
  registerRoutes(
    lensHandlers(
      host,
      electronTransport(() => win),
    ),
  )
  forwardEvents(host, send)
  Menu.setApplicationMenu(applicationMenu(send))
  win = createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) win = createWindow()
  })
  app.on('before-quit', () => engine.dispose())
}

void start()
