import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { EngineRequest, EngineResponse } from '../../../src/engine/protocol'
import type { EncodedError, Envelope } from '../../../src/shared/errors'
import { DEFAULT_FIGURE } from '../../../src/shared/figure'
import { routes } from '../../../src/shared/routes'

/**
 * Electron main under a mocked `electron`: app, windows, IPC, dialogs, clipboard, menu and
 * session are fakes that record what main does with them; the engine process is a fake utility
 * process that answers like the real one. Main's own code (and LensHost, the route table) is real.
 */
const fake = vi.hoisted(() => {
  type Listener = (...args: unknown[]) => unknown
  const ipc = new Map<string, Listener>()
  const appEvents = new Map<string, Listener>()
  const windows: {
    options: Record<string, unknown>
    webContents: {
      id: number
      mainFrame: { url: string }
      send: ReturnType<typeof vi.fn>
      on: ReturnType<typeof vi.fn>
      setWindowOpenHandler: ReturnType<typeof vi.fn>
    }
    loadFile: ReturnType<typeof vi.fn>
    loadURL: ReturnType<typeof vi.fn>
  }[] = []
  const children: { posted: unknown[]; listeners: Map<string, Listener>; kill: ReturnType<typeof vi.fn> }[] = []
  const state = { userData: '', menu: null as unknown, permissionRequest: null as Listener | null, permissionCheck: null as Listener | null }
  return { ipc, appEvents, windows, children, state }
})

vi.mock('electron', () => {
  class BrowserWindow {
    webContents = { id: fake.windows.length + 1, mainFrame: { url: '' }, send: vi.fn(), on: vi.fn(), setWindowOpenHandler: vi.fn() }
    // The page loaded is the frame's address, as in Electron.
    loadFile = vi.fn(async (file: string) => void (this.webContents.mainFrame.url = pathToFileURL(file).href))
    loadURL = vi.fn(async () => undefined)
    constructor(public options: Record<string, unknown>) {
      fake.windows.push(this)
    }
    static getAllWindows = () => fake.windows
  }
  class ClipboardItem {
    constructor(public items: Record<string, Blob>) {}
  }
  return {
    app: {
      isPackaged: false,
      whenReady: () => Promise.resolve(),
      on: (event: string, l: (...a: unknown[]) => unknown) => fake.appEvents.set(event, l),
      getPath: () => fake.state.userData,
      quit: vi.fn(),
    },
    BrowserWindow,
    ClipboardItem,
    clipboard: { write: vi.fn(async () => undefined) },
    dialog: {
      showOpenDialog: vi.fn(async () => ({ canceled: true, filePaths: [] })),
      showSaveDialog: vi.fn(async () => ({ canceled: true, filePath: '' })),
    },
    ipcMain: { handle: (channel: string, l: (...a: unknown[]) => unknown) => fake.ipc.set(channel, l) },
    Menu: {
      buildFromTemplate: (template: unknown) => ({ template }),
      setApplicationMenu: (menu: unknown) => (fake.state.menu = menu),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (l: (...a: unknown[]) => unknown) => (fake.state.permissionRequest = l),
        setPermissionCheckHandler: (l: (...a: unknown[]) => unknown) => (fake.state.permissionCheck = l),
      },
    },
    utilityProcess: {
      fork: () => {
        const child = { posted: [] as unknown[], listeners: new Map<string, (...a: unknown[]) => unknown>(), kill: vi.fn() }
        fake.children.push(child)
        return {
          postMessage: (msg: unknown) => {
            child.posted.push(msg)
            void answer(child, msg as EngineRequest)
          },
          on: (event: string, l: (...a: unknown[]) => unknown) => child.listeners.set(event, l),
          kill: child.kill,
        }
      },
    },
  }
})

