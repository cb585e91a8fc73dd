import {
  AttributeProto_AttributeType as AttrType,
  AttributeProtoSchema,
  create,
  GraphProtoSchema,
  ModelProtoSchema,
  NodeProtoSchema,
  TensorProto_DataType as DType,
  TensorProtoSchema,
  toBinary,
  ValueInfoProtoSchema,
  type AttributeProto,
  type GraphProto,
  type NodeProto,
  type TensorProto,
  type ValueInfoProto,
} from './onnx-proto'
import { extractGraph, nodesFor, producers, readsOf } from './onnx-graph'

/**
 * Graph surgery done when a translation model is opened, on the graph of any file that meets the
 * contract (nothing is asked of the exporter):
 *
 * - **keys once per sentence** (`splitStep`, `encoderGraph`, `stepGraph`): the decoder-step nodes
 *   that read only encoder-side values (`encoder_states`, `src_mask`, weights) give the same
 *   result at every step, so the ones that read the encoder states (Bahdanau's `U_a·h_j`,
 *   Luong's `W·h_j`) move into the encoder part, whose extra outputs become extra step inputs;
 * - **top-k and log-probabilities in the graph** (`stepGraph`): the step part also returns the k best
 *   token ids and their log-probabilities, with `<unk>` masked, so no decoder reads 4,851 logits
 *   per row in JavaScript;
 * - **the greedy loop in the graph** (`greedyLoopGraph`): encoder, per-sentence nodes and an ONNX
 *   `Loop` over the step nodes with the argmax fed back and an end-of-sentence stop: one
 *   `session.run` decodes a whole batch and returns every step's rows as scan outputs.
 */

/** Names the engine adds; the `al_` prefix keeps them apart from the file's (checked). */
export const K_INPUT = 'al_k'
export const TOPK_LOGP = 'al_topk_logp'
export const TOPK_IDS = 'al_topk_ids'
export const LOOP_INPUTS = { limits: 'al_limits', maxSteps: 'al_max_steps' } as const
/** Scan outputs of the loop model: [T, B] tokens, [T, B, k] log-probs and ids, then `al_seq_<capture>`. */
export const SEQ = { tokens: 'al_seq_tokens', logp: 'al_seq_logp', ids: 'al_seq_ids' } as const
export const seqName = (capture: string) => `al_seq_${capture}`

/** Ops whose output differs from run to run: never computed once and reused. */
const RANDOM_OPS = new Set(['RandomNormal', 'RandomUniform', 'RandomNormalLike', 'RandomUniformLike', 'Multinomial', 'Bernoulli'])

export class SurgeryError extends Error {}

export interface StepSplit {
  /** Step-part nodes whose inputs are all per-sentence values (graph order); the encoder's included. */
  invariant: number[]
  /** The other step-part nodes: what runs at every step. */
  variant: number[]
  /** Per-sentence values the variant nodes read that depend on the encoder states: computed once. */
  keys: string[]
}

/**
 * Splits the step part into what changes per step and what is fixed per sentence. A node is fixed
 * when everything it reads is an initializer, `encoder_states`, `src_mask`, `src_ids`, an encoder
 * value or the output of a fixed node, and it has no subgraph and no randomness. One pass in graph
 * order (ONNX requires topological order; a file without it only loses some of the gain).
 */
export function splitStep(graph: GraphProto, stepOutputs: readonly string[], encoderOutputs: readonly string[]): StepSplit {
  const encoder = nodesFor(graph, encoderOutputs).nodes
  const step = nodesFor(graph, stepOutputs).nodes
  const fixed = new Set<string>([...graph.initializer.map((t) => t.name), 'src_mask', 'src_ids', 'encoder_states'])
  for (const i of encoder) for (const o of graph.node[i].output) fixed.add(o)
  // Values that depend on the encoder states: the only ones worth computing once and shipping.
  const heavy = new Set<string>(['encoder_states'])
  const invariant: number[] = []
  const variant: number[] = []
  graph.node.forEach((n, i) => {
    if (!step.has(i)) return
    const reads = [...readsOf(n)]
    const plain = n.attribute.every((a) => !a.g && a.graphs.length === 0) && !(n.domain === '' && RANDOM_OPS.has(n.opType))
    if (encoder.has(i) || (plain && reads.every((r) => fixed.has(r)))) {
      invariant.push(i)
      for (const o of n.output) fixed.add(o)
      if (reads.some((r) => heavy.has(r))) for (const o of n.output) heavy.add(o)
    } else variant.push(i)
  })
  const readPerStep = new Set<string>(stepOutputs)
  for (const i of variant) for (const r of readsOf(graph.node[i])) readPerStep.add(r)
  const keys: string[] = []
  for (const i of invariant) for (const o of graph.node[i].output) if (o && heavy.has(o) && readPerStep.has(o)) keys.push(o)
  return { invariant, variant, keys }
}

