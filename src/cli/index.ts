/** The attention-lens command. */
import { createReadStream, existsSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { InferenceService } from '../main/engine/service'

const USAGE = `usage: attention-lens translate --model M.onnx [--input FILE] [--attention OUT.jsonl]`

async function translate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { model: { type: 'string' }, input: { type: 'string' }, attention: { type: 'string' } },
  })
  if (!values.model) throw new Error('translate needs --model M.onnx')
  if (values.input && !existsSync(values.input)) throw new Error(`no such input file: ${values.input}`)
  const service = new InferenceService()
  await service.open(values.model)
  const lines = createInterface({ input: values.input ? createReadStream(values.input) : process.stdin })
  const records: string[] = []
  for await (const line of lines) {
    const t = await service.translate(values.model, line)
    process.stdout.write(t.text + '\n')
    if (values.attention) {
      const { srcTokens, tgtTokens, attention, positions, windows } = t
      records.push(JSON.stringify({ source: line, srcTokens, tgtTokens, attention, positions, windows }))
    }
  }
  if (values.attention) writeFileSync(values.attention, records.join('\n') + (records.length ? '\n' : ''))
  await service.closeAll()
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2)
  if (command === 'translate') return translate(rest)
  throw new Error(command ? `unknown command "${command}"; ${USAGE}` : USAGE)
}

main().catch((e: Error) => {
  console.error(`attention-lens: ${e.message}`)
  process.exit(2)
})
