// `npm start`: build and open the Electron window, or say in one line why not and offer browser mode.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
const dir = dirname(require.resolve('electron/package.json'))
const pathFile = join(dir, 'path.txt')
const binary = existsSync(pathFile) ? join(dir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null
if (!binary || !existsSync(binary)) {
  console.error(
    "Electron's binary is not installed (its download was skipped); with network run `npx install-electron --no`, or use browser mode now: `npm run web`.",
  )
  process.exit(1)
}
const r = spawnSync('npx', ['electron-vite', 'preview'], { stdio: 'inherit' })
process.exit(r.status ?? 1)