// ---- small builders -------------------------------------------------------------------------

function node(opType: string, input: string[], output: string[], attribute: AttributeProto[] = []): NodeProto {
  return create(NodeProtoSchema, { opType, input, output, attribute, name: `al/${opType}/${output[0]}` })
}
const int = (name: string, i: number): AttributeProto => create(AttributeProtoSchema, { name, type: AttrType.INT, i: BigInt(i) })
const graphAttr = (name: string, g: GraphProto): AttributeProto => create(AttributeProtoSchema, { name, type: AttrType.GRAPH, g })

export function tensor(name: string, dataType: DType, dims: number[], values: ArrayLike<number> | bigint[]): TensorProto {
  let raw: Uint8Array<ArrayBuffer>
  if (dataType === DType.INT64) raw = new Uint8Array(BigInt64Array.from(values as ArrayLike<number>, (v) => BigInt(v)).buffer)
  else if (dataType === DType.BOOL) raw = Uint8Array.from(values as ArrayLike<number>)
  else raw = new Uint8Array(Float32Array.from(values as ArrayLike<number>).buffer)
  return create(TensorProtoSchema, { name, dataType, dims: dims.map(BigInt), rawData: raw })
}

/** A tensor value info; dims null = rank unknown, a string = a symbolic dimension. */
export function valueInfo(name: string, elemType: DType, dims: (number | string)[] | null): ValueInfoProto {
  const shape = dims && {
    dim: dims.map((d) => ({ value: typeof d === 'number' ? { case: 'dimValue' as const, value: BigInt(d) } : { case: 'dimParam' as const, value: d } })),
  }
  return create(ValueInfoProtoSchema, { name, type: { value: { case: 'tensorType', value: { elemType, ...(shape ? { shape } : {}) } } } })
}

function renamed(v: ValueInfoProto, name: string): ValueInfoProto {
  return create(ValueInfoProtoSchema, { name, type: v.type, docString: v.docString })
}

function checkNames(graph: GraphProto): void {
  const clash = (n: string) => n.startsWith('al_')
  for (const n of graph.node) for (const o of [...n.input, ...n.output]) if (clash(o)) throw new SurgeryError(`the graph already uses the name ${o}`)
  for (const v of [...graph.input, ...graph.initializer]) if (clash(v.name)) throw new SurgeryError(`the graph already uses the name ${v.name}`)
}

/**
 * The graph with `encoder_states := Identity(encoder_out)`, placed after the encoder's nodes and
 * before every other node, so the step nodes that read the states can be computed with the encoder.
 */
function withStatesFromEncoder(graph: GraphProto, encoderOutputs: readonly string[]): GraphProto {
  const encoder = nodesFor(graph, encoderOutputs).nodes
  if (!encoder.has(producers(graph).get('encoder_out') ?? -1)) throw new SurgeryError('no encoder node computes encoder_out')
  return {
    ...graph,
    node: [
      ...graph.node.filter((_, i) => encoder.has(i)),
      node('Identity', ['encoder_out'], ['encoder_states']),
      ...graph.node.filter((_, i) => !encoder.has(i)),
    ],
    input: graph.input.filter((v) => v.name !== 'encoder_states'),
  }
}

// ---- the two step-by-step parts -------------------------------------------------------------

/** The encoder part with the per-sentence step values `keys` as extra outputs. */
export function encoderGraph(graph: GraphProto, encoderOutputs: readonly string[], keys: readonly string[]): GraphProto {
  checkNames(graph)
  return extractGraph(withStatesFromEncoder(graph, encoderOutputs), [...encoderOutputs, ...keys])
}

export interface TopKOptions {
  vocabSize: number
  /** Token ids whose logits are set to −∞ before ranking (`<unk>`, `<pad>`, `<s>`…: decoding never emits them). */
  masked: number[]
}

