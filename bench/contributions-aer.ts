/**
 * `npx tsx bench/contributions-aer.ts [model.onnx | folder] [--half a|b|all]`: each contribution method as an
 * aligner (issue 41), against the raw cross-attention weights, on the dev half of the gold set the
 * Alignment score tab uses (../shared/datasets/alignment-gold: Hansards en-fr, Tsinghua zh-en;
 * half a = pairs 1–100, as training/aer_dev.sh; all = the 200 pairs the README's alignment report scores). The gold target is forced through the model with
 * each gold word tokenized on its own (src/engine/align/pieces.ts), the piece matrix turned into a
 * word matrix by the app's rule (wordMatrix: source pieces summed, target pieces averaged, `</s>`
 * left out) and each target word linked to its argmax source word; AER by src/engine/align/aer.ts.
 * Each reading at the usual step (the one that predicts the word) and shifted (the one that reads it).
 * A Hugging Face folder (test/fixtures/hf/marian) is read as `align --method` reads it, its own
 * tokens around the gold's pieces left out. Writes bench/CONTRIBUTIONS-AER-{model}-{half}.md
 * (AL_BENCH_OUT elsewhere).
 */
import { writeFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { openAttributor } from '../src/engine/contributions'
import { scoreSet } from '../src/engine/align/aer'
import { wordMatrix, type PairAttention } from '../src/engine/align/attention'
import { ALIGN_CONTRIBUTIONS, methodAttention, visitPairContributions } from '../src/engine/align/contributions'
import { extractLinks } from '../src/engine/align/extract'
import { readLinks, readPairs } from '../src/engine/align/gold'
import type { Link } from '../src/engine/align/pharaoh'

const ROOT = join(import.meta.dirname, '..')
const argv = process.argv.slice(2)
const half = argv.includes('--half') ? argv[argv.indexOf('--half') + 1] : 'a'
const MODEL = argv.find((a, i) => !a.startsWith('--') && argv[i - 1] !== '--half') ?? join(ROOT, 'resources/models/en-fr-transformer.onnx')
const GOLD = join(ROOT, process.env.AL_DATASETS ?? '../shared/datasets', 'alignment-gold')

async function main() {
  const cm = await openAttributor(MODEL)
  const set = cm.spec.srcLang === 'zh' ? 'zhen' : 'enfr'
  const allPairs = await readPairs(join(GOLD, `${set}.src-tgt`))
  const allGold = await readLinks(join(GOLD, `${set}.gold`), true)
  const range = half === 'a' ? [0, 100] : half === 'b' ? [100, 200] : [0, 200]
  const pairs = allPairs.slice(...range)
  const gold = allGold.slice(...range)
  const readings = new Map<string, PairAttention[]>()
  const add = (name: string, p: PairAttention) => readings.set(name, [...(readings.get(name) ?? []), p])
  // The gold pairs through the tapped forward pass: the code path of `align --method` and the Alignment score tab.
  await visitPairContributions(cm, pairs, (p) => {
    const { pass: tapped, contributions: c } = p
    const S = tapped.S
    const L = tapped.dec.length
    const H = tapped.dec[0].cross.length
    // cut to the gold's pieces (a folder's own tokens left out)
    const pa = (rows: number[][]): PairAttention => ({ srcSpans: p.srcSpans, tgtSpans: p.tgtSpans, rows: p.gold(rows), cross: null })
    const mean = (ms: ArrayLike<number>[][]) =>
      Array.from({ length: tapped.T }, (_, t) => Array.from({ length: S }, (_, j) => ms.reduce((a, m) => a + m[t][j], 0) / ms.length))
    add('weights (all heads)', pa(mean(tapped.dec.flatMap((l) => l.cross))))
    for (let l = 0; l < L; l++) {
      add(`weights layer ${l + 1}`, pa(mean(tapped.dec[l].cross)))
      for (let h = 0; h < H; h++) add(`weights head ${l + 1}:${h + 1}`, pa(tapped.dec[l].cross[h].map((r) => Array.from(r))))
    }
    for (const m of ALIGN_CONTRIBUTIONS) add(m, methodAttention(p, m))
    for (let l = 0; l < L; l++) {
      add(`norm layer ${l + 1}`, pa(c.crossNormTotal[l]))
      add(`alti layer ${l + 1}`, pa(c.crossAlti[l].map((r) => r.slice(0, S))))
      for (let h = 0; h < H; h++) add(`norm head ${l + 1}:${h + 1}`, pa(c.crossNorms[l][h]))
    }
  })
  const score = (ps: PairAttention[], shifted: boolean) =>
    scoreSet(
      gold,
      ps.map((p): Link[] => extractLinks(wordMatrix(p, { shifted }))),
    ).set.aer
  const rows = [...readings].map(([name, ps]) => ({ name, usual: score(ps, false), shifted: score(ps, true) }))
  const best = (prefix: string) =>
    rows.filter((r) => r.name.startsWith(prefix)).reduce((a, r) => (Math.min(r.usual, r.shifted) < Math.min(a.usual, a.shifted) ? r : a))
  const shown = rows.filter((r) => !/^(norm|weights) head/.test(r.name))
  const heads = ['weights head', 'norm head'].map((prefix) => ({ prefix, r: best(prefix) }))
  const text = [
    `# Contribution methods as aligners: ${basename(MODEL)}, ${set} gold, half ${half} (pairs ${range[0] + 1}–${range[1]})`,
    '',
    `\`npx tsx bench/contributions-aer.ts ${relative(ROOT, MODEL)} --half ${half}\`: argmax per target word; AER in %, lower is better.`,
    '',
    '| reading | AER (usual step) | AER (shifted) |',
    '| --- | --- | --- |',
    ...shown.map((r) => `| ${r.name} | ${r.usual.toFixed(2)} | ${r.shifted.toFixed(2)} |`),
    ...heads.map(({ prefix, r }) => `| best ${prefix} (${r.name.slice(prefix.length + 1)}) | ${r.usual.toFixed(2)} | ${r.shifted.toFixed(2)} |`),
    '',
  ].join('\n')
  writeFileSync(process.env.AL_BENCH_OUT ?? join(ROOT, `bench/CONTRIBUTIONS-AER-${basename(MODEL, '.onnx')}-${half}.md`), text)
  console.log(text)
  await cm.release()
}

void main()
