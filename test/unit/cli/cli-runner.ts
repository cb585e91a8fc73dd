/**
 * The built command line (out/main/cli.js, what bin/attention-lens.mjs runs) called in-process:
 * a worker thread loads it once and runs each command as `attention-lens ARGS` would, its stdout,
 * stderr and exit status returned as spawnSync returns them. Starting Node, loading the bundle and
 * onnxruntime and warming the JIT cost ~0.7 CPU s a command, paid ~130 times by these tests
 * (issue 40, "Performance"). What only a process shows (EPIPE, the not-built message, the exit of
 * a real process) is tested by spawning bin/attention-lens.mjs: cli-pipe.test, cli.test.
 *
 * Synchronous, like the spawnSync it replaces: the test's thread waits on a shared flag the worker
 * sets, then reads the answer off a message port without its event loop.
 */
import { join } from 'node:path'
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
import { ROOT } from '../../helpers'

export interface CliResult {
  /** The exit status; null when the command did not finish in time (the worker is then replaced). */
  code: number | null
  out: string
  err: string
}

let worker: Worker | undefined

export function runCli(args: readonly string[], input?: string, timeout = 300_000): CliResult {
  worker ??= new Worker(new URL('./cli-worker.mjs', import.meta.url), { workerData: { cli: join(ROOT, 'out', 'main', 'cli.js') } })
  // The test file's end is not held open by the worker.
  worker.unref()
  const signal = new Int32Array(new SharedArrayBuffer(4))
  const { port1, port2 } = new MessageChannel()
  worker.postMessage({ argv: [...args], input, signal, port: port2 }, [port2])
  if (Atomics.wait(signal, 0, 0, timeout) === 'timed-out') {
    void worker.terminate()
    worker = undefined
    return { code: null, out: '', err: `attention-lens ${args.join(' ')}: no answer in ${timeout / 1000} s` }
  }
  const answer = receiveMessageOnPort(port1)?.message as CliResult
  port1.close()
  return answer
}
