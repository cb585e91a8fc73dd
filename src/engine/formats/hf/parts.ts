import * as ort from '../../onnxruntime'
import type { PartSession } from '../types'
import { attachRows, rowsBehind } from '../../state-rows'
import { tapName } from './taps'

/**
 * A Hugging Face folder's sessions behind the engine's two parts (docs/model-format.md): the
 * encoder part (`src_ids`, `src_mask` → `encoder_out`, `decoder_init`) and the step part
 * (`prev_token`, `state`, `encoder_states`, `src_mask`, `step` → `logits`, `next_state`,
 * `attention`, `cross_attention`). The state the engine feeds back and reorders for beam search
 * is [B, 1] row numbers into the KV cache kept beside it (src/engine/state-rows.ts); without a
 * cached decoder it is the prefix so far.
 */

export interface DecoderSessions {
  /**
   * decoder_model.onnx (no past), the merged decoder, or the cross graph (split.ts: the
   * cross-attention's keys and values from `encoder_hidden_states`, its only input), after which
   * the first step too runs `past`, from an empty self-attention past.
   */
  first: ort.InferenceSession
  /** decoder_with_past_model.onnx, the merged decoder again, its with-past branch lifted (split.ts), or null (no cache: the prefix is re-run). */
  past: ort.InferenceSession | null
  merged: boolean
  /** Where each layer's cross-attention [B, H, T, S] comes from: `cross_attentions.{l}` or a tap. */
  cross: string[]
}

/** A decoder's key/value cache as its session returned it: `past_key_values.*` tensors of B rows, T positions. */
interface KvCache {
  B: number
  T: number
  feeds: Record<string, ort.Tensor>
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
    return { encoder_out: toFloat32(o.last_hidden_state), decoder_init: new ort.Tensor('float32', new Float32Array(0), [B, 0]) }
  }

  release(): Promise<void> {
    return this.session.release()
  }
}

/**
 * An fp16 graph exported with float16 inputs and outputs (Optimum's --dtype fp16; transformers.js's
 * _fp16 files keep float32 ones): the engine gets float32 (encoder states, logits, attention) and
 * the decoder its own type back; the KV cache stays as the session returns it.
 */
export function toFloat32(t: ort.Tensor): ort.Tensor {
  if (t.type !== 'float16') return t
  const h = t.data as Uint16Array
  const out = new Float32Array(h.length)
  for (let i = 0; i < h.length; i++) out[i] = halfToFloat(h[i])
  return new ort.Tensor('float32', out, t.dims)
}

export function toFloat16(t: ort.Tensor): ort.Tensor {
  if (t.type === 'float16') return t
  const f = t.data as Float32Array
  const out = new Uint16Array(f.length)
  for (let i = 0; i < f.length; i++) out[i] = floatToHalf(f[i])
  return new ort.Tensor('float16', out, t.dims)
}

export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1
  const exp = (h >> 10) & 0x1f
  const frac = h & 0x3ff
  if (exp === 0) return sign * frac * 2 ** -24
  if (exp === 31) return frac ? NaN : sign * Infinity
  return sign * (1 + frac / 1024) * 2 ** (exp - 15)
}

