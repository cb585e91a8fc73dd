import { figureFileName } from '../shared/figure'
import { animationFileName } from '../shared/animation'
import type { EventChannel, Handlers, Payload } from '../shared/routes'
import type { LensHost } from './lens-host'

/** What only the transport can do: Electron has dialogs and a clipboard, browser mode has neither. */
export interface Transport {
  /** File ▸ Open (a file) or Open Folder… (`folder`): the path the user picked, or null (cancelled, or no dialog here). */
  pickModel(folder?: boolean): Promise<string | null>
  /** Saves bytes or text under a suggested name (a save dialog); the path, or null when cancelled. */
  save(name: string, content: Buffer | string): Promise<string | null>
  /**
   * Saves a figure split into parts (issue 40): one save dialog for the name, then each part
   * beside it with its suffix ("fig-1.png", "fig-2.png"); the paths written, or null when cancelled.
   */
  saveParts(name: string, parts: { suffix: string; bytes: Buffer }[]): Promise<string[] | null>
  /** Puts a PNG on the clipboard. */
  copyPng(png: Buffer): Promise<void>
}

/**
 * Who made a call: the page or window's client id (browser mode: the page's x-al-client header;
 * Electron: the sender's webContents), or null for a caller without one (a script, the CLI).
 */
export interface Caller {
  client: string | null
}

/** A suggested file name the page sent, as a plain name (no path). */
const safeName = (name: string) => name.replace(/[^\w.-]/g, '_')

/** The one handler per route, shared by Electron main and browser mode, for one caller. */
export function lensHandlers(host: LensHost, transport: Transport): (caller: Caller) => Handlers {
  return ({ client }) => ({
    'models:list': () => host.listModels(),
    'models:open': (id) => host.openModel(id),
    'models:open-dialog': async () => {
      const path = await transport.pickModel()
      return path ? host.openPath(path) : null
    },
    // Electron: the path comes from the preload's webUtils.getPathForFile on a real drop. Browser
    // mode never routes this channel from the page: it writes the upload and passes its own path.
    'models:open-dropped': (path) => host.openPath(path),
    'models:open-folder-dialog': async () => {
      const path = await transport.pickModel(true)
      return path ? host.openPath(path) : null
    },
    // Browser mode only: the server passes the folder it wrote once the last file is in.
    'models:open-dropped-folder': (path) => host.openPath(path),
    'models:set-languages': (src, tgt) => host.setLanguages(src, tgt),
    'models:set-variant': (dtype) => host.setVariant(dtype),
    'translate:run': (req) => host.translate(req, client),
    'translate:cancel': () => host.cancelTranslate(client),
    'compare:run': (req) => host.compare(req),
    'whatif:run': (req) => host.whatIf(req),
    'forced:run': (req) => host.forced(req),
    'score:sentence': async (req) => host.scoreSentence(req),
    'examples:list': (req) => host.listExamples(req),
    'translate:each': (req) => host.translateEach(req),
    'corpus:run': (req) => host.runCorpus(req, client),
    'corpus:cancel': () => host.cancelCorpus(client),
    'alignment:run': (req) => host.runAlignment(req, client),
    'alignment:cancel': () => host.cancelAlignment(client),
    'ablation:run': (req) => host.runAblation(req, client),
    'ablation:cancel': () => host.cancelAblation(client),
    'occlusion:run': (req) => host.occlusion(req),
    'contributions:run': (req) => host.contributions(req, client),
    'contributions:cancel': () => host.cancelContributions(client),
    'export:figure': async (data, spec) => {
      const files = await host.renderFigureFiles(data, spec)
      const name = figureFileName(data.view, spec.format)
      if (files.length === 1) return transport.save(name, files[0].bytes)
      return (await transport.saveParts(name, files))?.join(', ') ?? null
    },
    'export:animation': async (data, spec, settings) =>
      transport.save(animationFileName(data.view, settings.format), await host.renderAnimation(data, spec, settings, client)),
    'export:animation-bytes': (data, spec, settings) => host.renderAnimation(data, spec, settings, client),
    'export:cancel': () => host.cancelExport(client),
    'export:bytes': (name, bytes) => transport.save(safeName(name), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
    'export:copy': async (data, spec) => transport.copyPng(await host.renderFigure(data, { ...spec, format: 'png' })),
    'export:data': (name, text) => transport.save(safeName(name), text),
    'app:notice': () => host.takeNotice(),
    'forecast:series': () => host.forecastSeries(),
    'forecast:run': (req) => host.forecast(req),
    'forecast:whatif': (req) => host.forecastWhatIf(req),
    'providers:list': () => host.listProviders(),
    'providers:set': (name) => host.setProvider(name),
  })
}

/** Forwards the host's events to a transport's `emit` (IPC send, server-sent events). */
export function forwardEvents(host: LensHost, emit: <E extends EventChannel>(channel: E, payload: Payload<E>) => void): () => void {
  const offs = [
    host.onEngineStatus((s) => emit('engine:status', s)),
    host.onCorpusProgress((p) => emit('corpus:progress', p)),
    host.onAlignmentProgress((p) => emit('alignment:progress', p)),
    host.onExportProgress((p) => emit('export:progress', p)),
  ]
  return () => offs.forEach((off) => off())
}
