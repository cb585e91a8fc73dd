import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../helpers'

const SRC = join(ROOT, 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path)
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** Every module a file imports (type-only imports too: they tie the modules as tightly when read). */
function imports(file: string): string[] {
  // TypeScript's own scanner: import, import type, export … from, import() and require().
  const found = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName)
  return found
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec))
    .map((base) => [base, `${base}.ts`, join(base, 'index.ts')].find((p) => p.endsWith('.ts') && existsSync(p)))
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

describe('imports', () => {
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

  it('the scanner sees type-only imports and re-exports', () => {
    const api = imports(join(SRC, 'shared', 'api.ts')).map((f) => relative(SRC, f))
    expect(api).toContain(join('shared', 'attention-kinds.ts'))
  })

  it('no module under src imports itself through others', () => {
    const graph = new Map(files(SRC).map((f) => [f, imports(f)]))
    expect(graph.size).toBeGreaterThan(20)
    const found = cycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(' → '))
    expect(found).toEqual([])
  })
})
