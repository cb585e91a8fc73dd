import { BinaryReader, WireType } from '@bufbuild/protobuf/wire'

/**
 * A SentencePiece model (Marian's source.spm / target.spm) as a Hugging Face tokenizer.json, so
 * that @huggingface/tokenizers runs it: the layout of transformers' SpmConverter, as
 * training/spm_to_tokenizer_json.py writes it for the bundled models (the normalizer as plain
 * steps, not the precompiled character map). Converting here rather than adding a SentencePiece
 * reader from npm keeps one tokenizer library for every format; the parity tests compare its
 * pieces with the Python sentencepiece's on the test folders.
 */
const NORMAL = 1
const UNKNOWN = 2
const CONTROL = 3
const USER_DEFINED = 4
const UNIGRAM = 1

interface Piece {
  piece: string
  score: number
  type: number
}

interface SpmModel {
  pieces: Piece[]
  modelType: number
  byteFallback: boolean
  normalizer: { name: string; addDummyPrefix: boolean; removeExtraWhitespaces: boolean }
}

export class SpmError extends Error {}

function readPiece(bytes: Uint8Array): Piece {
  const r = new BinaryReader(bytes)
  const p: Piece = { piece: '', score: 0, type: NORMAL }
  while (r.pos < r.len) {
    const [f, w] = r.tag()
    if (f === 1 && w === WireType.LengthDelimited) p.piece = r.string()
    else if (f === 2 && w === WireType.Bit32) p.score = r.float()
    else if (f === 3 && w === WireType.Varint) p.type = r.int32()
    else r.skip(w)
  }
  return p
}

/** SentencePiece's ModelProto: pieces (1), trainer_spec (2: model_type 3, byte_fallback 35), normalizer_spec (3). */
export function readSpm(bytes: Uint8Array): SpmModel {
  const m: SpmModel = {
    pieces: [],
    modelType: UNIGRAM,
    byteFallback: false,
    normalizer: { name: 'nmt_nfkc', addDummyPrefix: true, removeExtraWhitespaces: true },
  }
  try {
    const r = new BinaryReader(bytes)
    while (r.pos < r.len) {
      const [f, w] = r.tag()
      if (f === 1 && w === WireType.LengthDelimited) m.pieces.push(readPiece(r.bytes()))
      else if (f === 2 && w === WireType.LengthDelimited) {
        const t = new BinaryReader(r.bytes())
        while (t.pos < t.len) {
          const [tf, tw] = t.tag()
          if (tf === 3 && tw === WireType.Varint) m.modelType = t.int32()
          else if (tf === 35 && tw === WireType.Varint) m.byteFallback = t.bool()
          else t.skip(tw)
        }
      } else if (f === 3 && w === WireType.LengthDelimited) {
        const n = new BinaryReader(r.bytes())
        while (n.pos < n.len) {
          const [nf, nw] = n.tag()
          if (nf === 1 && nw === WireType.LengthDelimited) m.normalizer.name = n.string()
          else if (nf === 3 && nw === WireType.Varint) m.normalizer.addDummyPrefix = n.bool()
          else if (nf === 4 && nw === WireType.Varint) m.normalizer.removeExtraWhitespaces = n.bool()
          else n.skip(nw)
        }
      } else r.skip(w)
    }
  } catch (e) {
    throw new SpmError(`is not a SentencePiece model (${(e as Error).message})`)
  }
  if (m.pieces.length < 3) throw new SpmError('is not a SentencePiece model (fewer than three pieces)')
  return m
}

// SentencePiece's nmt_nfkc rule (normalizer/builder.cc, BuildNmtNFKCMap) on top of NFKC.
const NMT_DROP = '[\u0001-\u0008\u000b\u000e-\u001f\u007f\u008f\u009f]'
const NMT_SPACE = '[\u0009\u000a\u000c\u000d\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]'
const replace = (pattern: string, content: string) => ({ type: 'Replace', pattern: { Regex: pattern }, content })

function normalizer(n: SpmModel['normalizer']): Record<string, unknown> {
  const steps: Record<string, unknown>[] = []
  if (n.name.startsWith('nmt_nfkc')) steps.push(replace(NMT_DROP, ''), replace(NMT_SPACE, ' '))
  if (/^(nmt_)?nfkc(_cf)?$/.test(n.name)) steps.push({ type: 'NFKC' })
  else if (n.name !== 'identity')
    throw new SpmError(`uses the normalization rule "${n.name}", which this app does not read (nmt_nfkc, nfkc, *_cf and identity)`)
  if (n.name.endsWith('_cf')) steps.push({ type: 'Lowercase' })
  if (n.removeExtraWhitespaces) steps.push({ type: 'Strip', strip_left: true, strip_right: true }, replace(' {2,}', ' '))
  return { type: 'Sequence', normalizers: steps }
}

/** A Unigram SentencePiece model as a tokenizer.json object. */
export function spmToTokenizerJson(bytes: Uint8Array): Record<string, unknown> {
  const m = readSpm(bytes)
  if (m.modelType !== UNIGRAM) throw new SpmError('is a BPE SentencePiece model; Marian folders hold unigram ones (convert it to tokenizer.json)')
  if (m.byteFallback) throw new SpmError('uses byte fallback, which this app does not read')
  const unk = m.pieces.findIndex((p) => p.type === UNKNOWN)
  const meta = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: m.normalizer.addDummyPrefix ? 'always' : 'never', split: true }
  return {
    version: '1.0',
    added_tokens: m.pieces.flatMap((p, id) =>
      p.type === UNKNOWN || p.type === CONTROL || p.type === USER_DEFINED
        ? [{ id, content: p.piece, single_word: false, lstrip: false, rstrip: false, normalized: false, special: p.type !== USER_DEFINED }]
        : [],
    ),
    normalizer: normalizer(m.normalizer),
    pre_tokenizer: meta,
    post_processor: null,
    decoder: meta,
    model: { type: 'Unigram', unk_id: unk < 0 ? 0 : unk, vocab: m.pieces.map((p) => [p.piece, p.score]), byte_fallback: false },
  }
}
