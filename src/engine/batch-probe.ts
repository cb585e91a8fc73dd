/**
 * Two sentences of different lengths through the model's parts, to say in words why a model
 * cannot decode them (a state that grows with the source, an input fixed at export) or decodes
 * them differently in a batch (padding that reaches the encoder's backward direction), instead of
 * onnxruntime's node names. Used by the checks at opening and by `attention-lens check`.
 */
import type * as ort from 'onnxruntime-node'
import { encodeSource } from './decode'
import type { LoadedModel } from './model'
import { neverGenerated } from './contract'
import { encode, step, type Encoded } from './steps'
import { firstLine, ortReason } from './model'

/** A finding's sentence, and onnxruntime's own message where one caused it (shown under --verbose). */
export interface Problem {
  message: string
  detail?: string
  /** The model cannot translate at all (not even one sentence at a time). */
  fatal?: boolean
  /** The contract input whose shape is wrong, where one was found. */
  input?: string
}

/** Contract inputs in words, for messages. */
const INPUT_WORDS: Record<string, string> = {
  state: 'the decoder state ("state")',
  encoder_states: 'the encoder states ("encoder_states")',
  src_mask: 'the source mask ("src_mask")',
  prev_token: 'the previous token ("prev_token")',
  step: 'the output position ("step")',
  attn_override: 'the attention override ("attn_override")',
  override_on: 'the override switch ("override_on")',
  head_gate: 'the head gates ("head_gate")',
  head_override: 'the head overrides ("head_override")',
}

const floatsPerRow = (t: ort.Tensor) => t.dims.slice(1).reduce((a, b) => a * b, 1)
const dimsText = (dims: readonly (number | string)[]) => `[${dims.map((d) => (typeof d === 'number' ? String(d) : '?')).join(', ')}]`

/**
 * onnxruntime's reason without its node names: a failure inside a node reads "Non-zero status
 * code returned while running Split node. Name:'/Slice_1/…' Status Message: <the reason>", nested
 * once per Loop or If around it. The innermost reason, or null where only names are left.
 */
export function reasonWithoutNodes(e: unknown): string | null {
  let reason = ortReason(e)
  let inner = firstLine(e)
  for (let m = inner.match(NESTED); m; m = inner.match(NESTED)) reason = inner = m[1]
  // The source file and C++ signature in front of the reason: "/…/reshape_helper.h:91 onnxruntime::ReshapeHelper::ReshapeHelper(…) ".
  reason = reason.replace(/^\S+\.(?:cc|h|cpp):\d+ [^(]*\([^)]*\) /, '').trim()
  if (reason === '' || /\bnode\b|Name:'/.test(reason)) return null
  return reason.length > 200 ? reason.slice(0, 199) + '…' : reason
}

const NESTED = /running \w+ node\. Name:'[^']*' Status Message: (.*)$/

/** What a failure inside the graph says without onnxruntime's node names; its own text goes to `detail`. */
export function insideGraph(what: string, e: unknown): Problem {
  const full = ortReason(e)
  const reason = reasonWithoutNodes(e)
  if (reason === full) return { message: `${what} fails: ${reason.replace(/\.$/, '')}.` }
  const detail = firstLine(e)
  if (reason) return { message: `${what} fails: ${reason.replace(/\.$/, '')}.`, detail }
  return { message: `${what} fails inside the model's graph (attention-lens check --verbose shows onnxruntime's message).`, detail }
}

/**
 * The shapes one decoder step on two sentences of different lengths needs: the decoder state
 * keeps one width whatever the source length, and every input the step is fed matches what the
 * graph declares. Null when the step runs and keeps the state's width.
 */
export async function stateShapeProblem(model: LoadedModel, texts: [string, string]): Promise<Problem | null> {
  const { spec } = model
  const ids = texts.map((t) => encodeSource(model, t).ids)
  const lengths = ids.map((i) => i.length)
  const alone: Encoded[] = []
  for (const i of ids) alone.push(await encode(model, [i]))
  const rows = alone.find((e) => e.init.dims[0] !== 1)
  if (rows) {
    return {
      fatal: true,
      message: `The decoder's first state (decoder_init) has ${rows.init.dims[0]} rows for one sentence: its batch axis is fixed inside the graph (a reshape, expand or gather traced with the example's batch size), so every batch size but that one fails.`,
    }
  }
  const widths = alone.map((e) => floatsPerRow(e.init))
  if (widths[0] !== widths[1]) {
    return {
      fatal: true,
      message:
        `The decoder state's width depends on the source length: ${widths[1]} floats for a ${lengths[1]}-token source, ${widths[0]} for ${lengths[0]}. ` +
        'Attention Lens needs a fixed-width state: keep what grows with the source (a coverage vector, say) in a fixed-size buffer of max_source floats ' +
        '(padded to that width in the encoder, its first S read in the step), or compute it in the step from encoder_states and src_mask.',
    }
  }
  const enc = await encode(model, ids)
  const B = ids.length
  let out: ort.InferenceSession.ReturnType
  try {
    out = await step(model, { prev: ids.map(() => spec.special.bos), state: enc.init, memory: enc.memory, mask: enc.mask, keys: enc.keys, t: 0, k: 1 })
  } catch (e) {
    const what = `One decoder step on a batch of two sentences (${lengths.join(' and ')} tokens)`
    const fed: Record<string, readonly number[]> = {
      state: enc.init.dims,
      encoder_states: enc.memory.dims,
      src_mask: enc.mask.dims,
      prev_token: [B],
      step: [B],
      attn_override: [B, enc.memory.dims[1]],
      override_on: [B],
      ...(spec.heads ? { head_gate: [B, spec.heads.layers, spec.heads.heads], head_override: [B, spec.heads.layers, spec.heads.heads] } : {}),
      ...Object.fromEntries(Object.entries(enc.keys).map(([k, t]) => [k, t.dims])),
    }
    for (const m of model.step.inputMetadata) {
      const given = fed[m.name]
      if (!m.isTensor || !given || m.shape.length === 0) continue
      const off = m.shape.findIndex((d, i) => typeof d === 'number' && d !== given[i])
      if (m.shape.length !== given.length || off >= 0) {
        const name = INPUT_WORDS[m.name] ?? `the input "${m.name}"`
        return {
          input: m.name,
          message: `${what} fails: ${name} is ${dimsText(given)} there, but the graph fixes it at ${dimsText(m.shape)}: export it with dynamic axes (batch and source length), and give the state one width for every source.`,
          detail: ortReason(e),
        }
      }
    }
    return insideGraph(what, e)
  }
  const next = out.next_state as ort.Tensor | undefined
  // A transformer's state is its cache, which grows by a step each step; an RNN's keeps its width.
  if (next && spec.attention !== 'transformer' && floatsPerRow(next) !== widths[0]) {
    return {
      fatal: true,
      message: `The decoder step turns a state of ${widths[0]} floats into one of ${floatsPerRow(next)} (a batch of ${lengths.join(' and ')} tokens): "next_state" must have the width of "state", step after step.`,
    }
  }
  return null
}

