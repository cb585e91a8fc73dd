import * as ort from 'onnxruntime-node'
import type { PartSession } from '../types'
import { tapName } from './taps'

/**
 * A Hugging Face folder's sessions behind the engine's two parts (docs/model-format.md): the
 * encoder part (`src_ids`, `src_mask` → `encoder_out`, `decoder_init`) and the step part
 * (`prev_token`, `state`, `encoder_states`, `src_mask`, `step` → `logits`, `next_state`,
 * `attention`, `cross_attention`). The KV cache is the opaque state the decoders feed back and
 * reorder for beam search: per row, every layer's cross-attention keys and values (fixed, S
 * positions) then its self-attention ones (one position more each step).
 */

export interface DecoderSessions {
  /** decoder_model.onnx (no past), or the merged decoder. */
  first: ort.InferenceSession
  /** decoder_with_past_model.onnx, the merged decoder again, or null (no cache: the prefix is re-run). */
  past: ort.InferenceSession | null
  merged: boolean
  /** Where each layer's cross-attention [B, H, T, S] comes from: `cross_attentions.{l}` or a tap. */
  cross: string[]
}

export interface StepRules {
  layers: number
  heads: number
  headDim: number
  /** forced_bos_token_id: the only token the first step may emit, or null. */
  forcedFirst: number | null
}

const meta = (name: string, type: ort.Tensor.Type = 'float32'): ort.InferenceSession.ValueMetadata =>
  ({ name, isTensor: true, type, shape: [] }) as unknown as ort.InferenceSession.ValueMetadata

/** The encoder part: Optimum's encoder_model.onnx fed the engine's names; the first state is empty. */
export class HfEncoderPart implements PartSession {
  readonly inputNames = ['src_ids', 'src_mask']
  readonly outputNames = ['encoder_out', 'decoder_init']
  readonly inputMetadata = [meta('src_ids', 'int64'), meta('src_mask')]

  constructor(private readonly session: ort.InferenceSession) {}

  async run(feeds: ort.InferenceSession.FeedsType): Promise<ort.InferenceSession.ReturnType> {
    const ids = feeds.src_ids as ort.Tensor
    const [B, S] = ids.dims
    const mask = feeds.src_mask ? intMask(feeds.src_mask as ort.Tensor) : new ort.Tensor('int64', new BigInt64Array(B * S).fill(1n), [B, S])
    const o = await this.session.run({ input_ids: ids, attention_mask: mask })
    return { encoder_out: o.last_hidden_state, decoder_init: new ort.Tensor('float32', new Float32Array(0), [B, 0]) }
  }

  release(): Promise<void> {
    return this.session.release()
  }
}

function intMask(m: ort.Tensor): ort.Tensor {
  const f = m.data as Float32Array
  return new ort.Tensor(
    'int64',
    BigInt64Array.from(f, (x) => (x > 0 ? 1n : 0n)),
    m.dims,
  )
}

export const pastName = (l: number, half: 'decoder' | 'encoder', kv: 'key' | 'value') => `past_key_values.${l}.${half}.${kv}`
const presentName = (l: number, half: 'decoder' | 'encoder', kv: 'key' | 'value') => `present.${l}.${half}.${kv}`

/** The step part over the folder's decoders. */
export class HfStepPart implements PartSession {
  readonly inputNames = ['prev_token', 'state', 'encoder_states', 'src_mask', 'step']
  readonly outputNames = ['logits', 'next_state', 'attention', 'cross_attention']
  readonly inputMetadata = this.inputNames.map((n) => meta(n, n === 'prev_token' ? 'int64' : 'float32'))

  constructor(
    private readonly d: DecoderSessions,
    private readonly r: StepRules,
  ) {}

