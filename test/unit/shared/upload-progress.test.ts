import { describe, expect, it } from 'vitest'
import { uploadFiles, type UploadProgress } from '../../../src/shared/upload-progress'

/** Browser mode's folder upload reports the bytes sent of each file and of them all (issue 39 #1). */
describe('uploadFiles', () => {
  it('sends the files in order and reports each one from 0 to its size, the total counting the files before it', async () => {
    const files = [
      { path: 'm/config.json', size: 100 },
      { path: 'm/onnx/encoder_model.onnx', size: 1000 },
      { path: 'm/onnx/encoder_model.onnx_data', size: 3_000_000_000 },
    ]
    const seen: UploadProgress[] = []
    const sent: string[] = []
    const answer = await uploadFiles(
      files,
      async (path, onBytes) => {
        sent.push(path)
        const size = files.find((f) => f.path === path)!.size
        // The transport reports as it goes (XMLHttpRequest's upload progress), and may overshoot by its headers.
        onBytes(size / 2)
        onBytes(size + 10)
        return path.endsWith('_data') ? 'opened' : null
      },
      (p) => seen.push(p),
    )
    expect(answer).toBe('opened')
    expect(sent).toEqual(files.map((f) => f.path))
    const total = 3_000_001_100
    expect(seen.filter((p) => p.index === 3).map((p) => [p.fileSent, p.sent])).toEqual([
      [0, 1100],
      [1_500_000_000, 1_500_001_100],
      [3_000_000_000, total],
      [3_000_000_000, total],
    ])
    expect(seen.every((p) => p.total === total && p.count === 3 && p.fileSent <= p.fileBytes)).toBe(true)
    // Never backwards.
    expect(seen.map((p) => p.sent)).toEqual([...seen.map((p) => p.sent)].sort((a, b) => a - b))
    expect(seen.at(-1)).toEqual({ file: 'm/onnx/encoder_model.onnx_data', index: 3, count: 3, fileSent: 3e9, fileBytes: 3e9, sent: total, total })
  })

  it('stops at the file that fails, with its error', async () => {
    const seen: number[] = []
    await expect(
      uploadFiles(
        [
          { path: 'a', size: 1 },
          { path: 'b', size: 1 },
        ],
        async (path) => {
          if (path === 'a') throw new Error('413')
          return null
        },
        (p) => seen.push(p.index),
      ),
    ).rejects.toThrow('413')
    expect(seen).toEqual([1])
  })
})
