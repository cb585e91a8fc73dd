// The built CLI (out/main/cli.js) loaded once, running one command at a time for cli-runner.ts:
// what the command writes to stdout and stderr is collected, stdin is the test's input.
import { createRequire } from 'node:module'
import { Readable } from 'node:stream'
import { parentPort, workerData } from 'node:worker_threads'

const cli = createRequire(import.meta.url)(workerData.cli)

/** Writes to a stream collected into `into` instead (console.log and console.error write here too). */
function capture(stream, into) {
  const write = stream.write
  stream.write = (chunk, encoding, done) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    ;(typeof encoding === 'function' ? encoding : done)?.()
    return true
  }
  return () => (stream.write = write)
}

parentPort.on('message', async ({ argv, input, signal, port }) => {
  const out = []
  const err = []
  const restore = [capture(process.stdout, out), capture(process.stderr, err)]
  const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')
  Object.defineProperty(process, 'stdin', { value: Readable.from(input === undefined ? [] : [input]), configurable: true })
  let code
  try {
    code = await cli.run(argv)
  } catch (e) {
    err.push(`cli-worker: the command threw past run(): ${e?.stack ?? e}\n`)
    code = 1
  } finally {
    for (const r of restore) r()
    Object.defineProperty(process, 'stdin', stdin)
  }
  port.postMessage({ code, out: out.join(''), err: err.join('') })
  port.close()
  Atomics.store(signal, 0, 1)
  Atomics.notify(signal, 0)
})
