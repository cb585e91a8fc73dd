/**
 * Browser mode's folder upload (src/renderer/src/lib/http-api.ts openDroppedFolder): the files go
 * up one by one, and the page shows the bytes sent of the file going up and of them all.
 */
export interface UploadProgress {
  /** The file going up, as its path inside the folder, its place (from 1) and how many there are. */
  file: string
  index: number
  count: number
  /** Bytes of this file sent, and its size. */
  fileSent: number
  fileBytes: number
  /** Bytes of all the files sent, and their size together. */
  sent: number
  total: number
}

/**
 * Sends `files` in order through `put`, which reports the bytes of its file sent so far, and
 * tells `onProgress` after each report: this file's bytes and all of them. Answers the last
 * file's answer (the server opens the folder when the last file is in).
 */
export async function uploadFiles<T>(
  files: readonly { path: string; size: number }[],
  put: (path: string, onBytes: (sent: number) => void) => Promise<T>,
  onProgress?: (p: UploadProgress) => void,
): Promise<T | null> {
  const total = files.reduce((n, f) => n + f.size, 0)
  let before = 0
  let answer: T | null = null
  for (const [i, f] of files.entries()) {
    const report = (sent: number) => {
      const fileSent = Math.max(0, Math.min(sent, f.size))
      onProgress?.({ file: f.path, index: i + 1, count: files.length, fileSent, fileBytes: f.size, sent: before + fileSent, total })
    }
    report(0)
    answer = await put(f.path, report)
    report(f.size)
    before += f.size
  }
  return answer
}