/** The mask the top-k nodes add to the logits. */
function topKInitializers(o: TopKOptions): TensorProto[] {
  const mask = new Float32Array(o.vocabSize)
  for (const id of o.masked) if (id >= 0 && id < o.vocabSize) mask[id] = -Infinity
  return [tensor('al_unk_mask', DType.FLOAT, [o.vocabSize], mask)]
}

/**
 * logits → masked logits → TopK(k), ranking the raw logits (as the step-by-step decoder does, ties
 * to the lower id), and the log-probabilities of those k from LogSoftmax (onnxruntime's vectorised
 * softmax: a third cheaper than ReduceLogSumExp at batch 32). A row of V logits leaves the graph
 * as k ids and k log-probabilities.
 */
function topKNodes(): NodeProto[] {
  return [
    node('Add', ['logits', 'al_unk_mask'], ['al_masked_logits']),
    node('TopK', ['al_masked_logits', K_INPUT], ['al_topk_values', TOPK_IDS], [int('axis', -1)]),
    node('LogSoftmax', ['al_masked_logits'], ['al_log_probs'], [int('axis', -1)]),
    node('GatherElements', ['al_log_probs', TOPK_IDS], [TOPK_LOGP], [int('axis', 1)]),
  ]
}

/** The top-k nodes' outputs: [B, k] log-probabilities and ids. */
const topKOutputs = (): ValueInfoProto[] => [valueInfo(TOPK_LOGP, DType.FLOAT, ['batch', 'k']), valueInfo(TOPK_IDS, DType.INT64, ['batch', 'k'])]

/**
 * The top-k nodes alone, as a model: `logits` [B, V] and `al_k` in, `al_topk_logp` and
 * `al_topk_ids` out. For a step part that returns only logits (src/engine/ranker.ts), the same
 * ranking as stepGraph's.
 */
export function rankerModel(o: TopKOptions): Uint8Array {
  const graph = create(GraphProtoSchema, {
    name: 'al_ranker',
    node: topKNodes(),
    initializer: topKInitializers(o),
    input: [valueInfo('logits', DType.FLOAT, ['batch', o.vocabSize]), valueInfo(K_INPUT, DType.INT64, [1])],
    output: topKOutputs(),
  })
  // Opset 17: TopK with k as an input (10+), GatherElements (11+), LogSoftmax over one axis (13+).
  return toBinary(ModelProtoSchema, create(ModelProtoSchema, { irVersion: 8n, opsetImport: [{ domain: '', version: 17n }], graph }))
}

/**
 * The decoder step that reads the hoisted `keys` as inputs (typed by `keyInfo`) instead of
 * computing them, with top-k appended: extra input `al_k` (int64 [1]), extra outputs
 * `al_topk_logp` [B, k] and `al_topk_ids` [B, k].
 */
export function stepGraph(graph: GraphProto, stepOutputs: readonly string[], keyInfo: ValueInfoProto[], o: TopKOptions): GraphProto {
  checkNames(graph)
  const g = extractGraph(graph, [...stepOutputs], new Map(keyInfo.map((v) => [v.name, v])))
  return create(GraphProtoSchema, {
    ...g,
    node: [...g.node, ...topKNodes()],
    initializer: [...g.initializer, ...topKInitializers(o)],
    input: [...g.input, valueInfo(K_INPUT, DType.INT64, [1])],
    output: [...g.output, ...topKOutputs()],
  })
}

// ---- the greedy loop ------------------------------------------------------------------------

export interface LoopOptions extends TopKOptions {
  bos: number
  eos: number
  /** The step outputs to return per step (attention, scores, the local ones, cross_attention). */
  captures: readonly string[]
  /** A transformer's layers × heads: the shape of head_gate and head_override, where the step reads them. */
  heads?: { layers: number; heads: number } | null
}

/**
 * One graph for a whole greedy decode of a batch:
 *
 *     inputs  src_ids, src_mask, al_k [1], al_limits [B] (steps allowed per row), al_max_steps []
 *     outputs al_seq_tokens [T, B], al_seq_logp / al_seq_ids [T, B, k], al_seq_<capture> [T, B, …],
 *             encoder_out
 *
 * The encoder and the per-sentence step nodes run once; the Loop body is the per-step nodes plus
 * top-k. A row is done after `</s>` or its limit; the loop stops when every row is done. Done
 * rows keep being computed (fed their last token) and the caller ignores their steps, as the
 * step-by-step decoder does.
 */
