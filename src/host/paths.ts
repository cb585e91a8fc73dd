import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project root, found from wherever this code runs (source, out/main, or a test). */
function projectRoot(): string {
  let dir = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir)
    if (up === dir) return process.cwd()
    dir = up
  }
  return dir
}

export function appPaths(): { root: string; models: string; testsets: string; series: string; renderer: string } {
  const root = projectRoot()
  return {
    root,
    models: resolve(process.env.AL_MODELS_DIR || join(root, 'resources', 'models')),
    testsets: join(root, 'resources', 'testsets'),
    series: join(root, 'resources', 'series'),
    renderer: join(root, 'out', 'renderer'),
  }
}

/** The bundled series: the Taylor data's held-out weeks (the last two, 2 × 336 half-hours) with the history their first forecast reads. */
export const BUNDLED_SERIES = 'taylor-holdout.csv'
export const BUNDLED_HELD_OUT_STEPS = 2 * 336
