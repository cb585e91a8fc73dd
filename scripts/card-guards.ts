/**
 * Writes into each bundled translation model's card its test-set BLEU with the repeat guards
 * (issue 35: no n-gram of 3 pieces twice, no piece more than 3 times in a row; the app's and the
 * CLI's default) and without them (the model's own greedy output, `eval --raw`), greedy, measured
 * from the ONNX file by the app's own evaluation (src/engine/evaluate.ts).
 *
 *   npx tsx scripts/card-guards.ts [NAME ...]      # default: every bundled translation model
 *
 * The line sits between two HTML comments, so running it again replaces it (training/train.py
 * writes a card without it: run this after a model is retrained).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { evaluateCorpus } from '../src/engine/evaluate'
import { LoadedModel } from '../src/engine/model'
import { DEFAULT_REPEAT_GUARD, NO_REPEAT_GUARD } from '../src/shared/repeat-guard'

const ROOT = join(__dirname, '..')
const MODELS = join(ROOT, 'resources', 'models')
const START = '<!-- repeat-guards:start -->'
const END = '<!-- repeat-guards:end -->'
const lines = (p: string) => readFileSync(p, 'utf8').trim().split('\n')

async function card(name: string): Promise<void> {
  const m = await LoadedModel.open(join(MODELS, `${name}.onnx`))
  try {
    if (m.spec.task !== 'translation') return
    const zh = name.startsWith('zh-en')
    const srcs = lines(join(ROOT, 'resources', 'testsets', zh ? 'zh-en.zh' : 'en-fr.en'))
    const refs = lines(join(ROOT, 'resources', 'testsets', zh ? 'zh-en.en' : 'en-fr.fr'))
    const raw = await evaluateCorpus(m, srcs, refs, { guard: NO_REPEAT_GUARD })
    const guarded = await evaluateCorpus(m, srcs, refs, { guard: DEFAULT_REPEAT_GUARD })
    const changed = raw.hypotheses.filter((h, i) => h !== guarded.hypotheses[i]).length
    const text =
      `- **Repeat guards** (greedy, the ${srcs.length} test sentences, measured from this file by \`attention-lens eval\`): ` +
      `BLEU **${guarded.bleu}** with the guards (no 3-piece n-gram twice, no piece more than 3 times in a row; the app's default), ` +
      `${raw.bleu} without them (\`eval --raw\`, the model's own output); ${changed} of ${srcs.length} translations differ.`
    const path = join(MODELS, `${name}.md`)
    const old = readFileSync(path, 'utf8')
    const block = `${START}\n${text}\n${END}`
    const at = old.indexOf(START)
    const next = at >= 0 ? old.slice(0, at) + block + old.slice(old.indexOf(END) + END.length) : `${old.trimEnd()}\n\n${block}\n`
    writeFileSync(path, next)
    console.log(`${name}: ${guarded.bleu} with, ${raw.bleu} without, ${changed} differ`)
  } finally {
    await m.release()
  }
}

async function main(): Promise<void> {
  const names = process.argv.slice(2)
  const all = readdirSync(MODELS)
    .filter((f) => f.endsWith('.onnx') && !f.startsWith('taylor-'))
    .map((f) => f.replace(/\.onnx$/, ''))
  for (const n of names.length ? names : all) await card(n)
}

void main()
