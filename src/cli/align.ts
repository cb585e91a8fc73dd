/**
 * The alignment and faithfulness commands (issue 24):
 *   attention-lens align --model M.onnx --input PAIRS.src-tgt [--head L:H | --layer L] [--shifted] [--method argmax|threshold=0.3]
 *                        [--reverse R.onnx] [--one-based] [--gold GOLD]
 *   attention-lens align --model M.onnx --input PAIRS.src-tgt --method norm|alti|alti+|rollout[,threshold=0.3] [--shifted] …
 *                        (a contribution method of issue 41 read as the weights are: src/engine/align/contributions.ts)
 *   attention-lens align --statistical --input PAIRS.src-tgt [--train SRC TGT | --train TATOEBA.tsv] [--pair en-fr] [--iterations 5]
 *   attention-lens aer --gold GOLD --hyp HYP [--hyp-one-based]
 *   attention-lens occlusion --model M.onnx --src "sentence" [--json]
 *   attention-lens eval --model M.onnx --src X --ref Y --ablate uniform|permuted [--seed N]
 */
import { LoadedModel } from '../engine/model'
import { isKnownProvider } from '../engine/providers'
import { ablationScore, canAblate, type Ablation } from '../engine/align/ablation'
import { formatAer, scoreSet } from '../engine/align/aer'
import { pairAttentions, readingName, readingsOf, wordMatrix, type PairAttention, type Reading } from '../engine/align/attention'
import { ALIGN_CONTRIBUTIONS, contributionMethodOf, methodAttentions } from '../engine/align/contributions'
import { ContributionTapError, openAttributor, type Attributor } from '../engine/contributions'
import { readParallel, readTatoeba, type Language } from '../engine/align/corpus'
import { extractLinks, intersectLinks, parseMethod, reverseLinks, ARGMAX, type Method } from '../engine/align/extract'
import { outOfRange, readLinks, readPairs, type WordPair } from '../engine/align/gold'
import { occlusion } from '../engine/align/occlusion'
import { formatPharaohLine, type Link } from '../engine/align/pharaoh'
import { alignStatistically } from '../engine/align/statistical'
import { args, headOption, LANG_OPTIONS, lines, modelPath, readableFile, UsageError } from './options'
import type { ContributionMethod } from '../shared/contributions'

export const ALIGN_USAGE = [
  '       attention-lens align --model M.onnx --input PAIRS.src-tgt [--head L:H | --layer L] [--shifted] [--method argmax|threshold=0.3]',
  '              [--reverse R.onnx] [--one-based] [--gold GOLD [--every-reading]]   (one Pharaoh line a pair, source word-target word, 0-based unless --one-based)',
  '              --method norm|alti|alti+|rollout[,threshold=0.3]: a contribution method (a bundled Transformer) instead of the attention weights',
  '       attention-lens align --statistical --input PAIRS.src-tgt [--train SRC TGT | --train TATOEBA.tsv] [--pair en-fr|zh-en] [--iterations 5]',
  '       attention-lens aer --gold GOLD --hyp HYP [--hyp-one-based]   (GOLD counted from 1, as the WPT gold sets are)',
  '       attention-lens occlusion --model M.onnx --src "sentence" [--json]',
  '              (align, occlusion and eval --ablate take --src-lang L --tgt-lang L, as translate does: a multilingual model’s pair, en or eng_Latn)',
  '       attention-lens eval --model M.onnx --src X --ref Y --ablate uniform|permuted [--seed N]',
].join('\n')

async function openModel(
  path: string | undefined,
  provider: string,
  what = '--model M.onnx',
  langs: { 'src-lang'?: string; 'tgt-lang'?: string } = {},
): Promise<LoadedModel> {
  if (!isKnownProvider(provider)) throw new UsageError(`--provider ${provider} is not one this build knows`)
  const m = await LoadedModel.open(modelPath(path, what, langs), provider)
  if (m.spec.task !== 'translation') throw new UsageError(`${m.spec.name} is a forecasting model: it has no words to align`)
  return m
}

