/**
 * One colour per model, the same in every view of the app and in every exported figure: a model
 * is coloured by what it is (its attention kind, read from the model or from its name, as the
 * bundled models are named en-fr-bahdanau, zh-en-local-p…), not by where it happens to stand in
 * a list, so Bahdanau is blue in With / without, in BLEU by length and in their PDFs alike.
 */
import { ATTENTION_KINDS, KINDS, type AttentionKind } from '../attention-kinds'

/** Each kind's colour, from its row in the kinds table (a new kind brings its colour there). */
export const KIND_COLOURS = Object.fromEntries(ATTENTION_KINDS.map((k) => [k, KINDS[k].colour])) as Record<AttentionKind, string>
/** For a second model of a kind, or a model whose kind is unknown: chosen by its name. */
const SPARE = ['#1e3a8a', '#65a30d', '#9333ea', '#0f766e', '#be185d', '#854d0e']
const ALL = [...Object.values(KIND_COLOURS), ...SPARE]
export const MARKERS = ['circle', 'rect', 'triangle', 'diamond'] as const

export interface ModelLook {
  color: string
  /** Changes only once every colour is taken in one chart, so no two lines look alike. */
  symbol: (typeof MARKERS)[number]
}

/** The attention kind a model's name ends in ("en-fr-luong-dot · greedy" → luong-dot), or null. */
export function kindOfName(name: string): AttentionKind | null {
  const found = [...ATTENTION_KINDS].sort((a, b) => b.length - a.length).find((k) => new RegExp(`(^|[-_\\s/])${k}($|[-_\\s.·(])`).test(name.toLowerCase()))
  return found ?? null
}

/** A stable index from a name (FNV-1a), so a model without a known kind keeps its spare colour. */
function hash(name: string): number {
  let h = 0x811c9dc5
  for (const c of name) h = Math.imul(h ^ c.codePointAt(0)!, 0x01000193) >>> 0
  return h
}

/** Whether a name is its kind's plain model (en-fr-luong-general, not en-fr-luong-general-guided). */
function plainOf(name: string, kind: AttentionKind): boolean {
  return new RegExp(`(^|[-_\\s/])${kind}$`).test(
    name
      .toLowerCase()
      .split(/\s*[·(]/)[0]
      .trim(),
  )
}

/**
 * Each model's colour and marker in one chart: its kind's colour, unless another model of the
 * chart has it already. A kind's plain model claims the colour before its variants, so
 * en-fr-luong-general stays purple wherever en-fr-luong-general-guided stands in the list.
 */
export function modelLooks(models: readonly { name: string; attention?: AttentionKind | null }[]): ModelLook[] {
  const uses = new Map<string, number>()
  const kinds = models.map(({ name, attention }) => attention ?? kindOfName(name))
  const plain = models.map(({ name }, k) => kinds[k] !== null && plainOf(name, kinds[k]))
  const order = [...models.keys()].sort((a, b) => Number(plain[b]) - Number(plain[a]) || a - b)
  const looks: ModelLook[] = new Array(models.length)
  for (const k of order) {
    const kind = kinds[k]
    const start = hash(models[k].name) % SPARE.length
    const spares = [...SPARE.slice(start), ...SPARE.slice(0, start)]
    const wanted = [...(kind ? [KIND_COLOURS[kind]] : []), ...spares, ...ALL]
    // The first colour not yet used; when all are, the least used one, with the next marker.
    const color = wanted.find((c) => !uses.has(c)) ?? wanted.reduce((a, b) => ((uses.get(b) ?? 0) < (uses.get(a) ?? 0) ? b : a))
    const n = uses.get(color) ?? 0
    uses.set(color, n + 1)
    looks[k] = { color, symbol: MARKERS[n % MARKERS.length] }
  }
  return looks
}

/** Each model's colour in one chart, by name. */
export function modelColours(names: readonly string[]): string[] {
  return modelLooks(names.map((name) => ({ name }))).map((l) => l.color)
}
