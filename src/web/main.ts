import { DEFAULT_PORT, startWebServer } from './server'

// A fixed port keeps the page's origin, so its saved session (localStorage) survives a restart.
const port = process.env.AL_PORT ? Number(process.env.AL_PORT) : DEFAULT_PORT
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`attention-lens web: AL_PORT must be a port number (0 for any free one), not "${process.env.AL_PORT}".`)
  process.exit(1)
}
startWebServer({ port }).then(
  (s) => {
    console.log(`Attention Lens (browser mode): ${s.loginUrl}`)
    const stop = () => void s.close().then(() => process.exit(0))
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  },
  (e: Error) => {
    console.error(`attention-lens web: ${e.message}`)
    process.exit(1)
  },
)
