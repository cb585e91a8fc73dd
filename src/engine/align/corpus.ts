import { readFile } from 'node:fs/promises'
import { gunzipSync } from 'node:zlib'
import type { WordPair } from './gold'

/**
 * Training text for the statistical aligner, brought to the conventions of the gold sets it is
 * scored on (their words are lower-cased, punctuation split off; the Hansards' French has its
 * elisions and contractions undone: "l'égard" → "le égard", "du" → "de le"), so that a word of the
 * corpus and the same word of a gold pair are one vocabulary entry. Chinese without spaces is
 * segmented by longest match against the words of the pairs being aligned (a character where no
 * word matches): enough to find the gold's words in the corpus, without a segmenter in the engine.
 */
const TOKEN = /[\p{L}\p{M}\p{N}_]+|[^\s\p{L}\p{M}\p{N}_]/gu
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/
const FRENCH_ELISION = /\b(j|l|d|qu|s|n|c|m|t|jusqu|lorsqu|puisqu)['’]/giu
const ENGLISH_CLITIC = /(\p{L})['’](s|re|ve|ll|d|m)\b/giu

export type Language = 'en' | 'fr' | 'zh' | string

/** One gold word as the aligner's vocabulary sees it (the gold's word boundaries stay as they are). */
export const normalizeWord = (w: string): string => w.normalize('NFKC').toLowerCase()

/** Raw corpus text → words in the gold's conventions. */
export function corpusWords(text: string, lang: Language, dict: ChineseDictionary | null = null): string[] {
  let t = text.normalize('NFKC').toLowerCase()
  if (lang === 'fr') {
    t = t.replace(FRENCH_ELISION, (_, a: string) => (a.endsWith('qu') ? a + 'e ' : a === 'j' || a.length === 1 ? a + 'e ' : a + ' '))
    t = t
      .replace(/\bdu\b/gu, 'de le')
      .replace(/\bau\b/gu, 'à le')
      .replace(/\baux\b/gu, 'à les')
  }
  if (lang === 'en') t = t.replace(/n['’]t\b/gu, " n't").replace(ENGLISH_CLITIC, "$1 '$2")
  const out: string[] = []
  for (const chunk of t.split(/\s+/)) {
    if (!chunk) continue
    if (dict && CJK.test(chunk)) out.push(...dict.segment(chunk))
    else if (chunk.startsWith("'") || chunk === "n't") out.push(chunk)
    else out.push(...(chunk.match(TOKEN) ?? []))
  }
  return out
}

/** Longest-match segmentation against a word list. */
export class ChineseDictionary {
  private readonly words: Set<string>
  private readonly longest: number
  constructor(words: Iterable<string>) {
    this.words = new Set([...words].filter((w) => CJK.test(w)))
    this.longest = Math.max(1, ...[...this.words].map((w) => Array.from(w).length))
  }
  segment(text: string): string[] {
    const chars = Array.from(text)
    const out: string[] = []
    for (let i = 0; i < chars.length;) {
      let n = Math.min(this.longest, chars.length - i)
      while (n > 1 && !this.words.has(chars.slice(i, i + n).join(''))) n--
      const piece = chars.slice(i, i + n).join('')
      // Runs of non-CJK characters inside a chunk (digits, Latin) keep the usual token rule.
      if (n === 1 && !CJK.test(piece)) {
        let k = i + 1
        while (k < chars.length && !CJK.test(chars[k])) k++
        out.push(...(chars.slice(i, k).join('').match(TOKEN) ?? []))
        i = k
      } else {
        out.push(piece)
        i += n
      }
    }
    return out
  }
}

async function text(path: string): Promise<string> {
  const bytes = await readFile(path)
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')
}

const linesOf = (t: string): string[] => t.replace(/\r?\n$/, '').split(/\r?\n/)

/**
 * Two parallel files (plain or .gz), one sentence a line. `pairs` are the pairs to be aligned,
 * whose Chinese words make the segmentation dictionary.
 */
export async function readParallel(srcPath: string, tgtPath: string, srcLang: Language, tgtLang: Language, pairs: readonly WordPair[]): Promise<WordPair[]> {
  const [s, t] = await Promise.all([text(srcPath), text(tgtPath)])
  const src = linesOf(s)
  const tgt = linesOf(t)
  if (src.length !== tgt.length) throw new Error(`${srcPath} has ${src.length} lines but ${tgtPath} has ${tgt.length}.`)
  return corpusPairs(src, tgt, srcLang, tgtLang, pairs)
}

/** Raw parallel sentences → word pairs in the gold's conventions (`pairs` give the Chinese dictionary); empty sides dropped. */
export function corpusPairs(src: readonly string[], tgt: readonly string[], srcLang: Language, tgtLang: Language, pairs: readonly WordPair[]): WordPair[] {
  const dict = srcLang === 'zh' || tgtLang === 'zh' ? new ChineseDictionary(pairs.flatMap((p) => [...p.src, ...p.tgt].map(normalizeWord))) : null
  return src
    .map((line, n) => ({ src: corpusWords(line, srcLang, dict), tgt: corpusWords(tgt[n] ?? '', tgtLang, dict) }))
    .filter((p) => p.src.length && p.tgt.length)
}

/** Tatoeba's `english<TAB>chinese<TAB>attribution` as zh → en pairs (or en → zh). */
export async function readTatoeba(path: string, pairs: readonly WordPair[], direction: 'zh-en' | 'en-zh' = 'zh-en'): Promise<WordPair[]> {
  const rows = linesOf(await text(path)).map((l) => l.split('\t'))
  const en = rows.map((r) => r[0] ?? '')
  const zh = rows.map((r) => r[1] ?? '')
  return direction === 'zh-en' ? corpusPairs(zh, en, 'zh', 'en', pairs) : corpusPairs(en, zh, 'en', 'zh', pairs)
}

/** The corpus each bundled pair's models were trained on, in ../shared/datasets (null where there is none). */
export async function trainingCorpus(datasets: string, pair: string, pairs: readonly WordPair[]): Promise<{ name: string; pairs: WordPair[] } | null> {
  if (pair === 'en-fr')
    return {
      name: 'Multi30K train (29,000 pairs)',
      pairs: await readParallel(`${datasets}/multi30k/train.en.gz`, `${datasets}/multi30k/train.fr.gz`, 'en', 'fr', pairs),
    }
  if (pair === 'zh-en') return { name: 'Tatoeba cmn-eng (29,156 pairs)', pairs: await readTatoeba(`${datasets}/tatoeba-cmn-eng/cmn.txt`, pairs) }
  return null
}
