import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { staleBuild } from '../../../scripts/ensure-build.mjs'
import { tempDir } from '../../helpers'

const OUTPUTS = ['out/main/index.js', 'out/main/engine.js', 'out/main/web.js', 'out/main/cli.js', 'out/preload/index.js', 'out/renderer/index.html']
const SOURCES = ['src/engine/model.ts', 'src/renderer/src/App.svelte', 'electron.vite.config.ts', 'package.json']

/** A project tree whose sources were last written at `src` and whose build at `out` (seconds). */
function tree(src: number, out: number, skip?: string): string {
  const root = tempDir()
  for (const [files, t] of [
    [SOURCES, src],
    [OUTPUTS, out],
  ] as const) {
    for (const f of files) {
      if (f === skip) continue
      mkdirSync(dirname(join(root, f)), { recursive: true })
      writeFileSync(join(root, f), '')
      utimesSync(join(root, f), t, t)
    }
  }
  // A folder's time is that of its last added or removed file; these were made just now.
  for (const f of [...SOURCES, ...OUTPUTS]) {
    for (let d = dirname(f); d !== '.'; d = dirname(d)) utimesSync(join(root, d), src, src)
  }
  return root
}

describe('the build check `npm run test:e2e` and the CLI tests run first', () => {
  it('passes a build newer than every source', () => {
    expect(staleBuild(tree(1000, 2000))).toBeNull()
  })

  it('names the source that is newer than the build', () => {
    const root = tree(1000, 2000)
    utimesSync(join(root, 'src/renderer/src/App.svelte'), 3000, 3000)
    expect(staleBuild(root)).toBe('src/renderer/src/App.svelte is newer than the build in out/')
  })

  it('counts a source folder whose file was removed after the build', () => {
    const root = tree(1000, 2000)
    utimesSync(join(root, 'src/engine'), 3000, 3000)
    expect(staleBuild(root)).toBe('src/engine is newer than the build in out/')
  })

  it('names a missing output', () => {
    expect(staleBuild(tree(1000, 2000, 'out/main/cli.js'))).toBe('out/main/cli.js is missing')
  })
})