  async run(
    feeds: ort.InferenceSession.FeedsType,
    fetches?: ort.InferenceSession.FetchesType | ort.InferenceSession.RunOptions,
  ): Promise<ort.InferenceSession.ReturnType> {
    const prev = feeds.prev_token as ort.Tensor
    const state = feeds.state as ort.Tensor
    const memory = feeds.encoder_states as ort.Tensor
    const B = prev.dims[0]
    const S = memory.dims[1]
    const mask = feeds.src_mask ? intMask(feeds.src_mask as ort.Tensor) : new ort.Tensor('int64', new BigInt64Array(B * S).fill(1n), [B, S])
    const t = feeds.step ? Math.round((feeds.step.data as Float32Array)[0]) : state.dims[1] === 0 ? 0 : 1
    const want = new Set(Array.isArray(fetches) ? (fetches as string[]) : this.outputNames)
    const { layers: L } = this.r
    const prevIds = prev.data as BigInt64Array

    let o: ort.InferenceSession.ReturnType
    let last = 0 // the position whose logits and attention are this step's (no cache: the last of the prefix)
    let next: ort.Tensor
    if (!this.d.past) {
      // No cache: the state is the prefix so far (token ids as floats); the whole prefix runs again.
      const T = state.dims[1] + 1
      const prefix = new BigInt64Array(B * T)
      const old = state.data as Float32Array
      for (let b = 0; b < B; b++) {
        for (let i = 0; i < T - 1; i++) prefix[b * T + i] = BigInt(old[b * (T - 1) + i])
        prefix[b * T + T - 1] = prevIds[b]
      }
      o = await this.d.first.run(
        { input_ids: new ort.Tensor('int64', prefix, [B, T]), encoder_hidden_states: memory, encoder_attention_mask: mask },
        this.fetchNames(false),
      )
      last = T - 1
      next = new ort.Tensor('float32', Float32Array.from(prefix, Number), [B, T])
    } else if (state.dims[1] === 0) {
      const f: ort.InferenceSession.FeedsType = {
        input_ids: new ort.Tensor('int64', prevIds, [B, 1]),
        encoder_hidden_states: memory,
        encoder_attention_mask: mask,
      }
      if (this.d.merged) Object.assign(f, this.emptyPast(B), { use_cache_branch: new ort.Tensor('bool', [false], [1]) })
      o = await this.d.first.run(f, this.fetchNames(true))
      next = this.pack(
        B,
        S,
        1,
        (l, kv) => o[presentName(l, 'encoder', kv)],
        (l, kv) => o[presentName(l, 'decoder', kv)],
      )
    } else {
      const cache = this.unpack(state, B, S)
      const f: ort.InferenceSession.FeedsType = { input_ids: new ort.Tensor('int64', prevIds, [B, 1]), encoder_attention_mask: mask, ...cache.feeds }
      if (this.d.merged) Object.assign(f, { encoder_hidden_states: memory, use_cache_branch: new ort.Tensor('bool', [true], [1]) })
      o = await (this.d.past as ort.InferenceSession).run(f, this.fetchNames(false))
      next = this.pack(
        B,
        S,
        cache.T + 1,
        (l, kv) => cache.feeds[pastName(l, 'encoder', kv)],
        (l, kv) => o[presentName(l, 'decoder', kv)],
      )
    }
    const out: Record<string, ort.Tensor> = { next_state: next }
    const logits = o.logits
    const V = logits.dims[2]
    const Tl = logits.dims[1]
    const lg = new Float32Array(B * V)
    const src = logits.data as Float32Array
    for (let b = 0; b < B; b++) lg.set(src.subarray((b * Tl + (Tl === 1 ? 0 : last)) * V, (b * Tl + (Tl === 1 ? 0 : last) + 1) * V), b * V)
    if (t === 0 && this.r.forcedFirst !== null) {
      // forced_bos_token_id, as transformers' ForcedBOSTokenLogitsProcessor: every other token −∞.
      for (let b = 0; b < B; b++) {
        lg.fill(-Infinity, b * V, (b + 1) * V)
        lg[b * V + this.r.forcedFirst] = 0
      }
    }
    if (want.has('logits')) out.logits = new ort.Tensor('float32', lg, [B, V])
    if (want.has('cross_attention') || want.has('attention')) {
      const H = this.r.heads
      const cross = new Float32Array(B * L * H * S)
      for (let l = 0; l < L; l++) {
        const p = o[this.d.cross[l]]
        const pd = p.data as Float32Array
        const Tp = p.dims[2]
        const row = Tp === 1 ? 0 : last
        for (let b = 0; b < B; b++)
          for (let h = 0; h < H; h++) cross.set(pd.subarray(((b * H + h) * Tp + row) * S, ((b * H + h) * Tp + row + 1) * S), ((b * L + l) * H + h) * S)
      }
      out.cross_attention = new ort.Tensor('float32', cross, [B, L, H, S])
      const mean = new Float32Array(B * S)
      const n = L * H
      for (let b = 0; b < B; b++)
        for (let k = 0; k < n; k++) {
          const at = (b * n + k) * S
          for (let s = 0; s < S; s++) mean[b * S + s] += cross[at + s] / n
        }
      out.attention = new ort.Tensor('float32', mean, [B, S])
    }
    return out
  }

