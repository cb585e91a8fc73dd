// The thread that holds ./broker.mjs for a test process (./index.ts): it waits on the broker's
// answers while the process's main thread is blocked in a synchronous call.
import { fork } from 'node:child_process'
import { runAsWorker } from 'synckit'

const broker = fork(new URL('./broker.mjs', import.meta.url), [], { serialization: 'advanced', stdio: 'inherit', execArgv: [] })
const waiting = new Map()
let next = 0
let gone = null
broker.on('message', ({ id, result }) => {
  waiting.get(id)?.resolve(result)
  waiting.delete(id)
})
broker.on('exit', (code, signal) => {
  gone = new Error(`the spawn broker exited (${signal ?? code})`)
  for (const w of waiting.values()) w.reject(gone)
  waiting.clear()
})

runAsWorker(
  (file, args, options) =>
    new Promise((resolve, reject) => {
      if (gone) return reject(gone)
      const id = next++
      waiting.set(id, { resolve, reject })
      broker.send({ id, file, args, options })
    }),
)
