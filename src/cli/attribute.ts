/**
 * attention-lens attribute (issue 41): how much of each output piece came from each source piece,
 * by value-weighted norms, ALTI, ALTI+ or attention rollout (src/engine/contributions); for an RNN
 * with attention, the context-norm analogue (src/shared/context-norm.ts).
 *
 *   attention-lens attribute --model M.onnx --src "sentence" [--target "translation"] [--method norm|alti|alti+|rollout|context-norm] [--json]
 *   attention-lens attribute --model M.onnx|FOLDER --input FILE [--targets FILE] [--method …] [--json]
 *
 * Without a target the model's greedy output is attributed. --json writes one object per
 * sentence (one line each), with `matrix` as [target][source] and `sourceShare` per output piece.
 */
import { ContributionTapError, openAttributor, type Attributor } from '../engine/contributions'
import { RnnContextModel } from '../engine/contributions/rnn'
import { describeModel } from '../engine/formats'
import { detokenize } from '../engine/tokenizer'
import { CONTEXT_NORM, type ContextNormLayer } from '../shared/context-norm'
import { CONTRIBUTION_METHODS, methodResult, RNN_NOT_APPLICABLE, type ContributionMethod, type MethodResult } from '../shared/contributions'
import { args, lines, modelPath, readableFile, UsageError } from './options'

export const ATTRIBUTE_USAGE = [
  '       attention-lens attribute --model M.onnx --src "sentence" [--target "translation"] [--method norm|alti|alti+|rollout|context-norm] [--json]',
  '       attention-lens attribute --model M.onnx --input FILE [--targets FILE] [--method ...] [--json]   (one sentence a line; a Transformer, a Hugging Face folder, or an RNN with attention: context-norm)',
].join('\n')

/** One RNN sentence's numbers: `matrix` is the attention weights, `sourceShare` the context's share of the output layer. */
export interface ContextNormAttribution {
  method: typeof CONTEXT_NORM
  matrix: number[][]
  sourceShare: number[]
  /** The layer read, and per output piece each of its parts' norm ‖W_p x_p‖ [T][P]. */
  layer: ContextNormLayer
  norms: number[][]
}

/** One sentence's attribution as `--json` writes it: a Transformer method's numbers or the RNN analogue's, and the sentence. */
export type Attribution = (MethodResult | ContextNormAttribution) & {
  source: string
  translation: string
  srcTokens: string[]
  tgtTokens: string[]
  /** The decoder's input at each row (`<s>`, then the output pieces but the last): targetMatrix's columns. */
  prefixTokens: string[]
  forced: boolean
}

export async function attributeSentences(model: Attributor, sources: string[], targets: (string | null)[], method: ContributionMethod): Promise<Attribution[]> {
  const out: Attribution[] = []
  for (const [i, source] of sources.entries()) {
    const src = model.encodeSource(source)
    const target = targets[i] ?? null
    const tapped = await model.run(src.ids, target === null ? null : model.encodeTarget(target, src.ids.length))
    const c = model.contributions(tapped)
    const pieces = c.tgtTokens.slice(0, -1)
    out.push({
      source,
      translation: detokenize(pieces, model.spec.tgtTokenizer),
      ...methodResult(c, method),
      srcTokens: src.tokens,
      tgtTokens: c.tgtTokens,
      prefixTokens: c.prefixTokens,
      forced: target !== null,
    })
  }
  return out
}

/** The RNN analogue for each sentence: the attention weights as the matrix, the context's share of the output layer. */
export async function contextNormSentences(model: RnnContextModel, sources: string[], targets: (string | null)[]): Promise<Attribution[]> {
  const out: Attribution[] = []
  for (const [i, source] of sources.entries()) {
    const src = model.encodeSource(source)
    const target = targets[i] ?? null
    const c = model.contextNorm(await model.run(src.ids, target === null ? null : model.encodeTarget(target, src.ids.length)))
    out.push({
      source,
      translation: detokenize(c.tgtTokens.slice(0, -1), model.spec.tgtTokenizer),
      method: CONTEXT_NORM,
      matrix: c.weights,
      sourceShare: c.sourceShare,
      layer: c.layer,
      norms: c.norms,
      srcTokens: src.tokens,
      tgtTokens: c.tgtTokens,
      prefixTokens: c.prefixTokens,
      forced: target !== null,
    })
  }
  return out
}