const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)
/** float32 → float16 bits, rounding to nearest even (as numpy's astype and onnxruntime's Cast do). */
export function floatToHalf(x: number): number {
  f32[0] = x
  const b = u32[0]
  const sign = (b >>> 16) & 0x8000
  const exp = (b >>> 23) & 0xff
  let mant = b & 0x7fffff
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0)
  const e = exp - 127 + 15
  if (e >= 31) return sign | 0x7c00
  if (e <= 0) {
    if (e < -10) return sign
    mant |= 0x800000
    const shift = 14 - e
    const half = mant >>> shift
    const rest = mant & ((1 << shift) - 1)
    const mid = 1 << (shift - 1)
    return sign | (rest > mid || (rest === mid && half & 1) ? half + 1 : half)
  }
  let half = (e << 10) | (mant >>> 13)
  const rest = mant & 0x1fff
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++
  return sign | half
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

  /** The decoder's own types for the encoder states and the KV cache (float16 in an fp16 export with fp16 inputs). */
  private readonly memoryType: ort.Tensor.Type
  private readonly cacheType: ort.Tensor.Type
  /** `first` computes only the cross-attention's keys and values (split.ts). */
  private readonly firstIsCross: boolean
  /** What `past` reads besides the token, the mask and the cache (the merged decoder's encoder_hidden_states and use_cache_branch). */
  private readonly pastReads: Set<string>

  constructor(
    private readonly d: DecoderSessions,
    private readonly r: StepRules,
  ) {
    const typeOf = (s: ort.InferenceSession | null, name: string): ort.Tensor.Type => {
      const m = s?.inputMetadata?.find((x) => x.name === name)
      return m && m.isTensor && m.type === 'float16' ? 'float16' : 'float32'
    }
    this.memoryType = typeOf(d.first, 'encoder_hidden_states')
    this.cacheType = typeOf(d.past ?? d.first, pastName(0, 'decoder', 'key'))
    this.firstIsCross = !!d.past && !d.first.inputNames.includes('input_ids')
    this.pastReads = new Set(d.past?.inputNames ?? [])
  }

  /** How the steps run, for the model's details. */
  get runs(): string {
    if (!this.d.past) return 'every step runs the whole prefix (no KV cache)'
    if (this.firstIsCross)
      return "every step runs the with-past decoder, the first from an empty past after the cross-attention's keys and values are computed once (hf/split.ts)"
    return this.d.merged ? "the merged decoder's If (use_cache_branch) at every step" : 'the first step runs decoder_model, the others decoder_with_past_model'
  }

  /** The encoder states as the decoder takes them, converted once per encoding where it takes float16. */
  private readonly memoryAs = new WeakMap<ort.Tensor, ort.Tensor>()
  private memoryFor(memory: ort.Tensor): ort.Tensor {
    if (this.memoryType !== 'float16') return memory
    let m = this.memoryAs.get(memory)
    if (!m) this.memoryAs.set(memory, (m = toFloat16(memory)))
    return m
  }

  async run(
    feeds: ort.InferenceSession.FeedsType,
    fetches?: ort.InferenceSession.FetchesType | ort.InferenceSession.RunOptions,
  ): Promise<ort.InferenceSession.ReturnType> {
    const prev = feeds.prev_token as ort.Tensor
    const state = feeds.state as ort.Tensor
    const memory = this.memoryFor(feeds.encoder_states as ort.Tensor)
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
    } else if (state.dims[1] === 0 && this.firstIsCross) {
      const kv = await this.d.first.run({ encoder_hidden_states: memory })
      o = await (this.d.past as ort.InferenceSession).run(
        this.pastFeeds(new ort.Tensor('int64', prevIds, [B, 1]), mask, memory, { ...this.emptyPast(B, ['decoder']), ...this.crossFrom(kv) }),
        this.fetchNames(false),
      )
      next = this.cacheState(B, 1, (l, half, k) => (half === 'encoder' ? kv[presentName(l, half, k)] : o[presentName(l, half, k)]))
    } else if (state.dims[1] === 0) {
      const f: ort.InferenceSession.FeedsType = {
        input_ids: new ort.Tensor('int64', prevIds, [B, 1]),
        encoder_hidden_states: memory,
        encoder_attention_mask: mask,
      }
      if (this.d.merged) Object.assign(f, this.emptyPast(B), { use_cache_branch: new ort.Tensor('bool', [false], [1]) })
      o = await this.d.first.run(f, this.fetchNames(true))
      next = this.cacheState(B, 1, (l, half, kv) => o[presentName(l, half, kv)])
    } else {
      const cache = this.rowsOf(state)
      o = await (this.d.past as ort.InferenceSession).run(
        this.pastFeeds(new ort.Tensor('int64', prevIds, [B, 1]), mask, memory, cache.feeds),
        this.fetchNames(false),
      )
      next = this.cacheState(B, cache.T + 1, (l, half, kv) => (half === 'encoder' ? cache.feeds[pastName(l, half, kv)] : o[presentName(l, half, kv)]))
    }
    const out: Record<string, ort.Tensor> = { next_state: next }
    const logits = toFloat32(o.logits)
    const V = logits.dims[2]
    const Tl = logits.dims[1]
    const src = logits.data as Float32Array
    // With the cache each row has one position: the session's own [B, 1, V] is the [B, V] (1 MB a row for NLLB, not copied).
    const lg = Tl === 1 ? src : new Float32Array(B * V)
    if (Tl !== 1) for (let b = 0; b < B; b++) lg.set(src.subarray((b * Tl + last) * V, (b * Tl + last + 1) * V), b * V)
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
        const p = toFloat32(o[this.d.cross[l]])
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

  /** The with-past decoder's feeds: the merged decoder's If also reads the encoder states and its branch flag. */
  private pastFeeds(ids: ort.Tensor, mask: ort.Tensor, memory: ort.Tensor, cache: Record<string, ort.Tensor>): ort.InferenceSession.FeedsType {
    const f: Record<string, ort.Tensor> = { input_ids: ids, encoder_attention_mask: mask, ...cache }
    if (this.pastReads.has('encoder_hidden_states')) f.encoder_hidden_states = memory
    if (this.pastReads.has('use_cache_branch')) f.use_cache_branch = new ort.Tensor('bool', [true], [1])
    return f
  }

  /** The cross graph's `present.{l}.encoder.*` as the with-past decoder's past. */
  private crossFrom(kv: ort.InferenceSession.ReturnType): Record<string, ort.Tensor> {
    const f: Record<string, ort.Tensor> = {}
    for (let l = 0; l < this.r.layers; l++) for (const k of ['key', 'value'] as const) f[pastName(l, 'encoder', k)] = kv[presentName(l, 'encoder', k)]
    return f
  }

  private emptyPast(B: number, halves: readonly ('decoder' | 'encoder')[] = ['decoder', 'encoder']): Record<string, ort.Tensor> {
    const { layers, heads, headDim } = this.r
    const f: Record<string, ort.Tensor> = {}
    for (let l = 0; l < layers; l++)
      for (const half of halves)
        for (const kv of ['key', 'value'] as const)
          f[pastName(l, half, kv)] =
            this.cacheType === 'float16'
              ? new ort.Tensor('float16', new Uint16Array(0), [B, heads, 0, headDim])
              : new ort.Tensor('float32', new Float32Array(0), [B, heads, 0, headDim])
    return f
  }

  /**
   * The next state: rows 0…B−1 of the cache the session just returned (kept as it came, not
   * copied; src/engine/state-rows.ts).
   */
  private cacheState(B: number, T: number, tensor: (l: number, half: 'decoder' | 'encoder', kv: 'key' | 'value') => ort.Tensor): ort.Tensor {
    const feeds: Record<string, ort.Tensor> = {}
    for (let l = 0; l < this.r.layers; l++)
      for (const half of ['encoder', 'decoder'] as const) for (const kv of ['key', 'value'] as const) feeds[pastName(l, half, kv)] = tensor(l, half, kv)
    return attachRows<KvCache>(
      new ort.Tensor(
        'float32',
        Float32Array.from({ length: B }, (_, b) => b),
        [B, 1],
      ),
      { B, T, feeds },
    )
  }

  /** The cache rows a state names, copied only when beam search reordered or dropped rows. */
  private rowsOf(state: ort.Tensor): KvCache {
    const cache = rowsBehind<KvCache>(state)
    if (!cache) throw new Error('The decoder state has lost its key/value cache (a state must come from this model’s step, its rows picked by gatherRows).')
    const rows = Array.from(state.data as Float32Array, Math.round)
    if (rows.length === cache.B && rows.every((r, i) => r === i)) return cache
    const feeds: Record<string, ort.Tensor> = {}
    for (const [name, t] of Object.entries(cache.feeds)) {
      const block = t.data.length / cache.B
      // float32, or float16's bits: copied as they are.
      const data = t.data as Float32Array | Uint16Array
      const out = data instanceof Uint16Array ? new Uint16Array(rows.length * block) : new Float32Array(rows.length * block)
      rows.forEach((r, i) => out.set(data.subarray(r * block, (r + 1) * block), i * block))
      feeds[name] =
        t.type === 'float16'
          ? new ort.Tensor('float16', out as Uint16Array, [rows.length, ...t.dims.slice(1)])
          : new ort.Tensor('float32', out as Float32Array, [rows.length, ...t.dims.slice(1)])
    }
    return { B: rows.length, T: cache.T, feeds }
  }

  release(): Promise<void> {
    return Promise.all([this.d.first.release(), this.d.past && this.d.past !== this.d.first ? this.d.past.release() : null]).then(() => undefined)
  }
}

export { tapName }
