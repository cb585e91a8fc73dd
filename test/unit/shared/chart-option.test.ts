/**
 * The figure builders stay typed: every function src/shared/charts exports returns ECharts' own
 * option types, never a loose `Record<string, unknown>` (which the chart component would take
 * unchecked), and ChartOption itself refuses an untyped object. The `@ts-expect-error` lines are
 * checked by `npm run typecheck` (this file is in tsconfig.node.json): were ChartOption to take
 * any object again, they would stop being errors and the type check would fail.
 */
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import type { ChartOption } from '../../../src/shared/charts/echarts-parts'
import { ROOT } from '../../helpers'

const CHARTS = join(ROOT, 'src', 'shared', 'charts')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** `file: name → return type` of every exported function (declared or arrow) whose return type mentions a loose record. */
export function looseReturns(roots: string[]): string[] {
  const program = ts.createProgram(roots, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    resolveJsonModule: true,
  })
  const checker = program.getTypeChecker()
  const loose = /Record<string, unknown>|\{ \[\w+: string\]: unknown; \}/
  const out: string[] = []
  for (const file of roots) {
    const source = program.getSourceFile(file)
    const module = source && checker.getSymbolAtLocation(source)
    if (!module) continue
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      const decl = symbol.valueDeclaration
      if (!decl || decl.getSourceFile() !== source) continue
      for (const signature of checker.getTypeOfSymbolAtLocation(symbol, decl).getCallSignatures()) {
        const returned = checker.typeToString(checker.getReturnTypeOfSignature(signature), undefined, ts.TypeFormatFlags.NoTruncation)
        if (loose.test(returned)) out.push(`${relative(ROOT, file)}: ${symbol.name} → ${returned}`)
      }
    }
  }
  return out
}

describe('figure builders are typed', () => {
  it('no function src/shared/charts exports returns a Record<string, unknown>', () => {
    const roots = files(CHARTS)
    expect(roots.length).toBeGreaterThan(20)
    expect(looseReturns(roots)).toEqual([])
  }, 60_000)

  it('ChartOption refuses an untyped object, an unregistered component and a misspelt key', () => {
    const untyped: Record<string, unknown> = { series: [] }
    // @ts-expect-error an untyped object is not a chart option (the chart component would draw it unchecked)
    const a: ChartOption = untyped
    // @ts-expect-error polar is not among the registered parts
    const b: ChartOption = { series: [], polar: {} }
    // @ts-expect-error `xaxis` is no option key (ECharts' own composed type takes any key)
    const c: ChartOption = { series: [], xAxis: { type: 'category' }, xaxis: {} }
    // @ts-expect-error a series type that is not registered
    const d: ChartOption = { series: [{ type: 'pie' }] }
    // @ts-expect-error the option's own keys are typed too (ComposeOption alone leaves them to its index signature)
    const e: ChartOption = { series: [], animation: 'no' }
    const typed: ChartOption = { animation: false, textStyle: { fontSize: 8 }, graphic: { elements: [{ type: 'text', style: { text: 'x' } }] }, series: [] }
    expect([a, b, c, d, e, typed]).toHaveLength(6)
  })
})
