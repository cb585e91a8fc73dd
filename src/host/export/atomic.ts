import { rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Writes via a temporary file in the same folder and a rename: never a half-written file. */
export async function writeAtomic(path: string, data: Buffer | string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`)
  try {
    await writeFile(tmp, data)
    await rename(tmp, path)
  } catch (e) {
    await rm(tmp, { force: true })
    const err = e as NodeJS.ErrnoException
    const why =
      {
        ENOENT: 'the folder does not exist',
        EACCES: 'permission denied',
        EROFS: 'the disk is read-only',
        ENOSPC: 'the disk is full',
        EISDIR: 'it is a folder',
      }[err.code ?? ''] ?? err.message
    throw new Error(`Could not write ${path}: ${why}.`)
  }
}
