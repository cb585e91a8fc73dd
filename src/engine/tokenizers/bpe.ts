import { jiebaWords } from './jieba'
import type { BpeSpec, JiebaSpec } from './spec'
import { units } from './words'

/**
 * Sennrich et al.'s BPE as training/attention_lens/tokenizer.py applies it (class BPE): the characters of a
 * unit, the last one carrying the end-of-word suffix unless the unit is joined to the next; the
 * adjacent pair of lowest merge rank (the first such pair on a tie) is merged everywhere, left to
 * right, until no pair has a rank; every piece but a unit's last, and the last of a joined unit,
 * ends in the joiner. Hand-written rather than @huggingface/tokenizers' BPE because that one has
 * no joiner suffix and breaks rank ties by its own queue order; this is the Python loop, line for
 * line, so both sides make the same pieces.
 */
const CACHE_SIZE = 50_000

class Bpe {
  private readonly ranks = new Map<string, number>()
  private readonly cache = new Map<string, string[]>()

  constructor(
    merges: string[],
    private readonly joiner: string,
    private readonly eow: string,
  ) {
    // A space cannot occur in a symbol (units have none), so "a b" is an unambiguous pair key;
    // a repeated merge keeps its last rank, as Python's dict does.
    merges.forEach((m, r) => this.ranks.set(m, r))
  }

  segment(unit: string, joined: boolean): string[] {
    const key = (joined ? '1' : '0') + unit
    const hit = this.cache.get(key)
    if (hit) return hit
    let syms = Array.from(unit)
    if (!joined) syms[syms.length - 1] += this.eow
    while (syms.length > 1) {
      let best = -1
      let rank = Infinity
      for (let i = 0; i + 1 < syms.length; i++) {
        const r = this.ranks.get(syms[i] + ' ' + syms[i + 1])
        if (r !== undefined && r < rank) [best, rank] = [i, r]
      }
      if (best < 0) break
      const [a, b] = [syms[best], syms[best + 1]]
      const merged: string[] = []
      for (let i = 0; i < syms.length; i++) {
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) {
          merged.push(a + b)
          i++
        } else merged.push(syms[i])
      }
      syms = merged
    }
    const pieces = syms.map((s) => (s.endsWith(this.eow) ? s.slice(0, -this.eow.length) : s + this.joiner))
    if (this.cache.size >= CACHE_SIZE) this.cache.clear()
    this.cache.set(key, pieces)
    return pieces
  }
}

const models = new WeakMap<string[], Bpe>()

/** Normalized text → BPE pieces; the merge table is built once per spec's merge list. The units
 * are the word tokenizer's, or jieba's words (none joined) for a `jieba` spec. */
export function tokenizeBpe(text: string, spec: BpeSpec | JiebaSpec): string[] {
  let bpe = models.get(spec.merges)
  if (!bpe) {
    bpe = new Bpe(spec.merges, spec.joiner, spec.end_of_word_suffix ?? '</w>')
    models.set(spec.merges, bpe)
  }
  const us: [string, boolean][] = spec.type === 'jieba' ? jiebaWords(text).map((w) => [w, false]) : units(text)
  return us.flatMap(([u, joined]) => bpe.segment(u, joined))
}