/**
 * `--method`: how links are drawn from a matrix (argmax, threshold=X) and which matrix (the
 * attention weights, or a contribution method: norm, alti, alti+, rollout), one or both, with a
 * comma between: `alti+`, `threshold=0.3`, `alti+,threshold=0.3`.
 */
export function parseAlignMethod(raw: string): { extract: Method; contribution: ContributionMethod | null } | null {
  let extract: Method | null = null
  let contribution: ContributionMethod | null = null
  let weights = false
  for (const part of raw.split(',').map((x) => x.trim())) {
    const c = contributionMethodOf(part)
    const e = parseMethod(part)
    if (c && !contribution && !weights) contribution = c
    else if (part === 'weights' && !contribution && !weights) weights = true
    else if (e && !extract) extract = e
    else return null
  }
  return { extract: extract ?? ARGMAX, contribution }
}

/** The contribution methods' reader of a model (a bundled Transformer), for align --method alti+. */
async function openContributions(path: string | undefined, what: string, langs: { 'src-lang'?: string; 'tgt-lang'?: string }): Promise<Attributor> {
  try {
    return await openAttributor(modelPath(path, what, langs))
  } catch (e) {
    if (e instanceof ContributionTapError) throw new Error(`the contribution methods cannot read this model's graph: ${e.message}`)
    throw e
  }
}

/** `--layer 2` (counted from 1) → its reading. */
function readingOption(head: string | undefined, layer: string | undefined, model: LoadedModel): Reading {
  const { heads, name } = model.spec
  if (head !== undefined && layer !== undefined) throw new UsageError('--head and --layer pick different readings: give one')
  const h = headOption(head, heads ?? undefined, name)
  if (h) return { kind: 'head', ...h }
  if (layer === undefined) return { kind: 'average' }
  if (!heads) throw new Error(`${name} is not a Transformer: it has one attention, no layers to pick with --layer`)
  const l = Number(layer)
  if (!(Number.isInteger(l) && l >= 1 && l <= heads.layers)) throw new UsageError(`--layer must be a whole number from 1 to ${heads.layers}`)
  return { kind: 'layer', layer: l - 1 }
}

/** --train takes one file (Tatoeba's TSV) or two (source and target); parseArgs takes one value an option, so the second is renamed first. */
function splitTrain(argv: string[]): string[] {
  const i = argv.indexOf('--train')
  if (i < 0 || i + 2 >= argv.length + 1) return argv
  const second = argv[i + 2]
  if (second === undefined || second.startsWith('--')) return argv
  return [...argv.slice(0, i + 2), '--train-target', second, ...argv.slice(i + 3)]
}

const CJK = /[\u3400-\u9fff]/
/** The language conventions of a side: --pair, or Chinese where the words are CJK. */
function sideLanguage(pair: string | undefined, side: 0 | 1, pairs: WordPair[]): Language {
  if (pair) return pair.split('-')[side]
  return pairs.some((p) => (side === 0 ? p.src : p.tgt).some((w) => CJK.test(w))) ? 'zh' : 'xx'
}

async function scoreAgainst(goldPath: string | undefined, pairs: WordPair[], hyp: Link[][]): Promise<void> {
  if (!goldPath) return
  const gold = await readLinks(readableFile(goldPath, '--gold'), true)
  const bad = outOfRange(pairs, gold)
  if (bad) throw new Error(`${goldPath}: ${bad}; is it the gold of --input?`)
  console.error(formatAer(scoreSet(gold, hyp).set))
}

