// `npm start`: build and open the Electron window, or say in one line why not and offer browser mode.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
const dir = dirname(require.resolve('electron/package.json'))
const pathFile = join(dir, 'path.txt')
const binary = existsSync(pathFile) ? join(dir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null
// electron 45 and its installer declare Node >= 22.12; browser mode runs on 20.19 too.
const [major, minor] = process.versions.node.split('.').map(Number)
const installer =
  major > 22 || (major === 22 && minor >= 12) ? '`npx install-electron --no`' : `\`npx install-electron --no\` under Node ≥ 22.12 (this is ${process.version})`
if (!binary || !existsSync(binary)) {
  console.error(`Electron's binary is not installed (its download was skipped); with network run ${installer}, or use browser mode now: \`npm run web\`.`)
  process.exit(1)
}
const r = spawnSync('npx', ['electron-vite', 'preview'], { stdio: 'inherit' })
process.exit(r.status ?? 1)