/** The engine's side: describe/open/close answer; "broken" files and "cancel me" fail as the real engine fails. */
async function answer(child: { listeners: Map<string, (...a: unknown[]) => unknown> }, req: EngineRequest): Promise<void> {
  if ('cancel' in req) return
  const reply = (msg: EngineResponse): void => void setImmediate(() => child.listeners.get('message')?.(msg))
  const path = String(req.args[0])
  const name = path
    .split('/')
    .pop()!
    .replace(/\.onnx$/, '')
  const description = {
    name,
    fileName: `${name}.onnx`,
    task: 'translation',
    attention: 'bahdanau',
    srcLang: 'en',
    tgtLang: 'fr',
    windowD: 0,
    srcVocabSize: 1,
    tgtVocabSize: 1,
    trainingData: '',
    licence: '',
    testScore: null,
    forecast: null,
    forecastScore: null,
  }
  const error = (e: EncodedError): void => reply({ id: req.id, error: e })
  switch (req.method) {
    case 'describe':
      return reply({ id: req.id, result: description })
    case 'open':
      if (path.includes('broken')) return error({ name: 'ContractError', code: 'contract', message: 'The file is not an ONNX model: bad wire type.' })
      return reply({ id: req.id, result: { ...description, provider: 'cpu', providerNote: null } })
    case 'translate':
      if (req.args[1] === 'cancel me') return error({ name: 'CancelledError', code: 'cancelled', message: 'The translation was cancelled.' })
      return reply({ id: req.id, result: { srcTokens: ['a', '</s>'] } })
    default:
      return reply({ id: req.id, result: null })
  }
}

const win = () => fake.windows[0]
/** A call from the app's window: its webContents, from its main frame. */
const invoke = async (channel: string, ...args: unknown[]) =>
  (await fake.ipc.get(channel)!({ sender: win().webContents, senderFrame: win().webContents.mainFrame }, ...args)) as Envelope<unknown>
let lensHost: typeof import('../../../src/host/lens-host')

