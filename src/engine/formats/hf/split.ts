import { extractGraph, liftBranch, nodesFor, producers } from '../../onnx-graph'
import type { GraphProto } from '../../onnx-proto'

/**
 * The decoder graphs the step part runs where the folder's own cost more: a merged decoder
 * (decoder_model_merged, an If on use_cache_branch over two branches that share every weight)
 * took about 2 s CPU more to open than its with-past branch alone, and its If cost about 1–2 ms
 * of a 25–30 ms NLLB-600M q8 step; Optimum's decoder_model.onnx is a second copy of every decoder
 * weight, held for one step (fp32 NLLB-600M: 1.5 GB of RSS, 10 s CPU of the open;
 * bench/HF-LARGE-RESULTS.md). Both are replaced by
 *
 * - the **with-past graph**: the If's with-past branch lifted to a graph of its own (or Optimum's
 *   decoder_with_past_model.onnx as it is), run at every step, the first included, from an empty
 *   self-attention past;
 * - the **cross graph**: the nodes that compute the cross-attention's keys and values
 *   (`present.{l}.encoder.*`) from `encoder_hidden_states`, cut out of the no-past decoder, run
 *   once per sentence before the first step.
 *
 * The two read disjoint weights, so each weight is held once. The with-past branch computes at
 * its first step what the no-past one does (its Concat onto a past of length 0), so the ids and
 * attention are the same, bit for bit, in fp32 and q8 graphs (NLLB-600M, M2M100-418M and
 * BART-large against PyTorch and onnxruntime-python: hf-large.test.ts).
 *
 * Not in float16 graphs: lifted out of the If, their nodes are optimised as a main graph's are, and
 * the sums come out different in their last bits. Random-weight M2M100-418M fp16 then chose
 * another id at step 27 of a 34-step sentence where its logits were near a tie, against
 * onnxruntime-python running the folder's own merged decoder (bench/HF-LARGE-RESULTS.md). An fp16
 * folder runs its decoders as exported (rearrangesExactly, ort-sessions.ts).
 */

const kv = ['key', 'value'] as const
export const encoderKv = (layers: number) => Array.from({ length: layers }, (_, l) => kv.map((k) => `present.${l}.encoder.${k}`)).flat()
export const decoderKv = (layers: number) => Array.from({ length: layers }, (_, l) => kv.map((k) => `present.${l}.decoder.${k}`)).flat()

/** `graph` cut down to `outputs`, or null where a node is missing for one of them or it would read more than `inputs`. */
function cut(graph: GraphProto, outputs: string[], inputs: (name: string) => boolean): GraphProto | null {
  const made = producers(graph)
  if (!outputs.every((o) => made.has(o))) return null
  const g = extractGraph(graph, outputs)
  return g.input.every((i) => inputs(i.name)) ? g : null
}

/** The cross graph of a no-past decoder (decoder_model.onnx, or a merged decoder's no-past branch lifted): `encoder_hidden_states` in. */
export function crossKvGraph(noPast: GraphProto, layers: number): GraphProto | null {
  return cut(noPast, encoderKv(layers), (n) => n === 'encoder_hidden_states')
}

/**
 * A merged decoder (tapped: its If outputs `cross` too) as the cross graph and the with-past
 * graph, or null where it is not one If whose branches are Optimum's.
 */
export function splitMerged(graph: GraphProto, layers: number, cross: string[]): { crossKv: GraphProto; withPast: GraphProto } | null {
  const ifs = graph.node.flatMap((n, i) => (n.opType === 'If' ? [i] : []))
  if (ifs.length !== 1) return null
  const branches = (['then_branch', 'else_branch'] as const).map((b) => liftBranch(graph, ifs[0], b))
  // The with-past branch's logits depend on the past (read directly, or through the main graph's Casts in an fp16 export).
  const readsPast = branches.map((g) => nodesFor(g, ['logits']).names.has('past_key_values.0.decoder.key'))
  if (readsPast[0] === readsPast[1]) return null
  const [withPastBranch, noPastBranch] = readsPast[0] ? branches : [branches[1], branches[0]]
  const crossKv = crossKvGraph(noPastBranch, layers)
  const withPast = cut(withPastBranch, ['logits', ...cross, ...decoderKv(layers)], (n) => n !== 'use_cache_branch')
  return crossKv && withPast ? { crossKv, withPast } : null
}
