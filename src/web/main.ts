import { startWebServer } from './server'

const port = Number(process.env.AL_PORT || 0)
startWebServer({ port }).then(
  (s) => {
    console.log(`Attention Lens (browser mode): ${s.url}`)
    const stop = () => void s.close().then(() => process.exit(0))
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  },
  (e: Error) => {
    console.error(`attention-lens web: ${e.message}`)
    process.exit(1)
  },
)