  private fetchNames(first: boolean): string[] {
    const names = ['logits', ...this.d.cross]
    for (let l = 0; l < this.r.layers; l++) {
      for (const kv of ['key', 'value'] as const) {
        names.push(presentName(l, 'decoder', kv))
        if (first) names.push(presentName(l, 'encoder', kv))
      }
    }
    return names
  }

  private emptyPast(B: number): Record<string, ort.Tensor> {
    const { layers, heads, headDim } = this.r
    const f: Record<string, ort.Tensor> = {}
    for (let l = 0; l < layers; l++)
      for (const half of ['decoder', 'encoder'] as const)
        for (const kv of ['key', 'value'] as const) f[pastName(l, half, kv)] = new ort.Tensor('float32', new Float32Array(0), [B, heads, 0, headDim])
    return f
  }

  /** Row layout: for each layer, cross K, cross V ([H, S, dh] each), then for each layer self K, self V ([H, T, dh]). */
  private pack(
    B: number,
    S: number,
    T: number,
    cross: (l: number, kv: 'key' | 'value') => ort.Tensor,
    self: (l: number, kv: 'key' | 'value') => ort.Tensor,
  ): ort.Tensor {
    const { layers, heads, headDim } = this.r
    const cBlock = heads * S * headDim
    const sBlock = heads * T * headDim
    const W = layers * 2 * (cBlock + sBlock)
    const out = new Float32Array(B * W)
    for (let b = 0; b < B; b++) {
      let at = b * W
      for (let l = 0; l < layers; l++)
        for (const kv of ['key', 'value'] as const) {
          out.set((cross(l, kv).data as Float32Array).subarray(b * cBlock, (b + 1) * cBlock), at)
          at += cBlock
        }
      for (let l = 0; l < layers; l++)
        for (const kv of ['key', 'value'] as const) {
          out.set((self(l, kv).data as Float32Array).subarray(b * sBlock, (b + 1) * sBlock), at)
          at += sBlock
        }
    }
    return new ort.Tensor('float32', out, [B, W])
  }

  private unpack(state: ort.Tensor, B: number, S: number): { T: number; feeds: Record<string, ort.Tensor> } {
    const { layers, heads, headDim } = this.r
    const W = state.dims[1]
    const cBlock = heads * S * headDim
    const T = (W / (layers * 2) - cBlock) / (heads * headDim)
    const sBlock = heads * T * headDim
    const data = state.data as Float32Array
    const feeds: Record<string, ort.Tensor> = {}
    const take = (name: string, off: number, block: number, len: number) => {
      const t = new Float32Array(B * block)
      for (let b = 0; b < B; b++) t.set(data.subarray(b * W + off, b * W + off + block), b * block)
      feeds[name] = new ort.Tensor('float32', t, [B, heads, len, headDim])
    }
    let off = 0
    for (let l = 0; l < layers; l++)
      for (const kv of ['key', 'value'] as const) {
        take(pastName(l, 'encoder', kv), off, cBlock, S)
        off += cBlock
      }
    for (let l = 0; l < layers; l++)
      for (const kv of ['key', 'value'] as const) {
        take(pastName(l, 'decoder', kv), off, sBlock, T)
        off += sBlock
      }
    return { T, feeds }
  }

  release(): Promise<void> {
    return Promise.all([this.d.first.release(), this.d.past && this.d.past !== this.d.first ? this.d.past.release() : null]).then(() => undefined)
  }
}

export { tapName }
