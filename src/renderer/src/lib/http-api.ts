import { animationFileName } from '../../../shared/animation'
import { decodeError, unwrap, type EncodedError, type Envelope } from '../../../shared/errors'
import { FIGURE_PARTS_TYPE, figureFileName, withSuffix, type FigureData, type FigureSpec } from '../../../shared/figure'
import { callsOver, type Channel, type EventChannel, type LensApi, type Payload } from '../../../shared/routes'
import { folderFilesToSend } from '../../../shared/hf-folder-files'
import type { ModelInfo } from '../../../shared/api'
import { uploadFiles } from '../../../shared/upload-progress'

const FORBIDDEN: EncodedError = {
  name: 'ForbiddenError',
  code: 'forbidden',
  message: 'This page is not signed in: open the link the terminal printed (http://127.0.0.1:…/?token=…).',
}

/**
 * One POST whose body's bytes are reported as they go up (fetch reports none): XMLHttpRequest's
 * upload progress. Answers the status and the text of the answer.
 */
function postWithProgress(
  url: string,
  body: Blob,
  headers: Record<string, string>,
  onBytes: (sent: number) => void,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', url)
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v)
    xhr.upload.onprogress = (e) => onBytes(e.loaded)
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText })
    xhr.onerror = () => reject(new Error('The upload stopped: the connection to the server was lost.'))
    xhr.onabort = () => reject(new Error('The upload was cancelled.'))
    xhr.send(body)
  })
}

/**
 * The browser-mode transport: the same API as the preload, over HTTP to 127.0.0.1. The page
 * carries no token: the server set an HttpOnly cookie when the terminal's link was opened, and
 * the browser sends it with every same-origin request.
 */
export function createHttpApi(): LensApi {
  // This page's id: its newer translation stops its older one, never another page's (or a script's).
  const client = crypto.randomUUID()
  async function post(channel: Channel, init: RequestInit): Promise<Response> {
    const headers = { ...(init.headers as Record<string, string>), 'x-al-client': client }
    const res = await fetch(`/api/${channel}`, { method: 'POST', credentials: 'same-origin', ...init, headers })
    if (res.status === 403) throw decodeError(FORBIDDEN)
    return res
  }
  const call = async <T>(channel: Channel, init: RequestInit): Promise<T> => unwrap((await (await post(channel, init)).json()) as Envelope<T>)
  const json = (args: unknown[]): RequestInit => ({ body: JSON.stringify(args), headers: { 'content-type': 'application/json' } })

  /** A file's bytes: browser mode answers export:figure and the animations with the file itself. */
  async function file(channel: 'export:figure' | 'export:animation' | 'export:animation-bytes', args: unknown[]): Promise<Blob> {
    const res = await post(channel, json(args))
    if (!res.ok) throw decodeError(((await res.json()) as { error: EncodedError }).error)
    return res.blob()
  }
  /** A figure's files: one, or a figure split into parts as PNG or SVG one per part, with its suffix. */
  async function figureFiles(data: FigureData, spec: FigureSpec): Promise<{ suffix: string; blob: Blob }[]> {
    const blob = await file('export:figure', [data, spec])
    if (blob.type !== FIGURE_PARTS_TYPE) return [{ suffix: '', blob }]
    const { type, parts } = JSON.parse(await blob.text()) as { type: string; parts: { suffix: string; base64: string }[] }
    return parts.map((p) => ({ suffix: p.suffix, blob: new Blob([Uint8Array.from(atob(p.base64), (c) => c.charCodeAt(0))], { type }) }))
  }
  const figure = async (data: FigureData, spec: FigureSpec) => (await figureFiles(data, spec))[0].blob

  function download(name: string, blob: Blob): void {
    const a = document.createElement('a')
    a.href = URL.createObjectURL(blob)
    a.download = name
    a.click()
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000)
  }

  // One event stream for every event channel, opened on first use.
  let source: EventSource | null = null
  function subscribe<E extends EventChannel>(channel: E, listener: (payload: Payload<E>) => void): () => void {
    source ??= new EventSource('/api/events')
    const l = (e: MessageEvent<string>) => listener(JSON.parse(e.data) as Payload<E>)
    source.addEventListener(channel, l)
    return () => source?.removeEventListener(channel, l)
  }

  return {
    ...callsOver((channel, args) => call(channel, json(args))),
    transport: 'browser',
    // The file itself goes up; the server saves it and opens it by its own path.
    openDroppedFile: (file) => call('models:open-dropped', { body: file, headers: { 'x-file-name': encodeURIComponent(file.name) } }),
    // A folder goes up file by file (only those the engine reads), each under the same upload id,
    // its bytes reported as they go; the server opens the folder when the last one is in.
    openDroppedFolder: async (files, onProgress, dtype) => {
      const send = folderFilesToSend(
        files.map((f) => f.path),
        dtype,
      )
      if (!send.length) throw new Error('The folder holds no file of a model this app opens (config.json, a tokenizer, encoder_model.onnx…).')
      const byPath = new Map(files.map((f) => [f.path, f.file]))
      const id = crypto.randomUUID()
      const info = await uploadFiles(
        send.map((path) => ({ path, size: byPath.get(path)!.size })),
        async (path, onBytes) => {
          const headers = { 'x-file-name': encodeURIComponent(path), 'x-upload-id': id, 'x-upload-count': String(send.length), 'x-al-client': client }
          const res = await postWithProgress('/api/models:open-dropped-folder', byPath.get(path)!, headers, onBytes)
          if (res.status === 403) throw decodeError(FORBIDDEN)
          let answer: Envelope<ModelInfo | null>
          try {
            answer = JSON.parse(res.text) as Envelope<ModelInfo | null>
          } catch {
            throw new Error(`The server answered ${res.status} to ${path}.`)
          }
          return unwrap(answer)
        },
        onProgress,
      )
      if (!info) throw new Error('The server did not open the folder.')
      return info
    },
    exportFigure: async (data, spec) => {
      const name = figureFileName(data.view, spec.format)
      const files = await figureFiles(data, spec)
      for (const f of files) download(withSuffix(name, f.suffix), f.blob)
      return files.map((f) => withSuffix(name, f.suffix)).join(', ')
    },
    exportAnimation: async (data, spec, settings) => {
      const name = animationFileName(data.view, settings.format)
      download(name, await file('export:animation', [data, spec, settings]))
      return name
    },
    animationBytes: async (data, spec, settings) => new Uint8Array(await (await file('export:animation-bytes', [data, spec, settings])).arrayBuffer()),
    // A file the page made itself (a video) never goes up: it is downloaded here.
    saveBytes: async (name, bytes) => {
      download(name, new Blob([bytes], { type: name.endsWith('.mp4') ? 'video/mp4' : name.endsWith('.webm') ? 'video/webm' : '' }))
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
    onEngineStatus: (listener) => subscribe('engine:status', listener),
    onCorpusProgress: (listener) => subscribe('corpus:progress', listener),
    onAlignmentProgress: (listener) => subscribe('alignment:progress', listener),
    onExportProgress: (listener) => subscribe('export:progress', listener),
    onMenuOpenModel: () => () => undefined,
    onMenuOpenModelFolder: () => () => undefined,
  }
}
