import type { FolderFile } from '../../../shared/routes'

/** Every file under a dropped folder, each with its path inside the folder (the folder's name first). */
export async function folderFiles(root: FileSystemDirectoryEntry): Promise<FolderFile[]> {
  const out: FolderFile[] = []
  async function walk(dir: FileSystemDirectoryEntry, prefix: string, depth: number): Promise<void> {
    const reader = dir.createReader()
    // readEntries answers in batches until it answers none.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject))
      if (!batch.length) break
      for (const e of batch) {
        const path = `${prefix}/${e.name}`
        if (e.isFile) out.push({ path, file: await new Promise<File>((resolve, reject) => (e as FileSystemFileEntry).file(resolve, reject)) })
        else if (e.isDirectory && depth < 1) await walk(e as FileSystemDirectoryEntry, path, depth + 1)
      }
    }
  }
  await walk(root, root.name, 0)
  return out
}
