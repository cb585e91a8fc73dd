import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ContractError, shown } from '../../contract'
import type { HfSpec } from '../../tokenizer'
import { hfTokenizer } from '../../tokenizers/hf'
import type { SourceEncoder } from '../types'
import { readJson, type Json } from './folder-json'
import { SpmError, spmToTokenizerJson } from './spm'

/** A folder's tokenizer: tokenizer.json, or Marian's SentencePiece pair and shared vocabulary. */
export interface FolderTokenizer {
  src: HfSpec
  tgt: HfSpec
  vocab: Map<string, number>
  /** Whether it is the folder's tokenizer.json (whose encode adds its own special tokens and ids). */
  fromJson: boolean
  note: string
}

export async function readTokenizer(dir: string): Promise<FolderTokenizer> {
  const tokPath = join(dir, 'tokenizer.json')
  if (existsSync(tokPath)) {
    const json = await readJson(tokPath, 'tokenizer.json')
    const src: HfSpec = { type: 'hf', json }
    return { src, tgt: src, vocab: hfTokenizer(src).get_vocab(true), fromJson: true, note: `tokenizer.json (${shown((json.model as Json)?.type)})` }
  }
  if (!['source.spm', 'target.spm', 'vocab.json'].every((f) => existsSync(join(dir, f))))
    throw new ContractError(
      "The folder has no tokenizer: it needs tokenizer.json, or Marian's source.spm + target.spm + vocab.json (save them with tokenizer.save_pretrained into the folder).",
    )
  const vj = await readJson(join(dir, 'vocab.json'), 'vocab.json')
  const vocab = new Map(Object.entries(vj).filter((e): e is [string, number] => typeof e[1] === 'number'))
  try {
    const src = spmToTokenizerJson(new Uint8Array(await readFile(join(dir, 'source.spm'))))
    // The target side decodes ids of the shared vocabulary: the target model's pieces with their ids.
    const tgt = spmToTokenizerJson(new Uint8Array(await readFile(join(dir, 'target.spm'))))
    const byId = [...vocab.entries()].sort((a, b) => a[1] - b[1])
    const tgtJson = {
      ...tgt,
      added_tokens: [],
      model: { type: 'Unigram', unk_id: vocab.get('<unk>') ?? 1, vocab: byId.map(([p]) => [p, 0]), byte_fallback: false },
    }
    return {
      src: { type: 'hf', json: src },
      tgt: { type: 'hf', json: tgtJson },
      vocab,
      fromJson: false,
      note: 'Marian source.spm + target.spm (converted to tokenizer.json) with vocab.json',
    }
  } catch (e) {
    if (e instanceof SpmError) throw new ContractError(`The folder's SentencePiece model ${e.message}.`)
    throw e
  }
}

/** Every id's piece, `<id>` where the vocabulary names none (config.json's vocab_size may be larger). */
export function pieceTable(vocab: Map<string, number>, vocabSize: number): string[] {
  // NLLB's 256,206 pieces: spread into Math.max they overflow the stack.
  let maxId = -1
  for (const id of vocab.values()) if (id > maxId) maxId = id
  const size = Math.max(vocabSize, maxId) + (vocabSize > maxId ? 0 : 1)
  const pieces: string[] = Array.from({ length: size }, (_, i) => `<${i}>`)
  for (const [p, id] of vocab) if (id >= 0 && id < size) pieces[id] = p
  return pieces
}

/** The tokenizer.json's own special tokens around a text (BART's <s> … </s>, T5's … </s>), or null where it adds none. */
export function ownSpecials(t: FolderTokenizer): { prefix: number[]; suffix: number[] } | null {
  if (!t.fromJson) return null
  const tok = hfTokenizer(t.src)
  const bare = tok.encode('a b', { add_special_tokens: false }).ids
  const full = tok.encode('a b', { add_special_tokens: true }).ids
  const at = full.findIndex((_, i) => bare.every((x, j) => full[i + j] === x))
  return at >= 0 && full.length > bare.length ? { prefix: full.slice(0, at), suffix: full.slice(at + bare.length) } : null
}

/** A source text as the encoder takes it: `prefix` (a language token…), its pieces, `suffix` (</s>…). */
export function folderSourceEncoder(t: FolderTokenizer, pieces: string[], unk: number, prefix: number[], suffix: number[]): SourceEncoder {
  const srcTok = hfTokenizer(t.src)
  return (text) => {
    const body = t.fromJson ? srcTok.encode(text, { add_special_tokens: false }) : null
    const ps = body ? body.tokens : srcTok.tokenize(text)
    const ids = body ? body.ids : ps.map((p) => t.vocab.get(p) ?? unk)
    return {
      pieces: [...prefix.map((i) => pieces[i]), ...ps, ...suffix.map((i) => pieces[i])],
      ids: [...prefix, ...ids, ...suffix],
      head: prefix.length,
      tail: suffix.length,
    }
  }
}
