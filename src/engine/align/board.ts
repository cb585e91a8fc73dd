import type { AlignmentBoard, BoardModel, Link, ScoredLinks } from '../../shared/alignment'
import { AttentionStats } from '../evaluate'
import type { LoadedModel } from '../model'
import { aerCounts, aerOf, addCounts } from './aer'
import { pairAttentions, wordMatrix, type ForceOptions } from './attention'
import { ALIGN_CONTRIBUTIONS, methodAttentionsOf } from './contributions'
import { ContributionTapError } from '../contributions'
import { corpusPairs } from './corpus'
import { extractLinks } from './extract'
import { outOfRange, parsePairs, type WordPair } from './gold'
import { parsePharaoh } from './pharaoh'
import { pause } from './pause'
import { alignStatistically, type StatisticalOptions } from './statistical'

const CANCELLED = 'The alignment was cancelled.'

/** Links scored against the gold, per sentence and over the set. */
export function scored(gold: readonly Link[][], links: Link[][]): ScoredLinks {
  const counts = gold.map((g, n) => aerCounts(g, links[n] ?? []))
  return { score: aerOf(addCounts(counts)), sentenceAer: counts.map((c) => aerOf(c).aer), links }
}

/** A gold set as the panel loads it: `src-tgt` pairs and their 1-based gold, checked against each other. */
export function goldSet(pairsText: string, goldText: string, names: { pairs: string; gold: string }): { pairs: WordPair[]; gold: Link[][] } {
  const pairs = parsePairs(pairsText.replace(/^\uFEFF/, ''), names.pairs)
  const gold = parsePharaoh(goldText.replace(/^\uFEFF/, ''), true, names.gold)
  if (pairs.length === 0) throw new Error(`${names.pairs} has no sentence pairs.`)
  if (gold.length !== pairs.length)
    throw new Error(`${names.pairs} has ${pairs.length} pairs but ${names.gold} has ${gold.length} lines; they must match line by line.`)
  const bad = outOfRange(pairs, gold)
  if (bad) throw new Error(`${names.gold}: ${bad} (is it counted from 1, and the gold of ${names.pairs}?)`)
  return { pairs, gold }
}

/**
 * One model's row of the scoreboard: its attention (a Transformer's all-heads average) over every
 * gold pair, argmax links and their AER; for a Transformer also each head's and each layer's AER and
 * each head's entropy and diagonality over the same pairs.
 */
export async function boardModel(
  model: LoadedModel,
  pairs: WordPair[],
  gold: Link[][],
  opts: Omit<ForceOptions, 'onProgress'> & { onStep?: (step: BoardStep) => void } = {},
): Promise<Omit<BoardModel, 'modelId'>> {
  const pa = await pairAttentions(model, pairs, { ...opts, onProgress: (done, total) => opts.onStep?.({ what: 'pairs', done, total }) })
  const matrices = pa.map((p) => wordMatrix(p))
  const own = scored(
    gold,
    matrices.map((m) => extractLinks(m)),
  )
  const grid = model.spec.heads
  let heads: BoardModel['heads'] = null
  if (grid) {
    const total = grid.layers * grid.heads
    const aer: number[][] = []
    const stats: AttentionStats[][] = []
    for (let layer = 0; layer < grid.layers; layer++) {
      aer.push([])
      stats.push([])
      for (let head = 0; head < grid.heads; head++) {
        const s = new AttentionStats()
        const ms = pa.map((p) => wordMatrix(p, { reading: { kind: 'head', layer, head } }))
        for (const m of ms) s.add(m.filter((r): r is number[] => r !== null))
        stats[layer].push(s)
        aer[layer].push(
          scored(
            gold,
            ms.map((m) => extractLinks(m)),
          ).score.aer,
        )
        opts.onStep?.({ what: 'heads', done: layer * grid.heads + head + 1, total })
        await pause(opts.signal, CANCELLED)
      }
    }
    const layerAer: number[] = []
    for (let layer = 0; layer < grid.layers; layer++) {
      layerAer.push(
        scored(
          gold,
          pa.map((p) => extractLinks(wordMatrix(p, { reading: { kind: 'layer', layer } }))),
        ).score.aer,
      )
      await pause(opts.signal, CANCELLED)
    }
    heads = {
      aer,
      entropy: stats.map((r) => r.map((s) => s.entropy() ?? 0)),
      diagonality: stats.map((r) => r.map((s) => s.diagonality() ?? 0)),
      layerAer,
    }
  }
  return { ...own, name: model.spec.name, attention: model.spec.attention, matrices, heads }
}

/**
 * A Transformer's contribution methods on the gold pairs (src/engine/align/contributions.ts, the
 * code path of `align --method` and bench/contributions-aer.ts), a bundled one's or a Hugging Face
 * folder's: each method's argmax links at the usual step, scored, and its AER at the shifted step.
 * Null for an RNN and for a graph whose attention blocks the taps do not find.
 */
