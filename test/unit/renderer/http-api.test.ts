/**
 * Browser mode's export of a figure split into parts (issue 40): the server answers every part
 * (FIGURE_PARTS_TYPE), and the page downloads each under the figure's name with its suffix.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createHttpApi } from '../../../src/renderer/src/lib/http-api'
import { DEFAULT_FIGURE, FIGURE_PARTS_TYPE, type FigureData } from '../../../src/shared/figure'

const data = { view: 'corpus', corpus: { pair: 'en-fr', testSet: 'Multi30K', results: [] } } as unknown as FigureData

/** The downloads the page starts: each link's name and the bytes behind its address. */
function fakePage(answer: Response): { name: string; blob: Blob }[] {
  const blobs = new Map<string, Blob>()
  const downloads: { name: string; blob: Blob }[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => answer),
  )
  vi.stubGlobal('URL', { createObjectURL: (b: Blob) => (blobs.set(`blob:${blobs.size}`, b), `blob:${blobs.size - 1}`), revokeObjectURL: () => undefined })
  vi.stubGlobal('document', {
    createElement: () => {
      const a = { href: '', download: '', click: () => downloads.push({ name: a.download, blob: blobs.get(a.href)! }) }
      return a
    },
  })
  return downloads
}

afterEach(() => vi.unstubAllGlobals())

describe('browser mode saves a figure', () => {
  it('split into parts: one download per part, named with its suffix, each with its own bytes and type', async () => {
    const parts = ['<svg>1</svg>', '<svg>2</svg>'].map((s, i) => ({ suffix: `-${i + 1}`, base64: Buffer.from(s).toString('base64') }))
    const downloads = fakePage(new Response(JSON.stringify({ type: 'image/svg+xml', parts }), { headers: { 'content-type': FIGURE_PARTS_TYPE } }))
    const said = await createHttpApi().exportFigure(data, { ...DEFAULT_FIGURE, format: 'svg' })
    expect(downloads.map((d) => d.name)).toEqual([expect.stringMatching(/^attention-lens-corpus-.*-1\.svg$/), expect.stringMatching(/-2\.svg$/)])
    expect(await Promise.all(downloads.map((d) => d.blob.text()))).toEqual(['<svg>1</svg>', '<svg>2</svg>'])
    expect(downloads.map((d) => d.blob.type)).toEqual(['image/svg+xml', 'image/svg+xml'])
    expect(said).toBe(downloads.map((d) => d.name).join(', '))
  })

  it('one figure: one download under the plain name', async () => {
    const downloads = fakePage(new Response('%PDF-1.7', { headers: { 'content-type': 'application/pdf' } }))
    const said = await createHttpApi().exportFigure(data, { ...DEFAULT_FIGURE, format: 'pdf' })
    expect(downloads.map((d) => d.name)).toEqual([expect.stringMatching(/^attention-lens-corpus-[\d-]+\.pdf$/)])
    expect(said).toBe(downloads[0].name)
  })
})