describe('Electron main', () => {
  beforeAll(async () => {
    fake.state.userData = mkdtempSync(join(tmpdir(), 'al-userdata-'))
    process.env.AL_MODELS_DIR = join(__dirname, '..', '..', 'fixtures', 'models')
    lensHost = await import('../../../src/host/lens-host')
    // Importing the entry runs it, as Electron does.
    await import('../../../src/main/index')
    await vi.waitFor(() => expect(fake.windows).toHaveLength(1))
  })
  afterAll(() => {
    fake.appEvents.get('before-quit')?.()
  })

  it('opens one window with context isolation, the sandbox, no Node and web security', () => {
    const prefs = win().options.webPreferences as Record<string, unknown>
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true })
    expect(String(prefs.preload)).toMatch(/preload[/\\]index\.js$/)
    expect(win().loadFile).toHaveBeenCalledWith(expect.stringMatching(/renderer[/\\]index\.html$/))
  })

  it('denies window.open and prevents navigation away from the app', () => {
    const openHandler = win().webContents.setWindowOpenHandler.mock.calls[0][0] as (d: unknown) => unknown
    expect(openHandler({ url: 'https://example.com' })).toEqual({ action: 'deny' })
    const [event, onNavigate] = win().webContents.on.mock.calls.find(([e]) => e === 'will-navigate')!
    expect(event).toBe('will-navigate')
    const preventDefault = vi.fn()
    ;(onNavigate as (e: unknown) => void)({ preventDefault, url: 'https://example.com' })
    expect(preventDefault).toHaveBeenCalled()
  })

  it('refuses every permission request and check', () => {
    const callback = vi.fn()
    fake.state.permissionRequest!({}, 'media', callback)
    expect(callback).toHaveBeenCalledWith(false)
    expect(fake.state.permissionCheck!({}, 'clipboard-read')).toBe(false)
  })

  it('registers every route of the table on ipcMain, and nothing else', () => {
    expect([...fake.ipc.keys()].sort()).toEqual(Object.keys(routes).sort())
  })

  it('answers {result}; errors come back as {error} with their name, from the engine too', async () => {
    const list = (await invoke('models:list')) as { result: { id: string }[] }
    expect(list.result.map((m) => m.id)).toEqual([
      'bundled:tiny-bahdanau.onnx',
      'bundled:tiny-local-m.onnx',
      'bundled:tiny-local-p.onnx',
      'bundled:tiny-none.onnx',
      'bundled:tiny-transformer.onnx',
    ])
    expect(await invoke('models:open', 'bundled:tiny-none.onnx')).toMatchObject({ result: { name: 'tiny-none', id: 'bundled:tiny-none.onnx' } })
    expect(await invoke('models:open', 'file:/etc/passwd')).toEqual({
      error: { name: 'UnknownModelError', code: 'unknown-model', message: 'That model is not in the list; pick it again or open the file.' },
    })
    expect(await invoke('translate:run', { modelId: 'bundled:tiny-none.onnx', text: 'cancel me' })).toEqual({
      error: { name: 'CancelledError', code: 'cancelled', message: 'The translation was cancelled.' },
    })
    expect(await invoke('models:open-dropped', '/somewhere/broken.onnx')).toMatchObject({ error: { name: 'ContractError', code: 'contract' } })
  })

  it('answers only the main frame of its own window showing its own page', async () => {
    const from = (sender: unknown, senderFrame: unknown) => fake.ipc.get('models:list')!({ sender, senderFrame }) as Promise<Envelope<unknown>>
    const own = win().webContents
    const forbidden = { error: expect.objectContaining({ name: 'ForbiddenError', message: "The models:list call came from outside the app's window." }) }
    expect(await from(own, own.mainFrame)).toHaveProperty('result')
    // A frame inside the page (an iframe), another webContents, the window navigated elsewhere.
    expect(await from(own, { url: own.mainFrame.url })).toEqual(forbidden)
    const stranger = { id: 99, mainFrame: { url: own.mainFrame.url } }
    expect(await from(stranger, stranger.mainFrame)).toEqual(forbidden)
    const away = own.mainFrame.url
    own.mainFrame.url = 'file:///tmp/other.html'
    try {
      expect(await from(own, own.mainFrame)).toEqual(forbidden)
    } finally {
      own.mainFrame.url = away
    }
  })

  it("the window is the caller: its translations and cancels are its own (keyed by its webContents' id)", async () => {
    const translate = vi.spyOn(lensHost.LensHost.prototype, 'translate')
    const cancel = vi.spyOn(lensHost.LensHost.prototype, 'cancelTranslate')
    await invoke('translate:run', { modelId: 'bundled:tiny-none.onnx', text: 'A dog.' })
    await invoke('translate:cancel')
    expect(translate.mock.calls.at(-1)?.[1]).toBe(`window:${win().webContents.id}`)
    expect(cancel.mock.calls.at(-1)?.[0]).toBe(`window:${win().webContents.id}`)
    translate.mockRestore()
    cancel.mockRestore()
  })

  it('refuses arguments that are not what the route takes, before the host sees them', async () => {
    const openModel = vi.spyOn(lensHost.LensHost.prototype, 'openModel')
    expect(await invoke('models:open', 42)).toMatchObject({
      error: { name: 'RefusedError', code: 'refused', message: expect.stringMatching(/^The models:open call was refused: 0:/) },
    })
    expect(await invoke('translate:run', { modelId: 'm', text: 'x', path: '/etc/passwd' })).toMatchObject({ error: { name: 'RefusedError' } })
    expect(openModel).not.toHaveBeenCalled()
    openModel.mockRestore()
  })

  it('File ▸ Open: a cancelled dialog answers null; a picked file is opened', async () => {
    const { dialog } = await import('electron')
    expect(await invoke('models:open-dialog')).toEqual({ result: null })
    expect(vi.mocked(dialog.showOpenDialog).mock.calls[0][0]).toBe(win())
    vi.mocked(dialog.showOpenDialog).mockResolvedValueOnce({ canceled: false, filePaths: ['/data/picked.onnx'] })
    expect(await invoke('models:open-dialog')).toMatchObject({ result: { name: 'picked', bundled: false } })
  })

  it('saving: a cancelled save dialog answers null; a chosen path gets the file', async () => {
    const { dialog } = await import('electron')
    expect(await invoke('export:data', '../../etc/attention.csv', 'a,b\n')).toEqual({ result: null })
    const asked = vi.mocked(dialog.showSaveDialog).mock.calls.at(-1) as unknown[]
    expect(asked[0]).toBe(win())
    expect((asked[1] as { defaultPath: string }).defaultPath).not.toContain('/')
    const target = join(mkdtempSync(join(tmpdir(), 'al-save-')), 'attention.csv')
    vi.mocked(dialog.showSaveDialog).mockResolvedValueOnce({ canceled: false, filePath: target })
    expect(await invoke('export:data', 'attention.csv', 'a,b\n')).toEqual({ result: target })
    expect(readFileSync(target, 'utf8')).toBe('a,b\n')
  })

  it('exports a figure through the save dialog, and copies one as PNG to the clipboard', async () => {
    const { clipboard, dialog } = await import('electron')
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])
    const render = vi.spyOn(lensHost.LensHost.prototype, 'renderFigure').mockResolvedValue(png)
    const files = vi.spyOn(lensHost.LensHost.prototype, 'renderFigureFiles').mockResolvedValue([{ suffix: '', bytes: png }])
    const data = { view: 'corpus', corpus: { pair: 'en-fr', testSet: 'Multi30K', results: [] } }
    const spec = { ...DEFAULT_FIGURE, format: 'svg' }
    const target = join(mkdtempSync(join(tmpdir(), 'al-figure-')), 'figure.svg')
    vi.mocked(dialog.showSaveDialog).mockResolvedValueOnce({ canceled: false, filePath: target })
    expect(await invoke('export:figure', data, spec)).toEqual({ result: target })
    expect(readFileSync(target)).toEqual(png)
    expect(await invoke('export:copy', data, spec)).toEqual({ result: undefined })
    expect(render).toHaveBeenLastCalledWith(data, { ...spec, format: 'png' })
    const [items] = vi.mocked(clipboard.write).mock.calls[0] as unknown as [{ items: Record<string, Blob> }[]]
    const blob = items[0].items['image/png']
    expect(blob.type).toBe('image/png')
    expect(Buffer.from(await blob.arrayBuffer())).toEqual(png)
    render.mockRestore()
    files.mockRestore()
  })

  it('a figure split into parts as PNG or SVG: one save dialog, and every part written beside the name chosen with its suffix', async () => {
    const { dialog } = await import('electron')
    const parts = [Buffer.from('<svg>1</svg>'), Buffer.from('<svg>2</svg>'), Buffer.from('<svg>3</svg>')]
    const files = vi.spyOn(lensHost.LensHost.prototype, 'renderFigureFiles').mockResolvedValue(parts.map((bytes, i) => ({ suffix: `-${i + 1}`, bytes })))
    const dir = mkdtempSync(join(tmpdir(), 'al-parts-'))
    const dialogs = vi.mocked(dialog.showSaveDialog).mock.calls.length
    vi.mocked(dialog.showSaveDialog).mockResolvedValueOnce({ canceled: false, filePath: join(dir, 'lecture.svg') })
    const data = { view: 'corpus', corpus: { pair: 'en-fr', testSet: 'Multi30K', results: [] } }
    const written = [1, 2, 3].map((k) => join(dir, `lecture-${k}.svg`))
    expect(await invoke('export:figure', data, { ...DEFAULT_FIGURE, format: 'svg' })).toEqual({ result: written.join(', ') })
    expect(vi.mocked(dialog.showSaveDialog).mock.calls.length).toBe(dialogs + 1)
    expect(written.map((p) => readFileSync(p, 'utf8'))).toEqual(['<svg>1</svg>', '<svg>2</svg>', '<svg>3</svg>'])
    // Cancelled: nothing written.
    vi.mocked(dialog.showSaveDialog).mockResolvedValueOnce({ canceled: true, filePath: '' })
    expect(await invoke('export:figure', data, { ...DEFAULT_FIGURE, format: 'svg' })).toEqual({ result: null })
    files.mockRestore()
  })

  it('the menu: File ▸ Open Model… tells the page', () => {
    const { template } = fake.state.menu as { template: { label?: string; submenu?: { label?: string; click?: () => void }[] }[] }
    const open = template.find((m) => m.label === 'File')!.submenu!.find((i) => i.label === 'Open Model…')!
    open.click!()
    expect(win().webContents.send).toHaveBeenCalledWith('menu:open-model', undefined)
  })

  it('an engine crash is reported to the page, and a new engine process starts', async () => {
    fake.children[0].listeners.get('exit')!(139)
    await vi.waitFor(() => expect(fake.children).toHaveLength(2))
    await vi.waitFor(() =>
      expect(win().webContents.send).toHaveBeenCalledWith('engine:status', {
        state: 'restarted',
        message: expect.stringMatching(/The engine process stopped \(exit code 139\)/),
      }),
    )
  })

  it('quitting stops the engine process', () => {
    fake.appEvents.get('before-quit')!()
    expect(fake.children[1].kill).toHaveBeenCalled()
  })
})
