// The thread that holds ./broker.mjs for a test process (./index.ts): it waits on the broker's
// answers while the process's main thread is blocked in a synchronous call.
import { fork } from 'node:child_process'
import { runAsWorker } from 'synckit'

const broker = fork(new URL('./broker.mjs', import.meta.url), [], { serialization: 'advanced', stdio: 'inherit', execArgv: [] })
// One call at a time: its caller's thread is blocked until it is answered.
let pending = null
let gone = null
broker.on('message', (result) => pending?.resolve(result))
broker.on('exit', (code, signal) => {
  gone = new Error(`the spawn broker exited (${signal ?? code})`)
  pending?.reject(gone)
})

runAsWorker(
  (file, args, options) =>
    new Promise((resolve, reject) => {
      if (gone) return reject(gone)
      pending = { resolve, reject }
      broker.send({ file, args, options })
    }),
)
