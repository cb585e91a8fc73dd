/**
 * The layers the README describes, enforced over every module under src, .ts and .svelte alike:
 * no import cycles; the engine and the plain parts of src/shared draw no charts (head maths,
 * agreement and diagonals live in src/shared/attention, charts only in src/shared/charts); and
 * no process imports another's code (src/main is Electron's main process only, src/renderer the
 * page's).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers'

const SRC = join(ROOT, 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path)
    return /\.(ts|svelte)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** A .svelte file's scripts (the markup imports nothing). */
const scripts = (text: string) => [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n')

/** Every module a file imports (type-only imports too: they tie the modules as tightly when read). */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const code = file.endsWith('.svelte') ? scripts(text) : text
  // TypeScript's own scanner: import, import type, export … from, import() and require().
  const found = ts.preProcessFile(code, true, true).importedFiles.map((f) => f.fileName)
  return found
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec))
    .map((base) => [base, `${base}.ts`, join(base, 'index.ts')].find((p) => /\.(ts|svelte)$/.test(p) && existsSync(p)))
    .filter((p): p is string => p !== undefined)
}

/** The import cycles of a graph, each as the files around it (the first one repeated at the end). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (f: string) => {
    state.set(f, 'open')
    stack.push(f)
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g])
      else if (!state.has(g)) visit(g)
    }
    stack.pop()
    state.set(f, 'done')
  }
  for (const f of graph.keys()) if (!state.has(f)) visit(f)
  return found
}

const under = (path: string, dir: string) =>
  path
    .split(sep)
    .join('/')
    .startsWith(dir + '/')

/** The rules, on paths relative to src with '/' between folders: the reason an import breaks one, or null. */
export function layerBreak(from: string, to: string): string | null {
  const charts = under(to, 'shared/charts')
  if (charts && (under(from, 'engine') || (under(from, 'shared') && !under(from, 'shared/charts'))))
    return 'the engine and plain src/shared draw no charts (maths goes in src/shared/attention)'
  for (const proc of ['main', 'renderer', 'preload', 'web'])
    if (under(to, proc) && !under(from, proc)) return `src/${proc} is one process's code; another process cannot import it`
  return null
}

describe('layers', () => {
  it('the cycle finder finds a cycle of two and one of three, and none in a tree', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'a']])
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']])
    expect(
      cycles(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([])
  })

  it('the scanner sees type-only imports, re-exports and a .svelte file’s script imports', () => {
    const api = importsOf(join(SRC, 'shared', 'api.ts')).map((f) => relative(SRC, f))
    expect(api).toContain(join('shared', 'attention-kinds.ts'))
    const app = importsOf(join(SRC, 'renderer', 'src', 'App.svelte')).map((f) => relative(SRC, f))
    expect(app).toContain(join('renderer', 'src', 'state', 'lens.svelte.ts'))
    expect(app).toContain(join('renderer', 'src', 'views', 'ForecastView.svelte'))
  })

  it('the rules refuse an engine → charts import, a plain shared → charts import and a cross-process import, and allow the rest', () => {
    expect(layerBreak('engine/decode.ts', 'shared/charts/heads.ts')).toMatch(/no charts/)
    expect(layerBreak('shared/figure.ts', 'shared/charts/colormaps.ts')).toMatch(/no charts/)
    expect(layerBreak('shared/attention/heads.ts', 'shared/charts/frame.ts')).toMatch(/no charts/)
    expect(layerBreak('host/lens-host.ts', 'main/index.ts')).toMatch(/process/)
    expect(layerBreak('cli/index.ts', 'renderer/src/lib/api.ts')).toMatch(/process/)
    expect(layerBreak('shared/charts/heads.ts', 'shared/attention/heads.ts')).toBeNull()
    expect(layerBreak('renderer/src/App.svelte', 'shared/charts/views/index.ts')).toBeNull()
    expect(layerBreak('cli/index.ts', 'shared/charts/views/index.ts')).toBeNull()
    expect(layerBreak('main/index.ts', 'host/lens-host.ts')).toBeNull()
  })

  const graph = new Map(files(SRC).map((f) => [f, importsOf(f)]))

  it('no module under src (.ts or .svelte) imports itself through others', () => {
    expect(graph.size).toBeGreaterThan(20)
    expect([...graph.keys()].some((f) => f.endsWith('.svelte'))).toBe(true)
    const found = cycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(' → '))
    expect(found).toEqual([])
  })

  it('no module under src breaks a layer', () => {
    const breaks = [...graph].flatMap(([from, tos]) =>
      tos.flatMap((to) => {
        const why = layerBreak(relative(SRC, from), relative(SRC, to))
        return why ? [`${relative(SRC, from)} → ${relative(SRC, to)}: ${why}`] : []
      }),
    )
    expect(breaks).toEqual([])
  })
})
