import * as ort from 'onnxruntime-node'
import type { Translation } from '../../shared/api'
import type { LoadedModel } from './model'
import { detokenize, tokenize } from './tokenizer'

/** Longest source the engine decodes; longer input is cut and the result says so. */
export const MAX_SOURCE_TOKENS = 200

export function maxTargetLength(srcLen: number): number {
  return 2 * srcLen + 10
}

export interface EncodedSource {
  tokens: string[]
  ids: number[]
  unknown: boolean[]
  truncated: boolean
}

export function encodeSource(model: LoadedModel, text: string): EncodedSource {
  const { srcTokenizer, srcVocab, special } = model.spec
  let tokens = tokenize(text, srcTokenizer)
  const truncated = tokens.length > MAX_SOURCE_TOKENS
  if (truncated) tokens = tokens.slice(0, MAX_SOURCE_TOKENS)
  const index = vocabIndex(srcVocab)
  const ids = tokens.map((t) => index.get(t) ?? special.unk)
  return {
    tokens: [...tokens, srcVocab[special.eos]],
    ids: [...ids, special.eos],
    unknown: [...ids.map((id) => id === special.unk), false],
    truncated,
  }
}

const indexCache = new WeakMap<string[], Map<string, number>>()
function vocabIndex(vocab: string[]): Map<string, number> {
  let m = indexCache.get(vocab)
  if (!m) {
    m = new Map(vocab.map((w, i) => [w, i]))
    indexCache.set(vocab, m)
  }
  return m
}

function rows(t: ort.Tensor | undefined, S: number): number[] | null {
  return t ? Array.from((t.data as Float32Array).subarray(0, S)) : null
}

/** Greedy decoding of one sentence, capturing the attention of every step. */
export async function greedyDecode(model: LoadedModel, text: string): Promise<Translation> {
  const started = performance.now()
  const { spec } = model
  const src = encodeSource(model, text)
  const S = src.ids.length
  const enc = await model.encoder.run({
    src_ids: new ort.Tensor('int64', BigInt64Array.from(src.ids, BigInt), [1, S]),
    src_mask: new ort.Tensor('float32', new Float32Array(S).fill(1), [1, S]),
  })
  const memory = enc.encoder_out
  const memLen = memory.dims[1]
  let state = enc.decoder_init
  const fixed: Record<string, ort.Tensor> = {
    encoder_states: memory,
    src_mask: new ort.Tensor('float32', new Float32Array(S).fill(1), [1, S]),
    attn_override: new ort.Tensor('float32', new Float32Array(memLen), [1, memLen]),
    override_on: new ort.Tensor('float32', new Float32Array(1), [1]),
  }
  const wanted = new Set(model.step.inputNames)
  const out: Translation = {
    modelId: '',
    source: text,
    srcTokens: src.tokens,
    srcUnknown: src.unknown,
    tgtTokens: [],
    text: '',
    attention: [],
    scores: [],
    positions: spec.attention.startsWith('local') ? [] : null,
    windows: spec.attention.startsWith('local') ? [] : null,
    gaussian: spec.attention.startsWith('local') ? [] : null,
    tokenLogProbs: [],
    truncated: src.truncated,
    decodeMs: 0,
    provider: model.provider,
  }
  let prev = spec.special.bos
  const words: string[] = []
  for (let t = 0; t < maxTargetLength(S); t++) {
    const feeds: Record<string, ort.Tensor> = {
      ...fixed,
      prev_token: new ort.Tensor('int64', BigInt64Array.of(BigInt(prev)), [1]),
      state,
      step: new ort.Tensor('float32', Float32Array.of(t), [1]),
    }
    for (const k of Object.keys(feeds)) if (!wanted.has(k)) delete feeds[k]
    const o = await model.step.run(feeds)
    const logits = o.logits.data as Float32Array
    let best = 0
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i
    out.tokenLogProbs.push(logits[best] - logSumExp(logits))
    state = o.next_state
    const att = rows(o.attention, S)
    if (att) out.attention.push(att)
    const sc = rows(o.scores, S)
    if (sc) out.scores.push(sc)
    if (out.positions && o.position) {
      out.positions.push((o.position.data as Float32Array)[0])
      const w = o.window.data as Float32Array
      out.windows!.push([w[0], w[1]])
      out.gaussian!.push(rows(o.gaussian, S)!)
    }
    out.tgtTokens.push(spec.tgtVocab[best] ?? '<unk>')
    if (best === spec.special.eos) break
    words.push(spec.tgtVocab[best] ?? '<unk>')
    prev = best
  }
  out.text = detokenize(words, spec.tgtTokenizer)
  out.decodeMs = performance.now() - started
  return out
}

function logSumExp(x: Float32Array): number {
  let m = -Infinity
  for (const v of x) if (v > m) m = v
  let s = 0
  for (const v of x) s += Math.exp(v - m)
  return m + Math.log(s)
}