export function greedyLoopGraph(graph: GraphProto, stepOutputs: readonly string[], encoderOutputs: readonly string[], o: LoopOptions): GraphProto {
  checkNames(graph)
  const split = splitStep(graph, stepOutputs, encoderOutputs)
  const encoder = nodesFor(graph, encoderOutputs).nodes
  const outer = new Set([...encoder, ...split.invariant])
  const inputInfo = new Map(graph.input.map((v) => [v.name, v]))
  const outputInfo = new Map(graph.output.map((v) => [v.name, v]))
  const stepReads = new Set<string>()
  for (const i of split.variant) for (const r of readsOf(graph.node[i])) stepReads.add(r)
  const needs = (name: string) => stepReads.has(name)
  const stateInfo = inputInfo.get('state')
  const prevInfo = inputInfo.get('prev_token')
  const nextInfo = outputInfo.get('next_state')
  if (!stateInfo || !prevInfo || !nextInfo) throw new SurgeryError('the step part lacks state, prev_token or next_state')

  // Main graph: encoder, encoder_states, per-sentence step nodes, the loop's initial values.
  if (!encoder.has(producers(graph).get('encoder_out') ?? -1)) throw new SurgeryError('no encoder node computes encoder_out')
  const main: NodeProto[] = [
    ...graph.node.filter((_, i) => encoder.has(i)),
    node('Identity', ['encoder_out'], ['encoder_states']),
    ...graph.node.filter((_, i) => !encoder.has(i) && outer.has(i)),
  ]
  main.push(
    node('Shape', [LOOP_INPUTS.limits], ['al_shape_b']),
    node('Expand', ['al_bos', 'al_shape_b'], ['al_prev0']),
    node('ConstantOfShape', ['al_shape_b'], ['al_zeros_b']),
    node('Cast', ['al_zeros_b'], ['al_done0'], [int('to', DType.BOOL)]),
  )
  // What-if is not run in the loop: the override inputs, where the step reads them, are zeros,
  // and every head's gate is 1 ([B, L, H], broadcast from one [1, L, H] constant).
  if (needs('override_on')) main.push(node('Identity', ['al_zeros_b'], ['override_on']))
  const headInputs = (['head_gate', 'head_override'] as const).filter(needs)
  if (headInputs.length) {
    if (!o.heads) throw new SurgeryError('the step reads head_gate or head_override, but the model declares no layers and heads')
    main.push(node('Concat', ['al_shape_b', 'al_i11'], ['al_shape_b11'], [int('axis', 0)]))
    for (const name of headInputs) main.push(node('Expand', [name === 'head_gate' ? 'al_head_ones' : 'al_head_zeros', 'al_shape_b11'], [name]))
  }
  if (needs('attn_override')) {
    main.push(
      node('Shape', ['encoder_out'], ['al_mem_shape3']),
      node('Slice', ['al_mem_shape3', 'al_i0', 'al_i2'], ['al_mem_shape']),
      node('ConstantOfShape', ['al_mem_shape'], ['attn_override']),
    )
  }

  // Loop body: (iteration, condition, state, prev_token, done) → (condition, next_state, token, done, scans…).
  const body: NodeProto[] = []
  if (needs('step')) body.push(node('Cast', ['al_iter'], ['al_t'], [int('to', DType.FLOAT)]), node('Expand', ['al_t', 'al_shape_b'], ['step']))
  for (const i of split.variant) body.push(graph.node[i])
  body.push(
    ...topKNodes(),
    node('Gather', [TOPK_IDS, 'al_zero_i'], ['al_tok'], [int('axis', 1)]),
    node('Where', ['al_done_in', 'prev_token', 'al_tok'], ['al_prev_out']),
    node('Add', ['al_iter', 'al_one_i'], ['al_iter1']),
    node('Less', ['al_iter1', LOOP_INPUTS.limits], ['al_in_limit']),
    node('Not', ['al_in_limit'], ['al_at_limit']),
    node('Equal', ['al_tok', 'al_eos'], ['al_is_eos']),
    node('Or', ['al_is_eos', 'al_at_limit'], ['al_ends']),
    node('Or', ['al_done_in', 'al_ends'], ['al_done_out']),
    node('Cast', ['al_done_out'], ['al_done_f'], [int('to', DType.FLOAT)]),
    node('ReduceMin', ['al_done_f'], ['al_all_done_f'], [int('keepdims', 0)]),
    node('Cast', ['al_all_done_f'], ['al_all_done'], [int('to', DType.BOOL)]),
    node('Not', ['al_all_done'], ['al_cond_out']),
  )
  const captures = o.captures.filter((c) => outputInfo.has(c))
  const bodyGraph = create(GraphProtoSchema, {
    name: 'al_greedy_step',
    node: body,
    input: [
      valueInfo('al_iter', DType.INT64, []),
      valueInfo('al_cond_in', DType.BOOL, []),
      renamed(stateInfo, 'state'),
      renamed(prevInfo, 'prev_token'),
      valueInfo('al_done_in', DType.BOOL, ['batch']),
    ],
    output: [
      valueInfo('al_cond_out', DType.BOOL, []),
      renamed(nextInfo, 'next_state'),
      valueInfo('al_prev_out', DType.INT64, ['batch']),
      valueInfo('al_done_out', DType.BOOL, ['batch']),
      valueInfo('al_tok', DType.INT64, ['batch']),
      ...topKOutputs(),
      ...captures.map((c) => renamed(outputInfo.get(c)!, c)),
    ],
  })
  const seqOutputs = [SEQ.tokens, SEQ.logp, SEQ.ids, ...captures.map(seqName)]
  main.push(
    node(
      'Loop',
      [LOOP_INPUTS.maxSteps, 'al_true', 'decoder_init', 'al_prev0', 'al_done0'],
      ['al_state_end', 'al_prev_end', 'al_done_end', ...seqOutputs],
      [graphAttr('body', bodyGraph)],
    ),
  )

  const read = new Set<string>()
  for (const n of [...main, ...body]) for (const r of readsOf(n)) read.add(r)
  const made = new Set(main.flatMap((n) => n.output))
  const elem = (c: string) => {
    const t = outputInfo.get(c)!.type
    return t?.value.case === 'tensorType' ? t.value.value.elemType : DType.FLOAT
  }
  return create(GraphProtoSchema, {
    name: `${graph.name || 'graph'}:greedy`,
    node: main,
    initializer: [
      ...graph.initializer.filter((t) => read.has(t.name)),
      ...[
        ...topKInitializers(o),
        tensor('al_true', DType.BOOL, [], [1]),
        tensor('al_bos', DType.INT64, [], [o.bos]),
        tensor('al_eos', DType.INT64, [], [o.eos]),
        tensor('al_zero_i', DType.INT64, [], [0]),
        tensor('al_one_i', DType.INT64, [], [1]),
        tensor('al_i0', DType.INT64, [1], [0]),
        tensor('al_i2', DType.INT64, [1], [2]),
        tensor('al_i11', DType.INT64, [2], [1, 1]),
        ...(o.heads
          ? [
              tensor('al_head_ones', DType.FLOAT, [1, o.heads.layers, o.heads.heads], new Float32Array(o.heads.layers * o.heads.heads).fill(1)),
              tensor('al_head_zeros', DType.FLOAT, [1, o.heads.layers, o.heads.heads], new Float32Array(o.heads.layers * o.heads.heads)),
            ]
          : []),
      ].filter((t) => read.has(t.name)),
    ],
    sparseInitializer: graph.sparseInitializer.filter((t) => read.has(t.values?.name ?? '')),
    input: [
      ...graph.input.filter((v) => (v.name === 'src_ids' || v.name === 'src_mask') && read.has(v.name)),
      valueInfo(K_INPUT, DType.INT64, [1]),
      valueInfo(LOOP_INPUTS.limits, DType.INT64, ['batch']),
      valueInfo(LOOP_INPUTS.maxSteps, DType.INT64, []),
    ],
    output: [
      valueInfo(SEQ.tokens, DType.INT64, ['steps', 'batch']),
      valueInfo(SEQ.logp, DType.FLOAT, ['steps', 'batch', 'k']),
      valueInfo(SEQ.ids, DType.INT64, ['steps', 'batch', 'k']),
      ...captures.map((c) => valueInfo(seqName(c), elem(c), null)),
      outputInfo.get('encoder_out') ?? valueInfo('encoder_out', DType.FLOAT, null),
    ],
    valueInfo: graph.valueInfo.filter((v) => made.has(v.name)),
  })
}
