import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { FORECAST_LABELS_EN, FORECAST_LABELS_ZH } from '../../../src/shared/charts/forecast'
import { ROOT } from '../../helpers'

/**
 * Every string the interface shows lives in a component's `{ en: {...}, zh: {...} }` dictionary
 * (src/renderer/src/lib/i18n.svelte.ts). This reads every dictionary from the source and checks
 * that the Chinese one has every key the English one has, and no English text left in it.
 */
const RENDERER = join(ROOT, 'src', 'renderer', 'src')

function svelteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? svelteFiles(join(dir, e.name)) : e.name.endsWith('.svelte') ? [join(dir, e.name)] : [],
  )
}

/** A dictionary's leaves: key path → the literal text of a string, a template or a function's strings. */
type Leaves = Map<string, string>

function leaves(node: ts.Node, path: string, out: Leaves): void {
  if (ts.isAsExpression(node) || ts.isParenthesizedExpression(node) || ts.isSatisfiesExpression(node)) return leaves(node.expression, path, out)
  if (ts.isObjectLiteralExpression(node)) {
    for (const p of node.properties) {
      if (ts.isPropertyAssignment(p)) leaves(p.initializer, `${path}.${p.name.getText().replace(/^'|'$/g, '')}`, out)
      else if (ts.isShorthandPropertyAssignment(p)) out.set(`${path}.${p.name.getText()}`, '')
    }
    return
  }
  if (ts.isArrayLiteralExpression(node)) return node.elements.forEach((e, i) => leaves(e, `${path}[${i}]`, out))
  // A string, a template or a function: all the literal text in it.
  const texts: string[] = []
  const compared = (n: ts.Node) =>
    ts.isBinaryExpression(n.parent) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(n.parent.operatorToken.kind)
  const visit = (n: ts.Node) => {
    // A literal compared with (`where === 'first'`) or in a type (`'first' | 'last'`) is code, not text.
    // So is a key that picks from a table (`SIZE_PRESETS['paper-single']`).
    const key = ts.isElementAccessExpression(n.parent) && n.parent.argumentExpression === n
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && (compared(n) || key || ts.isLiteralTypeNode(n.parent))) return
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) texts.push(n.text)
    else if (ts.isTemplateExpression(n)) {
      texts.push(n.head.text)
      n.templateSpans.forEach((s) => {
        visit(s.expression)
        texts.push(s.literal.text)
      })
      return
    }
    ts.forEachChild(n, visit)
  }
  visit(node)
  out.set(path, texts.join(' '))
}

function dictionaries(file: string): { name: string; en: Leaves; zh: Leaves }[] {
  const src = readFileSync(file, 'utf8')
  const script = src.match(/<script[^>]*>([\s\S]*?)<\/script>/)?.[1] ?? ''
  const sf = ts.createSourceFile(file, script, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: { name: string; en: Leaves; zh: Leaves }[] = []
  const visit = (n: ts.Node) => {
    if (ts.isObjectLiteralExpression(n)) {
      const en = n.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === 'en') as ts.PropertyAssignment | undefined
      const zh = n.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === 'zh') as ts.PropertyAssignment | undefined
      if (en && zh) {
        const [a, b]: [Leaves, Leaves] = [new Map(), new Map()]
        leaves(en.initializer, '', a)
        leaves(zh.initializer, '', b)
        found.push({ name: relative(ROOT, file), en: a, zh: b })
        return
      }
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
  return found
}

// Words that are the same in both languages: names, units, notation.
const KEEP = new Set([
  'bleu',
  'aer',
  'webcodecs',
  'chrf',
  'mae',
  'mape',
  'csv',
  'softmax',
  'viridis',
  'cividis',
  'local-m',
  'local-p',
  'log',
  'onnx',
  'ctrl',
  'sacrebleu',
  'tanh',
  'hugging',
  'marian',
  'opus-mt',
  'optimum',
  'transformers',
  // The architecture, as Bahdanau and Luong are names (the Contributions tab: "need a Transformer").
  'transformer',
  'shift',
  // The Contributions tab cites its methods by their authors and names (Kobayashi et al., Ferrando
  // et al., Abnar & Zuidema; Shift-Att), as the papers are found.
  'kobayashi',
  'ferrando',
  'abnar',
  'zuidema',
  'shift-att',
  'alti',
  // The language picker searches English names too: its tip gives one as the example to type.
  'french',
])
const CJK = /[\u3000-\u9fff\uff00-\uffef]/

/** English words (3+ letters) in a text, less the ones every language keeps. */
function englishWords(text: string): string[] {
  return (text.match(/[A-Za-z][A-Za-z'-]{2,}/g) ?? []).filter(
    (w) => !KEEP.has(w.toLowerCase()) && !/^(local|luong|bahdanau|greys|beam|step|lag|sigmoid|exp|const)$/i.test(w) && !/_/.test(w),
  )
}

const all = svelteFiles(RENDERER).flatMap(dictionaries)

describe('the Chinese interface', () => {
  it('finds the dictionary of every component that picks strings by language', () => {
    const picking = svelteFiles(RENDERER).filter((f) => /\bpick\(M\)/.test(readFileSync(f, 'utf8')))
    expect(picking.length).toBeGreaterThan(10)
    for (const f of picking)
      expect(
        all.map((d) => d.name),
        relative(ROOT, f),
      ).toContain(relative(ROOT, f))
  })

  it.each(all.map((d) => [d.name, d] as const))('%s: every English key has a Chinese text, and none is left in English', (_, d) => {
    expect([...d.zh.keys()].sort()).toEqual([...d.en.keys()].sort())
    const untranslated = [...d.en].filter(([key, en]) => {
      const zh = d.zh.get(key) ?? ''
      const words = englishWords(en)
      // A text with English words needs Chinese in its translation, and must not keep those words.
      return words.length > 0 && (!CJK.test(zh) || englishWords(zh).some((w) => words.includes(w) && w.length > 4))
    })
    expect(untranslated.map(([key]) => key)).toEqual([])
  })

  it('notation writes its subscripts as subscripts (pₜ, hⱼ), as the figures do, not p_t', () => {
    const underscored = all.flatMap((d) =>
      [...d.en, ...d.zh].flatMap(([key, text]) => (text.match(/\b[A-Za-z]_[a-z]{1,2}\b/g) ?? []).map((m) => `${d.name} ${key}: ${m}`)),
    )
    expect(underscored).toEqual([])
  })

  it('the forecast chart’s labels come in Chinese too', () => {
    expect(Object.keys(FORECAST_LABELS_ZH).sort()).toEqual(Object.keys(FORECAST_LABELS_EN).sort())
    expect(CJK.test(FORECAST_LABELS_ZH.naive(10080) + FORECAST_LABELS_ZH.lag(48, 1440) + FORECAST_LABELS_ZH.attention)).toBe(true)
  })
})
