/** Electron main: window, menu, dialogs and IPC wiring. The work happens in LensHost and the engine. */
import { app, BrowserWindow, clipboard, ClipboardItem, dialog, ipcMain, Menu, session, utilityProcess, type IpcMainInvokeEvent } from 'electron'
import { join } from 'node:path'
import { Channels, type Envelope } from '../shared/api'
import { figureFileName, type FigureData, type FigureSpec } from '../shared/figure'
import { checkArgs } from '../shared/validate'
import { writeAtomic } from '../host/export/atomic'
import { EngineClient, type EngineChannel } from '../host/engine-client'
import type { EngineRequest, EngineResponse } from '../engine/protocol'
import { LensHost } from '../host/lens-host'
import { appPaths } from '../host/paths'
import { SettingsStore } from '../host/settings-store'

function utilityEngine(): EngineChannel {
  const child = utilityProcess.fork(join(__dirname, 'engine.js'), [], { serviceName: 'Attention Lens engine' })
  return {
    post: (msg: EngineRequest) => child.postMessage(msg),
    onMessage: (l) => child.on('message', (m) => l(m as EngineResponse)),
    onExit: (l) => child.on('exit', (code) => l(`exit code ${code}`)),
    kill: () => void child.kill(),
  }
}

/** ipcMain.handle that answers {result} or {error}; the preload turns {error} back into an Error. */
function handle<A extends unknown[]>(channel: string, fn: (e: IpcMainInvokeEvent, ...args: A) => Promise<unknown>): void {
  ipcMain.handle(channel, async (e, ...args): Promise<Envelope<unknown>> => {
    try {
      checkArgs(channel, args)
      return { result: await fn(e, ...(args as A)) }
    } catch (err) {
      return { error: (err as Error).message }
    }
  })
}

let win: BrowserWindow | null = null

function createWindow(): void {
  win = new BrowserWindow({
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
}

async function saveDialog(name: string): Promise<string | null> {
  const ext = name.split('.').pop() ?? ''
  const r = await dialog.showSaveDialog(win!, { defaultPath: name, filters: [{ name: ext.toUpperCase(), extensions: [ext] }] })
  return r.canceled || !r.filePath ? null : r.filePath
}

async function openDialog(): Promise<string | null> {
  const r = await dialog.showOpenDialog(win!, {
    title: 'Open a model',
    filters: [{ name: 'ONNX models', extensions: ['onnx'] }],
    properties: ['openFile'],
  })
  return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0]
}

app.whenReady().then(() => {
  // The page needs no permission (camera, notifications, …): the clipboard and files go through main.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  session.defaultSession.setPermissionCheckHandler(() => false)
  const paths = appPaths()
  const modelsDir = app.isPackaged ? join(process.resourcesPath, 'models') : paths.models
  const engine = new EngineClient(utilityEngine)
  const testsets = app.isPackaged ? join(process.resourcesPath, 'testsets') : paths.testsets
  const series = app.isPackaged ? join(process.resourcesPath, 'series') : paths.series
  const host = new LensHost(
    engine,
    { models: modelsDir, testsets, series, cache: join(app.getPath('userData'), 'eval-cache') },
    new SettingsStore(join(app.getPath('userData'), 'settings.json')),
  )

  handle(Channels.modelsList, () => host.listModels())
  handle(Channels.modelsOpen, (_e, id: string) => host.openModel(String(id)))
  handle(Channels.modelsOpenDialog, async () => {
    const path = await openDialog()
    return path ? host.openPath(path) : null
  })
  // The path comes from the preload's webUtils.getPathForFile on a real drop, never typed in.
  handle(Channels.modelsOpenDropped, (_e, path: string) => host.openPath(String(path)))
  handle(Channels.translateRun, (_e, req) => host.translate(req as never))
  handle(Channels.translateCancel, () => host.cancelTranslate())
  handle(Channels.compareRun, (_e, req) => host.compare(req as never))
  handle(Channels.whatIfRun, (_e, req) => host.whatIf(req as never))
  handle(Channels.forcedRun, (_e, req) => host.forced(req as never))
  handle(Channels.corpusRun, (_e, req) => host.runCorpus(req as never))
  handle(Channels.corpusCancel, () => host.cancelCorpus())
  handle(Channels.exportFigure, async (_e, data: FigureData, spec: FigureSpec) => {
    const bytes = await host.renderFigure(data, spec)
    const path = await saveDialog(figureFileName(String(data?.view), String(spec?.format)))
    if (path) await writeAtomic(path, bytes)
    return path
  })
  handle(Channels.exportCopy, async (_e, data: FigureData, spec: FigureSpec) => {
    const png = await host.renderFigure(data, { ...spec, format: 'png' })
    await clipboard.write([new ClipboardItem({ 'image/png': new Blob([new Uint8Array(png)], { type: 'image/png' }) })])
  })
  handle(Channels.exportData, async (_e, name: string, text: string) => {
    const path = await saveDialog(String(name).replace(/[^\w.-]/g, '_'))
    if (path) await writeAtomic(path, String(text))
    return path
  })
  handle(Channels.appNotice, () => host.takeNotice())
  handle(Channels.forecastSeries, () => host.forecastSeries())
  handle(Channels.forecastRun, (_e, req) => host.forecast(req as never))
  handle(Channels.providersList, () => host.listProviders())
  handle(Channels.providersSet, (_e, name: string) => host.setProvider(String(name)))
  host.onEngineStatus((s) => win?.webContents.send(Channels.engineStatus, s))
  host.onCorpusProgress((p) => win?.webContents.send(Channels.corpusProgress, p))

  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      {
        label: 'File',
        submenu: [
          { label: 'Open Model…', accelerator: 'CmdOrCtrl+O', click: () => win?.webContents.send(Channels.menuOpenModel) },
          { type: 'separator' },
          { role: 'quit' },
        ],
      },
      { role: 'editMenu' },
      { role: 'viewMenu' },
    ]),
  )
  createWindow()
  app.on('activate', () => BrowserWindow.getAllWindows().length === 0 && createWindow())
  app.on('before-quit', () => engine.dispose())
})

app.on('window-all-closed', () => process.platform !== 'darwin' && app.quit())