async function align(argv: string[]): Promise<void> {
  const v = args(splitTrain(argv), {
    model: { type: 'string' },
    input: { type: 'string' },
    head: { type: 'string' },
    layer: { type: 'string' },
    shifted: { type: 'boolean' },
    method: { type: 'string', default: 'argmax' },
    reverse: { type: 'string' },
    'one-based': { type: 'boolean' },
    gold: { type: 'string' },
    'every-reading': { type: 'boolean' },
    statistical: { type: 'boolean' },
    train: { type: 'string' },
    'train-target': { type: 'string' },
    pair: { type: 'string' },
    iterations: { type: 'string', default: '5' },
    provider: { type: 'string', default: 'cpu' },
    ...LANG_OPTIONS,
  })
  const pairs = await readPairs(readableFile(v.input, '--input PAIRS.src-tgt'))
  let links: Link[][]
  if (v.statistical) {
    if (v.model) throw new UsageError('--statistical aligns without a model: drop --model, or drop --statistical')
    const iterations = Number(v.iterations)
    if (!(Number.isInteger(iterations) && iterations >= 1 && iterations <= 100)) throw new UsageError('--iterations must be a whole number from 1 to 100')
    if (v.pair !== undefined && !/^[a-z]{2,3}-[a-z]{2,3}$/.test(v.pair)) throw new UsageError('--pair must be SRC-TGT language codes, e.g. en-fr')
    const [sl, tl] = [sideLanguage(v.pair, 0, pairs), sideLanguage(v.pair, 1, pairs)]
    let training: WordPair[] = []
    if (v.train && v['train-target'])
      training = await readParallel(readableFile(v.train, '--train SRC'), readableFile(v['train-target'], '--train TGT'), sl, tl, pairs)
    else if (v.train) training = await readTatoeba(readableFile(v.train, '--train TATOEBA.tsv'), pairs, sl === 'en' ? 'en-zh' : 'zh-en')
    const started = performance.now()
    const r = await alignStatistically(pairs, training, {
      iterations,
      onProgress: (p) => process.stderr.write(`attention-lens: ${p.direction} EM iteration ${p.iteration}/${p.iterations}\n`),
    })
    process.stderr.write(`attention-lens: trained on ${training.length} + ${pairs.length} pairs in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
    links = r.links
  } else if (parseAlignMethod(v.method!)?.contribution) {
    const { extract: method, contribution } = parseAlignMethod(v.method!)!
    links = await alignByContributions(v, pairs, contribution!, method)
  } else {
    const method = parseAlignMethod(v.method!)?.extract
    if (!method)
      throw new UsageError(
        `--method must be argmax, threshold=X with X from 0 to 1, or one of ${ALIGN_CONTRIBUTIONS.join(', ')} (and a threshold after a comma)`,
      )
    const model = await openModel(v.model, v.provider!, undefined, v)
    const reading = readingOption(v.head, v.layer, model)
    const opts = { reading, shifted: !!v.shifted }
    const forward = await pairAttentions(model, pairs)
    links = forward.map((p) => extractLinks(wordMatrix(p, opts), method))
    if (v['every-reading']) {
      if (!v.gold) throw new UsageError('--every-reading scores each reading: it needs --gold GOLD')
      const gold = await readLinks(readableFile(v.gold, '--gold'), true)
      for (const shifted of [false, true])
        for (const r of readingsOf(model.spec.heads)) {
          const hyp = forward.map((p) => extractLinks(wordMatrix(p, { reading: r, shifted }), method))
          console.error(`${(readingName(r) + (shifted ? ' shifted' : '')).padEnd(18)} ${formatAer(scoreSet(gold, hyp).set)}`)
        }
    }
    if (v.reverse) {
      const rev = await openModel(v.reverse, v.provider!, '--reverse R.onnx', { 'src-lang': v['tgt-lang'], 'tgt-lang': v['src-lang'] })
      const back = await pairAttentions(
        rev,
        pairs.map((p) => ({ src: p.tgt, tgt: p.src })),
      )
      links = links.map((l, n) => intersectLinks(l, reverseLinks(wordMatrix(back[n], { shifted: !!v.shifted }), method)))
      await rev.release()
    }
    process.stderr.write(
      `attention-lens: ${model.spec.name}, ${readingName(reading)}${v.shifted ? ' (shifted)' : ''}, ${v.method}${v.reverse ? ', intersected with the reverse model' : ''}\n`,
    )
    await model.release()
  }
  process.stdout.write(links.map((l) => formatPharaohLine(l, !!v['one-based']) + '\n').join(''))
  await scoreAgainst(v.gold, pairs, links)
}

/**
 * align --method alti+ (or norm, alti, rollout): the method's matrix over each gold pair's words,
 * read as the weights are (wordMatrix, the usual step or --shifted), links drawn by the extraction
 * asked; --every-reading scores every method at both steps, --reverse intersects with the reverse
 * model's same method.
 */
async function alignByContributions(
  v: {
    model?: string
    reverse?: string
    head?: string
    layer?: string
    shifted?: boolean
    gold?: string
    'every-reading'?: boolean
    'src-lang'?: string
    'tgt-lang'?: string
  },
  pairs: WordPair[],
  contribution: ContributionMethod,
  method: Method,
): Promise<Link[][]> {
  if (v.head !== undefined || v.layer !== undefined)
    throw new UsageError(`--head and --layer pick a reading of the attention weights; --method ${contribution} reads the whole model: give one or the other`)
  if (v['every-reading'] && !v.gold) throw new UsageError('--every-reading scores each reading: it needs --gold GOLD')
  const shifted = !!v.shifted
  const model = await openContributions(v.model, '--model M.onnx', v)
  let forward: Map<ContributionMethod, PairAttention[]>
  try {
    forward = await methodAttentions(model, pairs, v['every-reading'] ? ALIGN_CONTRIBUTIONS : [contribution], {
      onProgress: (done, total) => done % 50 === 0 && done < total && process.stderr.write(`attention-lens: ${done}/${total} pairs\n`),
    })
  } finally {
    await model.release()
  }
  let links = forward.get(contribution)!.map((p) => extractLinks(wordMatrix(p, { shifted }), method))
  if (v['every-reading']) {
    const gold = await readLinks(readableFile(v.gold, '--gold'), true)
    for (const s of [false, true])
      for (const [name, ps] of forward)
        console.error(
          `${(name + (s ? ' shifted' : '')).padEnd(18)} ${formatAer(
            scoreSet(
              gold,
              ps.map((p) => extractLinks(wordMatrix(p, { shifted: s }), method)),
            ).set,
          )}`,
        )
  }
  if (v.reverse) {
    const rev = await openContributions(v.reverse, '--reverse R.onnx', { 'src-lang': v['tgt-lang'], 'tgt-lang': v['src-lang'] })
    try {
      const back = (
        await methodAttentions(
          rev,
          pairs.map((p) => ({ src: p.tgt, tgt: p.src })),
          [contribution],
        )
      ).get(contribution)!
      links = links.map((l, n) => intersectLinks(l, reverseLinks(wordMatrix(back[n], { shifted }), method)))
    } finally {
      await rev.release()
    }
  }
  process.stderr.write(
    `attention-lens: ${model.spec.name}, ${contribution}${shifted ? ' (shifted)' : ''}, ${method.kind === 'argmax' ? 'argmax' : `threshold=${method.value}`}${v.reverse ? ', intersected with the reverse model' : ''}\n`,
  )
  return links
}

async function aer(argv: string[]): Promise<void> {
  const v = args(argv, { gold: { type: 'string' }, hyp: { type: 'string' }, 'hyp-one-based': { type: 'boolean' } })
  const gold = await readLinks(readableFile(v.gold, '--gold GOLD'), true)
  const hyp = await readLinks(readableFile(v.hyp, '--hyp HYP'), !!v['hyp-one-based'])
  if (gold.length !== hyp.length) throw new Error(`${v.gold} has ${gold.length} lines but ${v.hyp} has ${hyp.length}`)
  console.log(formatAer(scoreSet(gold, hyp).set))
}

async function occlude(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string' },
    src: { type: 'string' },
    json: { type: 'boolean' },
    provider: { type: 'string', default: 'cpu' },
    ...LANG_OPTIONS,
  })
  if (v.src === undefined) throw new UsageError('--src "sentence" is missing')
  const model = await openModel(v.model, v.provider!, undefined, v)
  const o = await occlusion(model, v.src)
  await model.release()
  if (v.json) {
    console.log(JSON.stringify(o))
    return
  }
  const f = (x: number | null) => (x === null ? '  –  ' : x.toFixed(2).padStart(5))
  console.log(
    `${model.spec.name}: mean Kendall τ ${f(o.meanTau).trim()}, top-1 agreement ${(100 * o.top1Rate).toFixed(0)} % over ${o.tgtTokens.length} output tokens`,
  )
  console.log(`importance = drop in log p of the output token with the source word replaced by <unk>; α = attention`)
  const width = Math.max(...o.tgtTokens.map((t) => t.length), 6)
  for (let t = 0; t < o.tgtTokens.length; t++) {
    const imp = o.importance[t]
    const top = imp.indexOf(Math.max(...imp))
    const att = o.attention[t].indexOf(Math.max(...o.attention[t]))
    console.log(
      `${o.tgtTokens[t].padEnd(width)}  τ ${f(o.tau[t])}  most important: ${o.srcWords[top]} (${imp[top].toFixed(2)})  most attended: ${o.srcWords[att]} (α ${o.attention[t][att].toFixed(2)})`,
    )
  }
}

/** `eval … --ablate MODE` (also `--ablate=MODE`). */
export const wantsAblation = (argv: string[]): boolean => argv.some((a) => a === '--ablate' || a.startsWith('--ablate='))

export async function evalAblate(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string', multiple: true },
    src: { type: 'string' },
    ref: { type: 'string' },
    ablate: { type: 'string' },
    seed: { type: 'string', default: '1' },
    provider: { type: 'string', default: 'cpu' },
    ...LANG_OPTIONS,
  })
  const mode = v.ablate as Ablation
  if (mode !== 'uniform' && mode !== 'permuted') throw new UsageError('--ablate must be uniform or permuted')
  const seed = Number(v.seed)
  if (!Number.isInteger(seed)) throw new UsageError('--seed must be a whole number')
  if (!v.model?.length) throw new UsageError('--model M.onnx is missing')
  const srcs = lines(readableFile(v.src, '--src X'))
  const refs = lines(readableFile(v.ref, '--ref Y'))
  for (const path of v.model) {
    const model = await openModel(path, v.provider!, undefined, v)
    const why = canAblate(model)
    if (why) throw new Error(why.replace(/\.$/, ''))
    const progress = (what: string) => (done: number, total: number) => process.stderr.write(`\rattention-lens: ${what} ${done}/${total}`)
    const own = await ablationScore(model, srcs, refs, 'none', { onProgress: progress('own attention') })
    const ab = await ablationScore(model, srcs, refs, mode, { seed, onProgress: progress(`${mode} attention`) })
    process.stderr.write('\n')
    console.log(`${model.spec.name}: ${srcs.length} sentences, greedy`)
    console.log(`  own attention      BLEU ${own.bleu.toFixed(2).padStart(6)}  mean reference log p ${own.refLogProb.toFixed(3)}`)
    console.log(`  ${`${mode} attention`.padEnd(18)} BLEU ${ab.bleu.toFixed(2).padStart(6)}  mean reference log p ${ab.refLogProb.toFixed(3)}`)
    await model.release()
  }
}

export const alignCommands: Record<string, (argv: string[]) => Promise<void>> = {
  align,
  aer,
  occlusion: occlude,
}
