#!/usr/bin/env node
// The CLI is bundled with the main process build (npm run build) into out/main/cli.js.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url))
if (!existsSync(cli)) {
  console.error('attention-lens: not built yet; run `npm run build` first.')
  process.exit(2)
}
createRequire(import.meta.url)(cli).main()
