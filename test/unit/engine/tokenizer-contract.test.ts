import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ContractError } from '../../../src/engine/contract'
import { encodeSource, translate } from '../../../src/engine/decode'
import { LoadedModel } from '../../../src/engine/model'
import { editedModel, ROOT, setMeta, tiny } from '../../helpers'

const unigram = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tokenizers/spm-unigram.json'), 'utf8')) as { model: { vocab: [string, number][] } }

async function refusal(path: string): Promise<string> {
  const err = await LoadedModel.open(path).then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ContractError)
  const msg = (err as Error).message
  expect(msg).not.toMatch(/\n| {4}at /)
  return msg
}

const withSrcTokenizer = (value: unknown) =>
  editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.src_tokenizer', typeof value === 'string' ? value : JSON.stringify(value)))

describe('tokenizer specs in the model metadata', () => {
  it("runs a tokenizer.json for the source: its pieces, mapped through the model's own vocabulary", async () => {
    // The model's vocabulary need not list the pieces in the tokenizer's order: the engine maps
    // by piece. Here: the tiny model's four specials, then SentencePiece's pieces, cut to the
    // 400 rows of its embedding (the rest become <unk>).
    const pieces = unigram.model.vocab.map(([p]) => p).filter((p) => !/^<.*>$/.test(p))
    const vocab = ['<pad>', '<unk>', '<s>', '</s>', ...pieces].slice(0, 400)
    const path = editedModel(tiny('bahdanau'), (m) => {
      setMeta(m, 'al.src_tokenizer', JSON.stringify({ type: 'hf', json: unigram }))
      setMeta(m, 'al.src_vocab', JSON.stringify(vocab))
    })
    const m = await LoadedModel.open(path)
    try {
      expect(m.spec.srcTokenizer.type).toBe('hf')
      const src = encodeSource(m, 'A man in a blue shirt.')
      expect(src.tokens.slice(0, -1).join('')).toBe('\u2581A\u2581man\u2581in\u2581a\u2581blue\u2581shirt.')
      expect(src.ids).toEqual(src.tokens.map((t) => vocab.indexOf(t)))
      expect(src.unknown.some(Boolean)).toBe(false)
      const far = encodeSource(m, 'Emoji 🐕')
      expect(far.unknown.slice(0, -1)).toContain(true)
      const t = await translate(m, 'A man in a blue shirt.')
      expect(t.srcTokens).toEqual(src.tokens)
      expect(t.attention.every((row) => row.length === src.tokens.length)).toBe(true)
    } finally {
      await m.release()
    }
  })

  it('accepts the tokenizer.json as a JSON string too, and the new word, char and bpe fields', async () => {
    const asString = await LoadedModel.open(withSrcTokenizer({ type: 'hf', json: JSON.stringify(unigram) }))
    expect(asString.spec.srcTokenizer.type).toBe('hf')
    await asString.release()
    const chars = await LoadedModel.open(withSrcTokenizer({ type: 'char', lowercase: false, keep_spaces: true }))
    expect(chars.spec.srcTokenizer).toEqual({ type: 'char', lowercase: false, capitalize: false, keep_spaces: true })
    expect(encodeSource(chars, 'a b').tokens).toEqual(['a', '\u2581', 'b', '</s>'])
    await chars.release()
    const old = await LoadedModel.open(withSrcTokenizer({ type: 'word' }))
    expect(old.spec.srcTokenizer).toEqual({ type: 'word', lowercase: true, capitalize: false })
    await old.release()
    const bpe = await LoadedModel.open(withSrcTokenizer({ type: 'bpe', joiner: '@@', merges: ['a b', 'ab c</w>'] }))
    expect(encodeSource(bpe, 'abc abd').tokens).toEqual(['abc', 'ab@@', 'd', '</s>'])
    await bpe.release()
  })

  it('refuses a malformed spec with one sentence naming the key', async () => {
    const key = 'The model\'s tokenizer "al.src_tokenizer"'
    expect(await refusal(withSrcTokenizer({ type: 'sentencepiece' }))).toBe(`${key} has no type "word", "char", "bpe", "jieba", "hf".`)
    expect(await refusal(withSrcTokenizer('[1, 2]'))).toBe(`${key} has no type "word", "char", "bpe", "jieba", "hf".`)
    expect(await refusal(withSrcTokenizer({ type: 'char', keep_spaces: 'yes' }))).toBe(`${key} has "keep_spaces" that is not true or false.`)
    expect(await refusal(withSrcTokenizer({ type: 'word', joiner: '' }))).toBe(`${key} has a "joiner" that is not a non-empty string without spaces.`)
    expect(await refusal(withSrcTokenizer({ type: 'bpe', merges: ['a b c'] }))).toBe(`${key} has "merges" that are not a list of "left right" strings.`)
    expect(await refusal(withSrcTokenizer({ type: 'bpe' }))).toBe(`${key} has "merges" that are not a list of "left right" strings.`)
    expect(await refusal(withSrcTokenizer({ type: 'hf', json: '{"model": ' }))).toBe(`${key} has a "json" string that is not valid JSON.`)
    expect(await refusal(withSrcTokenizer({ type: 'hf', json: { version: '1.0' } }))).toBe(
      `${key} has no "json" holding a tokenizer.json object with a "model".`,
    )
    expect(await refusal(withSrcTokenizer({ type: 'hf', json: unigram, config: [] }))).toBe(`${key} has a "config" that is not an object.`)
    const wordLevel = { ...unigram, model: { type: 'WordLevel', vocab: { a: 0 }, unk_token: 'a' } }
    expect(await refusal(withSrcTokenizer({ type: 'hf', json: wordLevel }))).toBe(
      `${key} is a tokenizer.json whose model type "WordLevel" is not BPE, Unigram, WordPiece.`,
    )
    const badPre = { ...unigram, pre_tokenizer: { type: 'Telepathy' } }
    expect(await refusal(withSrcTokenizer({ type: 'hf', json: badPre }))).toBe(
      `${key} is a tokenizer.json that @huggingface/tokenizers cannot run (Unknown PreTokenizer type: Telepathy).`,
    )
    const noAdded = { ...unigram, added_tokens: undefined }
    expect(await refusal(withSrcTokenizer({ type: 'hf', json: noAdded }))).toMatch(
      /^The model's tokenizer "al.src_tokenizer" is a tokenizer.json that @huggingface\/tokenizers cannot run \(.+\)\.$/,
    )
  })
})
