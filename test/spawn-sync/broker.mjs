// Runs each command its parent (./worker.mjs) sends with Node's own spawnSync, and answers with
// the result. It is small, so forking it for each command costs little (see ./index.ts for why a
// test process does not fork itself).
import { spawnSync } from 'node:child_process'

process.on('message', ({ file, args, options }) => {
  const r = spawnSync(file, args, options)
  // An Error loses its own fields (code, errno, path) on the way back; they are sent beside it.
  const error = r.error && { message: r.error.message, fields: { ...r.error } }
  process.send({ ...r, error })
})
// The test process has gone: so does this one.
process.on('disconnect', () => process.exit(0))
