/**
 * The attention-lens command:
 *   attention-lens translate --model M.onnx [--beam K] [--provider P] [--input FILE] [--attention OUT.jsonl]
 *   attention-lens eval --model M.onnx [--model N.onnx …] --src X --ref Y [--provider P]
 * Every failure is one line on stderr and a non-zero exit.
 */
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { InferenceService } from '../main/engine/service'

const USAGE = [
  'usage: attention-lens translate --model M.onnx [--beam K] [--provider P] [--input FILE] [--attention OUT.jsonl]',
  '       attention-lens eval --model M.onnx [--model N.onnx ...] --src X --ref Y [--provider P]',
].join('\n')

class UsageError extends Error {}

function args<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0].replace(/\. To specify.*$/, ''))
  }
}

function readableFile(path: string | undefined, what: string): string {
  if (!path) throw new UsageError(`${what} is missing`)
  if (!existsSync(path)) throw new Error(`no such file: ${path}`)
  if (statSync(path).isDirectory()) throw new Error(`${path} is a folder, not a file`)
  return path
}

function lines(path: string): string[] {
  const text = readFileSync(path, 'utf8').replace(/\r?\n$/, '')
  return text === '' ? [] : text.split(/\r?\n/)
}

async function translate(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string' },
    beam: { type: 'string', default: '1' },
    provider: { type: 'string', default: 'cpu' },
    input: { type: 'string' },
    attention: { type: 'string' },
  })
  const model = readableFile(v.model, '--model M.onnx')
  const beam = Number(v.beam)
  if (!Number.isInteger(beam) || beam < 1 || beam > 16) throw new UsageError('--beam must be a whole number from 1 to 16')
  if (v.input) readableFile(v.input, '--input')
  const service = new InferenceService()
  await service.setProvider(v.provider!)
  const info = await service.open(model)
  if (info.providerNote) console.error(`attention-lens: ${info.providerNote}`)
  const input = createInterface({ input: v.input ? createReadStream(v.input) : process.stdin })
  const records: string[] = []
  for await (const line of input) {
    const t = await service.translate(model, line, { beam })
    process.stdout.write(t.text + '\n')
    if (v.attention) {
      const { srcTokens, tgtTokens, attention, scores, positions, windows, gaussian, tokenLogProbs } = t
      records.push(JSON.stringify({ source: line, translation: t.text, srcTokens, tgtTokens, attention, scores, positions, windows, gaussian, tokenLogProbs }))
    }
  }
  if (v.attention) writeFileSync(v.attention, records.map((r) => r + '\n').join(''))
  await service.closeAll()
}

async function evaluate(argv: string[]): Promise<void> {
  const v = args(argv, {
    model: { type: 'string', multiple: true },
    src: { type: 'string' },
    ref: { type: 'string' },
    provider: { type: 'string', default: 'cpu' },
  })
  if (!v.model?.length) throw new UsageError('--model M.onnx is missing')
  const models = v.model.map((m) => readableFile(m, '--model'))
  const srcs = lines(readableFile(v.src, '--src X'))
  const refs = lines(readableFile(v.ref, '--ref Y'))
  const service = new InferenceService()
  await service.setProvider(v.provider!)
  for (const m of models) {
    const info = await service.open(m)
    if (info.providerNote) console.error(`attention-lens: ${info.providerNote}`)
    const r = await service.evaluate(m, srcs, refs)
    console.log(`${r.fileName}: BLEU ${r.bleu.toFixed(2)} (case-insensitive), ${r.bleuCased.toFixed(2)} cased, ${r.sentences} sentences, ${r.seconds.toFixed(1)} s (${r.sentencesPerSecond.toFixed(0)} sentences/s)`)
    for (const b of r.byLength) console.log(`  source length ${b.bucket.padEnd(6)} ${String(b.sentences).padStart(5)} sentences  BLEU ${b.bleu.toFixed(2)}`)
  }
  await service.closeAll()
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2)
  if (command === 'translate') return translate(rest)
  if (command === 'eval') return evaluate(rest)
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE)
    if (command === undefined) process.exitCode = 2
    return
  }
  throw new UsageError(`unknown command "${command}"`)
}

main().catch((e: Error) => {
  console.error(`attention-lens: ${e.message}${e instanceof UsageError ? ' (attention-lens --help)' : ''}`)
  process.exit(2)
})
