import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detokenize, parseTokenizerSpec, tokenize, tokenizerPieces, wordSpans, type TokenizerSpec } from '../../../src/engine/tokenizer'
import { ROOT } from '../../helpers'

const FIX = join(ROOT, 'test/fixtures')
const read = <T>(rel: string): T => JSON.parse(readFileSync(join(FIX, rel), 'utf8')) as T

interface TokenizerJson {
  model: { vocab: [string, number][] | Record<string, number> }
}
/** The tokenizer's vocabulary in id order: what an exporter writes as `al.src_vocab`. */
function vocabOf(tj: TokenizerJson): string[] {
  const v = tj.model.vocab
  if (Array.isArray(v)) return v.map(([p]) => p)
  const out: string[] = []
  for (const [p, i] of Object.entries(v)) out[i] = p
  return out
}

function loaded(name: string, unk: string): { spec: TokenizerSpec; vocab: string[]; index: Map<string, number>; unk: number } {
  const json = read<TokenizerJson>(`tokenizers/${name}.json`)
  const vocab = vocabOf(json)
  return { spec: parseTokenizerSpec({ type: 'hf', json }), vocab, index: new Map(vocab.map((p, i) => [p, i])), unk: vocab.indexOf(unk) }
}

/** Text → ids the way the engine does it (encodeSource): the tokenizer's pieces through the
 * model's vocabulary, a piece it lacks (an unknown character, kept as written) to `<unk>`. */
const ids = (t: ReturnType<typeof loaded>, text: string) => tokenize(text, t.spec).map((p) => t.index.get(p) ?? t.unk)

interface SpmCase {
  tokenizer: string
  text: string
  ids: number[]
  decoded: string
}
const spm = read<{ cases: SpmCase[] }>('spm-vectors.json').cases
const UNK = 0

/**
 * The one inherent difference: a tokenizer.json lists SentencePiece's control pieces (<s>, </s>)
 * and <unk> as special added tokens (as transformers' converter does), and Hugging Face tokenizers
 * match special tokens written literally in the text before anything else; SentencePiece never
 * matches control pieces in text. Exactly these texts differ, and only in those three pieces.
 */
const SPECIALS_IN_TEXT = ['a <s> b </s> <unk>']

describe.each(['spm-unigram', 'spm-bpe'])('%s: tokenizer.json run by @huggingface/tokenizers against SentencePiece', (name) => {
  const t = loaded(name, '<unk>')
  const cases = spm.filter((c) => c.tokenizer === name)

  it('has vectors with punctuation, digits, hyphens, accents and characters the model never saw', () => {
    expect(cases.length).toBeGreaterThanOrEqual(300)
    for (const re of [/[,.;:!?]/, /\d/, /\w-\w/, /[éèçà]/, /[\u4e00-\u9fff]/u, /\p{Extended_Pictographic}/u]) {
      expect(cases.some((c) => re.test(c.text))).toBe(true)
    }
    expect(cases.filter((c) => c.ids.includes(UNK)).length).toBeGreaterThan(3)
  })

  it.each(cases.filter((c) => !SPECIALS_IN_TEXT.includes(c.text)).map((c) => [c.text, c] as const))('same ids: %j', (_text, c) => {
    expect(ids(t, c.text)).toEqual(c.ids)
  })

  it('differs from SentencePiece exactly where special pieces are written in the text', () => {
    for (const text of SPECIALS_IN_TEXT) {
      const ref = cases.find((c) => c.text === text)!
      const got = ids(t, text)
      expect(got).not.toEqual(ref.ids)
      expect(tokenize(text, t.spec).filter((p) => ['<s>', '</s>', '<unk>'].includes(p))).toEqual(['<s>', '</s>', '<unk>'])
    }
  })

  it("detokenizes every vector without an unknown piece to SentencePiece's decoded text", () => {
    const known = cases.filter((c) => !c.ids.includes(UNK) && !SPECIALS_IN_TEXT.includes(c.text))
    expect(known.length).toBeGreaterThan(250)
    const wrong = known.filter(
      (c) =>
        detokenize(
          c.ids.map((i) => t.vocab[i]),
          t.spec,
        ) !== c.decoded,
    )
    expect(wrong.map((c) => c.text)).toEqual([])
  })

  it("writes nothing for pieces that are not text: specials and a model's own extra tokens", () => {
    expect(detokenize(['<s>', '\u2581a', '\u2581man', '<pad>', '</s>'], t.spec)).toBe('a man')
    expect(detokenize([], t.spec)).toBe('')
  })

  it("lists the pieces it can make, which an exporter writes as the model's vocabulary", () => {
    expect(new Set(tokenizerPieces(t.spec))).toEqual(new Set(t.vocab))
    expect(tokenizerPieces({ type: 'word', lowercase: true })).toBeNull()
  })

  it('groups pieces into words by their "▁"', () => {
    const pieces = tokenize('A skateboarder jumps', t.spec)
    expect(pieces.length).toBeGreaterThan(3)
    const spans = wordSpans(pieces, t.spec)
    expect(spans).toHaveLength(3)
    expect(spans.flat()).toEqual(pieces.map((_, i) => i))
  })
})

describe("WordPiece tokenizer.json against google-research/bert's tokenizer", () => {
  const t = loaded('wordpiece', '[UNK]')
  const cases = read<{ cases: { text: string; ids: number[]; tokens: string[] }[] }>('tokenizers/wordpiece-vectors.json').cases

  it.each(cases.map((c) => [c.text, c] as const))('same ids: %j', (_text, c) => {
    expect(ids(t, c.text)).toEqual(c.ids)
  })

  // Hand-checked: BERT lower-cases, strips accents, splits punctuation off, and its decoder glues
  // "##" pieces but not punctuation (the text does not round-trip; that is WordPiece's decoder).
  it('lower-cases, strips accents, and decodes with "##" glued', () => {
    expect(tokenize('Café naïve', t.spec)).toEqual(['ca', '##f', '##e', 'n', '##ai', '##ve'])
    expect(detokenize(tokenize('Café naïve', t.spec), t.spec)).toBe('cafe naive')
    expect(tokenize('t-shirt!', t.spec)).toEqual(['t', '-', 'shirt', '!'])
    expect(detokenize(['[CLS]', 'a', 'dog', '##s', '[SEP]'], t.spec)).toBe('a dogs')
    expect(wordSpans(['a', 'dog', '##s'], t.spec)).toEqual([[0], [1, 2]])
  })
})