const round = (x: number) => Math.round(x * 1e6) / 1e6

/** The text form: each output piece, its source share, and the source pieces it owes most to. */
export function formatAttribution(a: Attribution): string {
  const rows = a.tgtTokens.map((piece, t) => {
    const top = a.matrix[t]
      .map((v, j) => [v, j] as const)
      .sort((x, y) => y[0] - x[0])
      .slice(0, 3)
      .map(([v, j]) => `${a.srcTokens[j]} ${v.toFixed(2)}`)
      .join(', ')
    return `  ${piece.padEnd(14)} source ${a.sourceShare[t].toFixed(2)}   ${top}`
  })
  return [`${a.source}\n→ ${a.translation}${a.forced ? ' (forced)' : ''}   [${a.method}]`, ...rows].join('\n')
}

export async function attribute(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string' },
    src: { type: 'string' },
    target: { type: 'string' },
    input: { type: 'string' },
    targets: { type: 'string' },
    // Absent: alti+ for a Transformer, context-norm for an RNN.
    method: { type: 'string' },
    json: { type: 'boolean' },
  })
  if (v.method !== undefined && v.method !== CONTEXT_NORM && !CONTRIBUTION_METHODS.includes(v.method as ContributionMethod))
    throw new UsageError(`--method must be one of ${CONTRIBUTION_METHODS.join(', ')}, ${CONTEXT_NORM}`)
  if ((v.src === undefined) === (v.input === undefined)) throw new UsageError('give --src "sentence" or --input FILE (one sentence a line)')
  if (v.target !== undefined && v.src === undefined) throw new UsageError('--target goes with --src (with --input, give --targets FILE)')
  if (v.targets !== undefined && v.input === undefined) throw new UsageError('--targets FILE goes with --input FILE')
  const sources = v.src !== undefined ? [v.src] : lines(readableFile(v.input, '--input'))
  const targets: (string | null)[] =
    v.src !== undefined ? [v.target ?? null] : v.targets ? lines(readableFile(v.targets, '--targets')) : sources.map(() => null)
  if (targets.length !== sources.length) throw new UsageError(`--targets has ${targets.length} lines, --input ${sources.length}`)
  const path = modelPath(v.model, '--model M.onnx or a Hugging Face folder')
  const spec = await describeModel(path)
  const rnn = spec.attention !== 'transformer'
  const method = (v.method ?? (rnn ? CONTEXT_NORM : 'alti+')) as ContributionMethod | typeof CONTEXT_NORM
  if (rnn && method !== CONTEXT_NORM)
    throw new UsageError(`${spec.name} is an RNN: --method ${method} needs a Transformer (${RNN_NOT_APPLICABLE[method]}); its method is context-norm`)
  if (!rnn && method === CONTEXT_NORM) throw new UsageError(`--method context-norm is the RNN analogue; a Transformer has ${CONTRIBUTION_METHODS.join(', ')}`)
  let model: Attributor | RnnContextModel
  try {
    model = rnn ? await RnnContextModel.open(path) : await openAttributor(path)
  } catch (e) {
    if (e instanceof ContributionTapError) throw new Error(`attribute cannot read this model's graph: ${e.message}`)
    throw e
  }
  try {
    const results =
      model instanceof RnnContextModel
        ? await contextNormSentences(model, sources, targets)
        : await attributeSentences(model, sources, targets, method as ContributionMethod)
    for (const a of results) {
      if (v.json) console.log(JSON.stringify(a, (_k, x: unknown) => (typeof x === 'number' ? round(x) : x)))
      else console.log(formatAttribution(a) + '\n')
    }
  } finally {
    await model.release()
  }
}