export async function boardContributions(
  path: string,
  attention: string,
  pairs: WordPair[],
  gold: Link[][],
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<NonNullable<BoardModel['contributions']> | null> {
  if (attention !== 'transformer') return null
  let by: Awaited<ReturnType<typeof methodAttentionsOf>>
  try {
    by = await methodAttentionsOf(path, pairs, ALIGN_CONTRIBUTIONS, opts)
  } catch (e) {
    // A graph whose layers the taps do not recognise has no contribution rows; the weights are scored all the same.
    if (e instanceof ContributionTapError) return null
    throw e
  }
  return ALIGN_CONTRIBUTIONS.map((method) => {
    const ps = by.get(method)!
    const usual = scored(
      gold,
      ps.map((p) => extractLinks(wordMatrix(p))),
    )
    const shifted = scored(
      gold,
      ps.map((p) => extractLinks(wordMatrix(p, { shifted: true }))),
    ).score
    return { ...usual, method, shifted }
  })
}

/**
 * The statistical aligner on the gold pairs, trained on them plus a parallel corpus given as two
 * sides of raw sentences (the app passes its pair's bundled test set), brought to the gold's
 * conventions first.
 */
export async function boardStatistical(
  pairs: WordPair[],
  gold: Link[][],
  corpus: { name: string; src: string[]; tgt: string[]; srcLang: string; tgtLang: string } | null,
  opts: StatisticalOptions = {},
): Promise<ScoredLinks & { corpus: string }> {
  const training = corpus ? corpusPairs(corpus.src, corpus.tgt, corpus.srcLang, corpus.tgtLang, pairs) : []
  const r = await alignStatistically(pairs, training, opts)
  return {
    ...scored(gold, r.links),
    corpus: corpus ? `${corpus.name} (${training.length} pairs) + the ${pairs.length} gold pairs` : `the ${pairs.length} gold pairs alone`,
  }
}

/** What the engine gets from the host for a scoreboard: the files' texts and the corpus to train the statistical aligner on. */
export interface BoardInput {
  pair: string
  pairs: { name: string; text: string }
  gold: { name: string; text: string }
  awesome?: { name: string; text: string }
  corpus: { name: string; src: string[]; tgt: string[]; srcLang: string; tgtLang: string } | null
}

/** A scoreboard before the host names its models by their app ids. */
export type BuiltBoard = Omit<AlignmentBoard, 'models'> & { models: Omit<BoardModel, 'modelId'>[] }

/** Where the board is inside one model: forcing the gold pairs through it, scoring each head, then a Transformer's contribution methods' pass over the pairs. */
export interface BoardStep {
  what: 'pairs' | 'heads' | 'methods'
  done: number
  total: number
}

export interface BoardProgress {
  done: number
  total: number
  step?: BoardStep
}

/**
 * The whole scoreboard: each model in turn (`using` lends it, as the service does), then the
 * statistical aligner; progress counts models and EM iterations as steps. Models come back in the
 * order of `paths`, without their app ids (the host adds them).
 */
export async function buildBoard(
  paths: string[],
  input: BoardInput,
  using: <T>(path: string, work: (m: LoadedModel) => Promise<T>) => Promise<T>,
  opts: { signal?: AbortSignal; onProgress?: (p: BoardProgress) => void } = {},
): Promise<BuiltBoard> {
  const { pairs, gold } = goldSet(input.pairs.text, input.gold.text, { pairs: input.pairs.name, gold: input.gold.name })
  const total = paths.length + 10
  const models: Omit<BoardModel, 'modelId'>[] = []
  for (const p of paths) {
    const onStep = (step: BoardStep) => opts.onProgress?.({ done: models.length, total, step })
    const row = await using(p, (m) => boardModel(m, pairs, gold, { signal: opts.signal, onStep }))
    const contributions = await boardContributions(p, row.attention, pairs, gold, {
      signal: opts.signal,
      onProgress: (done, of) => onStep({ what: 'methods', done, total: of }),
    })
    models.push(contributions ? { ...row, contributions } : row)
    opts.onProgress?.({ done: models.length, total })
  }
  let iterations = 0
  const statistical = await boardStatistical(pairs, gold, input.corpus, {
    signal: opts.signal,
    onProgress: () => opts.onProgress?.({ done: paths.length + ++iterations, total }),
  })
  let awesome: AlignmentBoard['awesome'] = null
  if (input.awesome) {
    const links = parsePharaoh(input.awesome.text.replace(/^\uFEFF/, ''), false, input.awesome.name)
    if (links.length !== pairs.length) throw new Error(`${input.awesome.name} has ${links.length} lines but ${input.pairs.name} has ${pairs.length} pairs.`)
    const bad = outOfRange(pairs, links)
    if (bad) throw new Error(`${input.awesome.name}: ${bad} (aligners' files count from 0)`)
    awesome = { ...scored(gold, links), name: input.awesome.name }
  }
  return {
    pair: input.pair,
    goldName: input.gold.name,
    sentences: pairs.map((p, n) => ({ src: p.src, tgt: p.tgt, gold: gold[n] })),
    models,
    statistical,
    awesome,
  }
}