/**
 * The special token (never written: `<pad>`, `<s>`, `<unk>`…) a model ranks first at the first
 * step of both sentences, or null: such a model's translations start from its second choice.
 */
export async function favouredSpecial(model: LoadedModel, texts: [string, string]): Promise<string | null> {
  const { spec } = model
  const ids = texts.map((t) => encodeSource(model, t).ids)
  const enc = await encode(model, ids)
  const o = await step(model, {
    prev: ids.map(() => spec.special.bos),
    state: enc.init,
    memory: enc.memory,
    mask: enc.mask,
    keys: enc.keys,
    t: 0,
    k: 1,
    logits: true,
  })
  const V = spec.tgtVocab.length
  const x = o.logits.data as Float32Array
  const best = ids.map((_, b) => {
    let arg = 0
    for (let v = 1; v < V; v++) if (x[b * V + v] > x[b * V + arg]) arg = v
    return arg
  })
  return best[0] === best[1] && neverGenerated(spec).includes(best[0]) ? spec.tgtVocab[best[0]] : null
}

/** Precisions whose activations are quantized per tensor at run time (src/engine/formats/hf/variants.ts). */
const QUANTIZED = new Set(['q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'])

/**
 * Where padding changes a shorter sentence decoded in a batch: its encoder states (and which
 * half of them: a bidirectional encoder's backward direction reads the padding first), the
 * decoder's first state, or neither (then the step's attention does not mask the padding).
 */
export async function paddingCause(model: LoadedModel, texts: [string, string]): Promise<string> {
  const ids = texts.map((t) => encodeSource(model, t).ids)
  const short = ids[0].length <= ids[1].length ? 0 : 1
  const alone = await encode(model, [ids[short]])
  const batch = await encode(model, ids)
  const S = ids[short].length
  const M = alone.memory.dims[2]
  const a = alone.memory.data as Float32Array
  const b = batch.memory.data as Float32Array
  const memLen = batch.memory.dims[1]
  const TOL = 1e-4
  let front = false
  let back = false
  if (alone.memory.dims[1] === S) {
    for (let s = 0; s < S; s++) {
      for (let m = 0; m < M; m++) {
        if (Math.abs(a[s * M + m] - b[(short * memLen + s) * M + m]) > TOL) {
          if (m < M / 2) front = true
          else back = true
        }
      }
    }
  }
  const { spec } = model
  if ((back || front) && QUANTIZED.has(spec.dtype ?? '')) {
    // Dynamic quantization (onnxruntime's quantize_dynamic, transformers.js's q8) scales each
    // MatMul's activations by the minimum and maximum of the whole tensor: the whole batch, other
    // sentences and padding included, so a sentence's states depend on what it is batched with.
    return `the encoder states of the real tokens change with the other sentence in the batch: this ${spec.dtype} variant quantizes each MatMul's input with one scale computed over the whole batch (per-tensor dynamic quantization), so no mask can keep the padding out of it; decode one sentence at a time, or open the fp32 or fp16 variant for batches that equal single sentences`
  }
  if ((back || front) && spec.attention === 'transformer') {
    return `the encoder states of the real tokens change with the padding after them: the encoder's self-attention attends to the padding; mask it with src_mask (the attention_mask of a Hugging Face encoder) in every encoder layer`
  }
  const fix =
    'run it over the real tokens only: nn.utils.rnn.pack_padded_sequence (exports to ONNX), or reverse each sentence within its length before the backward pass'
  if (back && !front) {
    return `the encoder states of the real tokens change, in their second half only (features ${Math.floor(M / 2) + 1}–${M}): a bidirectional encoder's backward direction reads the padding before the sentence; ${fix}`
  }
  if (back || front)
    return `the encoder states of the real tokens change with the padding after them: the encoder reads the padding; ${fix.replace('run it', 'run the encoder')}`
  const init = [alone.init.data as Float32Array, batch.init.data as Float32Array]
  const Z = floatsPerRow(alone.init)
  for (let z = 0; z < Z; z++) {
    if (Math.abs(init[0][z] - init[1][short * Z + z]) > TOL) {
      return "the decoder's first state (decoder_init) changes with the padding: compute it from the real tokens only (a mean weighted by src_mask, or the last real token's state)"
    }
  }
  return 'the encoder ignores the padding, so the decoder step does: mask its attention scores with "src_mask" (scores.masked_fill(src_mask == 0, -1e9)) before the softmax'
}
